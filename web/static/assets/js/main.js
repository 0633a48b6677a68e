// aite's web app: the library, and for an open book the contents, find, the
// codex and revisions beside the reading pane, and the chat with the agent. The
// location hash is the route: #library, or #doc=<documentId>[&at=<pointer|end>].

import { h, clear, bytes, debounce } from './dom.js';
import * as api from './api.js';
import { t, lang, setLang } from './i18n.js';
import { Reader } from './reader.js';
import { Outline } from './outline.js';
import { Find } from './find.js';
import { Revisions } from './revisions.js';
import { Codex } from './codex.js';
import { Library, download } from './library.js';
import { ChatPanel } from './chat.js';

const THEME_KEY = 'aite.theme';
const root = document.getElementById('app');
const toasts = h('div', { class: 'toasts', role: 'status', 'aria-live': 'polite' });

function toast(msg, kind = 'error') {
  const el = h('div', { class: 'toast ' + kind, text: msg });
  toasts.append(el);
  setTimeout(() => el.remove(), 6000);
}

const report = (err) => toast(err?.message || String(err));

// Theme: auto (the system's), light or dark.
function applyTheme() {
  const mode = localStorage.getItem(THEME_KEY) || 'auto';
  const dark = mode === 'dark' || (mode === 'auto' && matchMedia('(prefers-color-scheme: dark)').matches);
  document.documentElement.dataset.theme = dark ? 'dark' : 'light';
  return mode;
}
matchMedia('(prefers-color-scheme: dark)').addEventListener('change', applyTheme);

function cycleTheme(btn) {
  const order = ['auto', 'light', 'dark'];
  const next = order[(order.indexOf(localStorage.getItem(THEME_KEY) || 'auto') + 1) % 3];
  localStorage.setItem(THEME_KEY, next);
  applyTheme();
  btn.title = t('app.theme', { mode: t('app.theme.' + next) });
}

function topbar(center, { signingIn = false } = {}) {
  const themeBtn = h('button', { class: 'icon-btn theme', 'aria-label': t('app.theme', { mode: t('app.theme.' + applyTheme()) }), text: '◐' });
  themeBtn.title = themeBtn.getAttribute('aria-label');
  themeBtn.addEventListener('click', () => cycleTheme(themeBtn));
  return h('header', { class: 'topbar' },
    h('a', { class: 'brand', href: '#library', title: t('app.library') }, h('img', { src: '/assets/icon.svg', alt: '', width: 22, height: 22 }), 'aite'),
    h('a', { class: 'nav', href: '#library', text: t('app.library') }),
    h('div', { class: 'center' }, center || null),
    h('button', { class: 'btn small lang', title: t('app.languageTitle'), text: t('app.language'),
      onclick: () => { setLang(lang === 'ru' ? 'en' : 'ru'); render(); } }),
    themeBtn,
    h('button', { class: 'icon-btn', 'aria-label': t('app.keys'), title: t('app.keys'), text: '?', onclick: showKeys }),
    api.hasToken() && !signingIn ? h('button', { class: 'btn small', text: t('app.signOut'), onclick: () => { api.setToken(''); signIn(); } }) : null);
}

// Sign-in: the API answered 401; ask for a token and start again.
function signIn(failed) {
  const field = h('textarea', { class: 'token', rows: 4, 'aria-label': t('auth.token'), placeholder: 'eyJhbGciOiJSUzI1NiIs…' });
  const remember = h('input', { type: 'checkbox' });
  clear(root).append(topbar(null, { signingIn: true }), h('main', { class: 'signin' },
    h('form', { class: 'card signin-card', onsubmit: (e) => {
      e.preventDefault();
      api.setToken(field.value, remember.checked);
      render();
    } }, h('h1', { text: t('auth.title') }), h('p', { text: t('auth.text') }),
    failed ? h('p', { class: 'error-text', role: 'alert', text: t('auth.failed') }) : null,
    h('label', { class: 'field' }, h('span', { text: t('auth.token') }), field),
    h('label', { class: 'check' }, remember, t('auth.remember')),
    h('button', { class: 'btn primary', type: 'submit', text: t('auth.submit') }))), toasts);
  field.focus();
}
let inSignIn = false;
api.onUnauthorized(() => {
  if (inSignIn) return;
  inSignIn = true;
  signIn(api.hasToken());
  inSignIn = false;
});

