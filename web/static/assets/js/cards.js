// The cards a person answers: edit approvals (approval.request), scope
// requests (scope.request), the confirm frontend tool, other frontend tools
// in a sandboxed viewport, and the advisors' opinions. Each card is
// {el, setActive(on), answered(payload), decided(event)}; only an active
// card (a live request of a running run) has working buttons.

import { h, bytes } from './dom.js';
import * as api from './api.js';
import { t, opLabel, toolLabel } from './i18n.js';

// answerer wraps the card's answer: buttons off while it is sent, the
// error shown when the server refuses it.
function answerer(card, status, answer) {
  return async (params) => {
    card.setActive(false);
    status.textContent = t('card.sending');
    try {
      const res = await answer(params);
      if (card.done) return; // the decision event came first
      status.textContent = res && res.accepted === false ? t('card.notPending') : t('card.sent');
    } catch (err) {
      if (card.done) return;
      status.textContent = err.message;
      card.setActive(true);
    }
  };
}

function setButtons(root, on) {
  for (const b of root.querySelectorAll('button.act, input.act, textarea.act')) b.disabled = !on;
  root.classList.toggle('active', on);
}

// diffPair is the before/after text of an edit preview.
function diffPair(p) {
  switch (p.op) {
    case 'insert_before':
    case 'insert_after':
      return { before: '', after: p.newMarkdown || '' };
    case 'delete':
      return { before: p.oldMarkdown || '', after: '' };
  }
  return { before: p.oldMarkdown || '', after: p.newMarkdown || '' };
}

// approvalCard shows the held edits of approval.request as word-level
// diffs with Approve / Reject per edit and for all of them.
export function approvalCard(ev, { link, answer }) {
  const calls = ev.calls || [];
  const status = h('span', { class: 'card-status', role: 'status' });
  const choice = new Map(); // toolId → true/false
  const rows = new Map();
  const card = { el: null };
  const send = answerer(card, status, answer);
  const reason = h('input', { class: 'act reason', type: 'text', placeholder: t('approve.reason'), 'aria-label': t('approve.reason') });
  const decideAll = (yes) => send(yes ? { decision: 'approve' } : { decision: 'deny', reason: reason.value.trim() || undefined });
  const pick = (id, yes) => {
    choice.set(id, yes);
    rows.get(id).dataset.choice = yes ? 'approve' : 'reject';
    if (choice.size < calls.length) return;
    const approved = calls.filter((c) => choice.get(c.toolId)).map((c) => c.toolId);
    if (approved.length === calls.length) return decideAll(true);
    if (approved.length === 0) return decideAll(false);
    send({ decision: 'partial', approved, reason: reason.value.trim() || undefined });
  };
  const list = h('ol', { class: 'edits' });
  const pairs = [];
  for (const c of calls) {
    const p = c.preview || {};
    const ptr = p.pointer || c.toolParams?.pointer || '';
    const diff = h('div', { class: 'diff', text: '…' });
    if (c.preview) pairs.push({ el: diff, ...diffPair(p) });
    else diff.textContent = JSON.stringify(c.toolParams);
    const row = h('li', { class: 'edit', 'data-tool-id': c.toolId },
      h('div', { class: 'edit-head' }, h('span', { class: 'op', text: opLabel(p.op || c.toolName) }), ptr ? link(ptr) : null,
        h('span', { class: 'verdict' })),
      diff,
      calls.length > 1 ? h('div', { class: 'edit-actions' },
        h('button', { class: 'btn small act approve', text: t('approve.one'), onclick: () => pick(c.toolId, true) }),
        h('button', { class: 'btn small act reject', text: t('approve.reject'), onclick: () => pick(c.toolId, false) })) : null);
    rows.set(c.toolId, row);
    list.append(row);
  }
  if (pairs.length) {
    api.post('/diff', { pairs: pairs.map(({ before, after }) => ({ before, after })) })
      .then((out) => pairs.forEach((p, i) => { p.el.innerHTML = out.html[i]; }))
      .catch(() => pairs.forEach((p) => { p.el.textContent = p.after; }));
  }
  card.el = h('div', { class: 'card approval', 'data-approval': ev.approvalId },
    h('div', { class: 'card-head' }, h('strong', { text: t('approve.title', { n: calls.length }) }), status),
    list,
    h('div', { class: 'card-actions' }, reason,
      h('button', { class: 'btn primary act approve-all', text: calls.length > 1 ? t('approve.all') : t('approve.one'), onclick: () => decideAll(true) }),
      h('button', { class: 'btn act reject-all', text: calls.length > 1 ? t('approve.rejectAll') : t('approve.reject'), onclick: () => decideAll(false) })));
  card.setActive = (on) => setButtons(card.el, on);
  card.answered = () => { status.textContent = t('card.sent'); };
  card.decided = (d) => {
    card.done = true;
    card.setActive(false);
    card.el.classList.add('decided');
    status.textContent = t('decision.' + d.decision, {}, d.decision) + (d.by === 'policy' ? ' · ' + t('decision.byPolicy') : '');
    for (const [id, row] of rows) {
      const yes = (d.approved || []).includes(id);
      row.dataset.choice = yes ? 'approve' : 'reject';
      row.querySelector('.verdict').textContent = yes ? t('approve.approved') : d.decision === 'timeout' ? t('decision.timeout') : t('approve.rejected');
    }
  };
  return card;
}

// scopeCard shows what a call asks to see (scope.request): the requested
// scopes with their sizes, each to allow or not.
export function scopeCard(ev, answer) {
  const status = h('span', { class: 'card-status', role: 'status' });
  const card = { el: null };
  const send = answerer(card, status, answer);
  const boxes = new Map();
  const list = h('ul', { class: 'scopes' });
  const pv = new Map((ev.preview || []).map((p) => [p.scope, p]));
  for (const s of ev.scopes || []) {
    const box = h('input', { type: 'checkbox', class: 'act', checked: true });
    boxes.set(s, box);
    const p = pv.get(s);
    list.append(h('li', {}, h('label', { class: 'check' }, box, h('strong', { text: s })),
      p ? h('span', { class: 'muted', text: ' · ' + bytes(p.bytes) + (p.keys?.length ? ' · ' + p.keys.slice(0, 6).join(', ') : '') }) : null));
  }
  const allow = () => {
    const granted = [...boxes].filter(([, b]) => b.checked).map(([s]) => s);
    if (granted.length === boxes.size) send({ decision: 'approve' });
    else if (granted.length === 0) send({ decision: 'deny' });
    else send({ decision: 'narrow', scopes: granted });
  };
  card.el = h('div', { class: 'card scope', 'data-approval': ev.approvalId },
    h('div', { class: 'card-head' }, h('strong', { text: t('scope.title', { tool: toolLabel(ev.toolName) }) }), status),
    (ev.provisioned || []).length ? h('p', { class: 'muted', text: t('scope.always', { list: ev.provisioned.join(', ') }) }) : null,
    list,
    h('div', { class: 'card-actions' },
      h('button', { class: 'btn primary act', text: t('scope.allow'), onclick: allow }),
      h('button', { class: 'btn act', text: t('scope.deny'), onclick: () => send({ decision: 'deny' }) })));
  card.setActive = (on) => setButtons(card.el, on);
  card.answered = () => { status.textContent = t('card.sent'); };
  card.decided = (d) => {
    card.done = true;
    card.setActive(false);
    card.el.classList.add('decided');
    const granted = d.decision === 'approve' || d.decision === 'narrow';
    status.textContent = t('decision.' + d.decision, {}, d.decision) + (granted && d.scopes?.length ? ': ' + d.scopes.join(', ') : '');
  };
  return card;
}