function showKeys() {
  if (document.querySelector('.keys-dialog')) return;
  const rows = [['/', 'keys.find'], ['c', 'keys.chat'], ['o', 'keys.contents'], ['j  k', 'keys.items'], [']  [', 'keys.headings'],
    ['y', 'keys.copy'], ['l', 'keys.library'], ['Enter', 'keys.send'], ['Esc', 'keys.escape'], ['?', 'keys.help']];
  const close = () => dlg.remove();
  const dlg = h('div', { class: 'keys-dialog', role: 'dialog', 'aria-modal': 'true', 'aria-label': t('keys.title'),
    onclick: (e) => e.target === dlg && close(), onkeydown: (e) => e.key === 'Escape' && close() },
  h('div', { class: 'card' }, h('h2', { text: t('keys.title') }),
    h('table', {}, rows.map(([k, d]) => h('tr', {}, h('td', {}, h('kbd', { text: k })), h('td', { text: t(d) })))),
    h('button', { class: 'btn', text: t('app.close'), onclick: close })));
  document.body.append(dlg);
  dlg.querySelector('button').focus();
}

function parseHash() {
  const p = new URLSearchParams(location.hash.slice(1));
  return { doc: p.get('doc'), at: p.get('at') };
}

let view = null; // the current editor view

async function render() {
  const { doc, at } = parseHash();
  view?.chat.abortStream();
  view = null;
  if (doc) return openDocument(doc, at);
  const lib = new Library({ onError: report });
  clear(root).append(topbar(), lib.el, toasts);
  try {
    await lib.load();
  } catch (err) {
    if (err.status !== 401) report(err);
  }
}