// confirmCard is the confirm frontend tool, answered natively: the
// question, the details, a comment and Confirm / Decline.
export function confirmCard(c, answer) {
  const p = c.parsed || {};
  const status = h('span', { class: 'card-status', role: 'status' });
  const card = { el: null };
  const send = answerer(card, status, answer);
  const comment = h('textarea', { class: 'act comment', rows: 2, placeholder: t('confirm.comment'), 'aria-label': t('confirm.comment') });
  card.el = h('div', { class: 'card confirm' },
    h('div', { class: 'card-head' }, h('strong', { text: p.question || t('confirm.default') }), status),
    p.details ? h('p', { class: 'details', text: p.details }) : null,
    comment,
    h('div', { class: 'card-actions' },
      h('button', { class: 'btn primary act', text: t('confirm.yes'), onclick: () => send({ confirmed: true, comment: comment.value.trim() }) }),
      h('button', { class: 'btn act', text: t('confirm.no'), onclick: () => send({ confirmed: false, comment: comment.value.trim() }) })));
  card.setActive = (on) => setButtons(card.el, on);
  card.answered = (payload) => {
    card.done = true;
    card.setActive(false);
    status.textContent = payload?.confirmed ? t('confirm.confirmed') : t('confirm.declined');
    if (payload?.comment) comment.value = payload.comment;
  };
  card.decided = () => {};
  return card;
}

// viewportCard runs a frontend tool's viewport in a sandboxed frame
// (frame.html: an opaque origin with its own CSP) and passes its
// frontend_submit on to /submit.
export function viewportCard(c, answer) {
  const status = h('span', { class: 'card-status', role: 'status' });
  const card = { el: null, active: false };
  const send = answerer(card, status, answer);
  const frame = h('iframe', { class: 'viewport', src: '/frame.html', sandbox: 'allow-scripts allow-forms', title: c.toolKey || c.name, referrerpolicy: 'no-referrer' });
  card.el = h('div', { class: 'card viewport-card' }, h('div', { class: 'card-head' }, h('strong', { text: c.toolKey || c.name }), status), frame);
  const init = { type: 'tool_init', data: { toolKey: c.toolKey, toolType: c.type, toolTimeout: c.toolTimeout, params: c.parsed } };
  const onMessage = (e) => {
    if (e.source !== frame.contentWindow) return;
    const m = e.data || {};
    if (m.type === 'viewport_ready') {
      api.get('/viewport', { viewportKey: c.toolKey }).then((v) => {
        if (typeof v.html !== 'string') throw new Error(t('viewport.qlc'));
        frame.contentWindow.postMessage({ type: 'viewport_html', html: v.html }, '*');
        frame.contentWindow.postMessage(init, '*');
      }).catch((err) => { status.textContent = err.message; });
    } else if (m.type === 'viewport_height' && m.height > 0) {
      frame.style.height = Math.min(600, m.height + 4) + 'px';
    } else if (m.type === 'frontend_submit' && card.active) {
      send(m.params ?? {});
    }
  };
  window.addEventListener('message', onMessage);
  card.setActive = (on) => {
    card.active = on;
    card.el.classList.toggle('active', on);
  };
  card.answered = () => {
    card.done = true;
    card.setActive(false);
    status.textContent = t('card.answered');
  };
  card.decided = () => {};
  return card;
}

// advisorCard shows an advisor's opinion (advisor.snapshot), folded.
export function advisorCard(ev) {
  const o = ev.opinion || {};
  const head = [o.decision, ev.instance].filter(Boolean).join(' · ');
  const body = h('div', {});
  for (const [k, v] of Object.entries(o)) {
    if (k === 'decision') continue;
    body.append(h('p', {}, h('strong', { text: k + ': ' }), typeof v === 'string' ? v : JSON.stringify(v)));
  }
  const w = Object.entries(ev.weights || {});
  if (w.length) body.append(h('p', { class: 'muted', text: w.map(([k, v]) => k + ' ' + v).join(' · ') }));
  return h('details', { class: 'advisor' }, h('summary', {}, h('span', { text: t('chat.advisor', { id: ev.advisorId }) }),
    head ? h('span', { class: 'badge', text: head }) : null), body);
}