// The editor view of one document.
async function openDocument(id, at) {
  let detail;
  try {
    detail = await api.get('/document', { documentId: id });
  } catch (err) {
    if (err.status === 401) return;
    clear(root).append(topbar(), h('main', { class: 'library' }, h('p', { text: err.status === 404 ? t('app.notFound') : err.message })), toasts);
    return;
  }
  const title = h('span', { class: 'doc-title', text: detail.name });
  const info = h('span', { class: 'doc-info muted' });
  const setInfo = (d) => { info.textContent = t('app.docInfo', { items: d.itemCount.toLocaleString(), size: bytes(d.sizeBytes), rev: d.revision }); };
  setInfo(detail);
  const dl = h('button', { class: 'btn small', text: t('app.download'), onclick: () => download(detail).catch(report) });

  const reader = new Reader({ onPosition: (i) => outline.mark(i), onError: report });
  const outline = new Outline({ onJump: (i) => reader.jumpTo(i, { flash: true, focus: true }).catch(report) });
  const find = new Find({ onJump: (i) => reader.jumpTo(i, { flash: true }).catch(report) });
  const jump = (ptr) => reader.jumpToPointer(ptr).catch(report);
  const codex = new Codex({ onJump: jump, onError: report });
  const revisions = new Revisions({ onJump: jump, onError: report, onChanged: () => changed([]) });
  const changed = async (pointers) => {
    const d = await api.get('/document', { documentId: id });
    setInfo(d);
    codex.loaded = false; // its counts of items are read again when shown
    outline.show(d.outline, 0);
    await Promise.all([reader.refresh(pointers), revisions.load()]);
  };
  const pendingEdits = [];
  const edited = debounce(() => changed(pendingEdits.splice(0)).catch(report), 150);
  const chat = new ChatPanel({
    jump,
    onError: report,
    onEdit: (ev) => { pendingEdits.push(ev.newPointer || ev.pointer); edited(); },
    highlight: (ptr, color) => reader.jumpToPointer(ptr, { flash: true }).then(() => {
      const el = reader.el.querySelector(`[data-pointer="${CSS.escape(ptr)}"]`) || null;
      el?.classList.add('hl-' + (color || 'yellow'));
    }).catch(report),
  });

  const tabs = [['contents', t('app.contents'), outline.el], ['find', t('app.find'), find.el], ['codex', t('app.codex'), codex.el], ['revisions', t('app.revisions'), revisions.el]];
  const tabBar = h('div', { class: 'tabs', role: 'tablist' });
  const panels = h('div', { class: 'tab-panels' });
  const select = (name) => {
    for (const b of tabBar.children) {
      const on = b.dataset.tab === name;
      b.setAttribute('aria-selected', String(on));
      b.tabIndex = on ? 0 : -1;
    }
    for (const p of panels.children) p.hidden = p.dataset.tab !== name;
    if (name === 'revisions') revisions.load().catch(report);
    if (name === 'codex') codex.load().catch(report);
  };
  for (const [name, label, el] of tabs) {
    tabBar.append(h('button', { role: 'tab', 'data-tab': name, id: 'tab-' + name, text: label, onclick: () => select(name),
      onkeydown: (e) => {
        const i = tabs.findIndex((x) => x[0] === name);
        if (e.key === 'ArrowRight' || e.key === 'ArrowLeft') {
          const next = tabs[(i + (e.key === 'ArrowRight' ? 1 : tabs.length - 1)) % tabs.length][0];
          select(next);
          tabBar.querySelector(`[data-tab="${next}"]`).focus();
        }
      } }));
    panels.append(h('div', { role: 'tabpanel', 'data-tab': name, 'aria-labelledby': 'tab-' + name, class: 'tab-panel' }, el));
  }
  select('contents');

  clear(root).append(topbar(h('div', { class: 'doc-head' }, title, info, dl)),
    h('div', { class: 'workspace' },
      h('aside', { class: 'side', 'aria-label': t('app.contents') }, tabBar, panels),
      h('main', { class: 'reading' }, reader.el),
      chat.el),
    toasts);

  view = { id, reader, outline, find, chat, select, revisions, codex };
  outline.show(detail.outline, 0);
  find.setDocument(id);
  codex.setDocument(id);
  revisions.setDocument(id);
  revisions.revision = detail.revision;
  try {
    await Promise.all([
      reader.open(id, 0).then(() => (at ? (at === 'end' ? reader.jumpTo(reader.total - 1, { align: 'end' }) : jump(at)) : null)),
      chat.setDocument(id),
    ]);
  } catch (err) {
    report(err);
  }
}

// Keyboard shortcuts (not while typing).
document.addEventListener('keydown', (e) => {
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const typing = e.target.closest?.('input, textarea, select, [contenteditable]');
  if (e.key === 'Escape') {
    if (typing) e.target.blur();
    view?.reader.el.focus();
    return;
  }
  if (typing) return;
  if (e.key === '?') return showKeys();
  if (e.key === 'l') { location.hash = '#library'; return; }
  if (!view) return;
  const r = view.reader;
  switch (e.key) {
    case '/': view.select('find'); view.find.focus(); break;
    case 'c': view.chat.focus(); break;
    case 'o': view.select('contents'); view.outline.focus(); break;
    case 'j': r.move(1).catch(report); break;
    case 'k': r.move(-1).catch(report); break;
    case ']':
    case '[': {
      const i = r.headingIndex(e.key === ']' ? 1 : -1);
      if (i >= 0) r.jumpTo(i, { focus: true }).catch(report);
      break;
    }
    case 'y': {
      const el = document.activeElement?.closest?.('.item');
      if (el) r.copy(el.dataset.pointer, el);
      break;
    }
    default: return;
  }
  e.preventDefault();
});

window.addEventListener('hashchange', () => {
  const { doc, at } = parseHash();
  if (view && doc === view.id) {
    if (at) view.reader.jumpToPointer(at).catch(report);
    return;
  }
  render();
});

document.documentElement.lang = lang;
applyTheme();
render();
