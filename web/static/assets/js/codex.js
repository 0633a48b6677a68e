// Codex: the book's people, places, things, terms, events and style rules
// (GET /document/codex). A list to filter, an entry's card with its names,
// description, facts and the items that name it (a click jumps there), a
// form to add or change an entry, and "Collect from the text" (the
// deterministic build, POST /document/codex/build).

import { h, clear } from './dom.js';
import * as api from './api.js';
import { t } from './i18n.js';

const KINDS = ['character', 'place', 'object', 'term', 'event', 'style'];

// lines splits a textarea into its non-empty lines (commas too for names).
const lines = (s, commas) => s.split(commas ? /[\n,;]/ : /\n/).map((x) => x.trim()).filter(Boolean);

export class Codex {
  constructor({ onJump, onError }) {
    this.onJump = onJump;
    this.onError = onError;
    this.entries = [];
    this.filter = h('input', { type: 'search', class: 'codex-filter', placeholder: t('codex.filter'), 'aria-label': t('codex.filter'),
      oninput: () => this.showList() });
    this.kind = h('select', { class: 'codex-kind', 'aria-label': t('codex.kind'), onchange: () => this.showList() },
      h('option', { value: '', text: t('codex.allKinds') }), KINDS.map((k) => h('option', { value: k, text: t('codex.kind.' + k) })));
    this.status = h('p', { class: 'codex-status muted', role: 'status' });
    this.body = h('div', { class: 'codex-body' });
    this.buildBtn = h('button', { class: 'btn small codex-build', text: t('codex.build'), title: t('codex.buildTitle'), onclick: () => this.build() });
    this.el = h('div', { class: 'codex' },
      h('div', { class: 'codex-bar' }, this.buildBtn,
        h('button', { class: 'btn small codex-new', text: t('codex.new'), onclick: () => this.edit(null) }),
        h('button', { class: 'btn small codex-export', text: t('codex.export'), onclick: () => this.export().catch(this.onError) })),
      h('div', { class: 'find-row' }, this.filter, this.kind), this.status, this.body);
  }

  setDocument(id) {
    this.docId = id;
    this.loaded = false;
    this.entries = [];
    clear(this.body);
  }

  // load reads the codex (again); the list is shown unless an entry is.
  async load({ force } = {}) {
    if (!this.docId || (this.loaded && !force)) return;
    const c = await api.get('/document/codex', { documentId: this.docId });
    this.loaded = true;
    this.entries = c.entries;
    this.source = c.source;
    this.warning = c.warning || '';
    if (!this.current) this.showList();
  }

  showList() {
    this.current = null;
    const q = this.filter.value.trim().toLowerCase();
    const kind = this.kind.value;
    const shown = this.entries.filter((e) => (!kind || e.kind === kind) &&
      (!q || [e.name, ...(e.aliases || [])].some((n) => n.toLowerCase().includes(q))));
    this.status.textContent = this.entries.length === 0 ? t('codex.empty')
      : t('codex.count', { n: shown.length, total: this.entries.length }) + (this.warning ? ' · ' + this.warning : '');
    const list = h('ul', { class: 'codex-list' });
    for (const e of shown) {
      list.append(h('li', {}, h('button', { class: 'entry', 'data-entry': e.id, onclick: () => this.show(e.id).catch(this.onError) },
        h('span', { class: 'entry-head' }, h('strong', { text: e.name }), h('span', { class: 'badge', text: t('codex.kind.' + e.kind, {}, e.kind) }),
          e.items ? h('span', { class: 'muted count', text: t('codex.items', { n: e.items }) }) : null),
        e.aliases?.length ? h('span', { class: 'aliases muted', text: e.aliases.join(', ') }) : null)));
    }
    clear(this.body).append(list);
  }

  // show opens an entry's card: names, description, facts and relations,
  // then the items that name it.
  async show(ref) {
    const d = await api.get('/document/codex/entry', { documentId: this.docId, entry: ref });
    const e = d.entry;
    this.current = e.id;
    const ptr = (p) => h('button', { class: 'ptr link', text: p, onclick: () => this.onJump(p) });
    const mentions = h('ol', { class: 'find-results codex-mentions' });
    const card = h('div', { class: 'codex-entry', 'data-entry': e.id },
      h('div', { class: 'codex-bar' },
        h('button', { class: 'btn small codex-back', text: t('codex.back'), onclick: () => this.showList() }),
        h('button', { class: 'btn small codex-edit', text: t('codex.edit'), onclick: () => this.edit(e) }),
        h('button', { class: 'btn small codex-rm', text: t('codex.remove'), onclick: () => this.remove(e) })),
      h('h3', {}, e.name, ' ', h('span', { class: 'badge', text: t('codex.kind.' + e.kind, {}, e.kind) })),
      e.aliases?.length ? h('p', { class: 'aliases' }, h('span', { class: 'muted', text: t('codex.aliases') + ': ' }), e.aliases.join(', ')) : null,
      e.description ? h('p', { class: 'description', text: e.description }) : null,
      e.notes ? h('p', { class: 'notes muted', text: t('codex.notes') + ': ' + e.notes }) : null,
      e.relations?.length ? h('ul', { class: 'relations' }, e.relations.map((r) => h('li', {}, r.type + ' → ' + r.target, ' ', r.evidence ? ptr(r.evidence) : null))) : null,
      e.facts?.length ? h('div', {}, h('h4', { text: t('codex.facts') }),
        h('ul', { class: 'facts' }, e.facts.map((f) => h('li', {}, f.text, ' ', (f.evidence || []).map(ptr))))) : null,
      h('h4', { text: d.uses.items ? t('codex.items', { n: d.uses.items }) : t('codex.noItems') }),
      mentions);
    this.status.textContent = '';
    clear(this.body).append(card);
    if (!d.uses.items) return;
    const found = await api.get('/document/find', { documentId: this.docId, q: e.id, mode: 'entry', headings: true, limit: 200 });
    if (this.current !== e.id) return;
    for (const r of found.results) {
      mentions.append(h('li', {}, h('button', { class: 'hit', 'data-index': r.index, onclick: () => this.onJump(r.pointer) },
        h('span', { class: 'hit-head' }, h('span', { class: 'ptr', text: r.pointer })), h('span', { class: 'excerpt', html: r.excerpt }))));
    }
  }

  // edit shows the form for a new entry (e null) or for e.
  edit(e) {
    const entry = e || { kind: 'character', name: '' };
    const name = h('input', { type: 'text', class: 'codex-name', value: entry.name, required: true });
    const kind = h('select', { class: 'codex-kind-field' }, KINDS.map((k) => h('option', { value: k, text: t('codex.kind.' + k) })));
    kind.value = entry.kind;
    const aliases = h('textarea', { class: 'codex-aliases', rows: 3, value: (entry.aliases || []).join('\n') });
    const description = h('textarea', { class: 'codex-description', rows: 4, value: entry.description || '' });
    const notes = h('textarea', { class: 'codex-notes', rows: 2, value: entry.notes || '' });
    const err = h('p', { class: 'error-text', role: 'alert' });
    const field = (label, input) => h('label', { class: 'field' }, h('span', { text: label }), input);
    const form = h('form', { class: 'codex-form', onsubmit: async (ev) => {
      ev.preventDefault();
      const out = { ...entry, name: name.value.trim(), kind: kind.value, aliases: lines(aliases.value, true),
        description: description.value.trim(), notes: notes.value.trim() };
      try {
        const saved = await api.post('/document/codex/entry', { documentId: this.docId, entry: out });
        await this.load({ force: true });
        await this.show(saved.id);
      } catch (x) {
        err.textContent = x.message;
      }
    } },
    h('h3', { text: e ? t('codex.editTitle', { name: e.name }) : t('codex.newTitle') }),
    field(t('codex.name'), name), field(t('codex.kind'), kind), field(t('codex.aliasesHint'), aliases),
    field(t('codex.description'), description), field(t('codex.notes'), notes), err,
    h('div', { class: 'codex-bar' }, h('button', { class: 'btn primary', type: 'submit', text: t('codex.save') }),
      h('button', { class: 'btn', type: 'button', text: t('codex.cancel'), onclick: () => (e ? this.show(e.id).catch(this.onError) : this.showList()) })));
    this.current = e ? e.id : '(new)';
    this.status.textContent = '';
    clear(this.body).append(form);
    name.focus();
  }

  async remove(e) {
    if (!confirm(t('codex.removeAsk', { name: e.name }))) return;
    try {
      await api.del('/document/codex/entry', { documentId: this.docId, entry: e.id });
      this.current = null;
      await this.load({ force: true });
    } catch (x) {
      this.onError(x);
    }
  }

  // build collects candidates from the text (no model); entries someone
  // wrote or confirmed are kept.
  async build() {
    this.buildBtn.disabled = true;
    this.status.textContent = t('codex.building');
    try {
      const r = await api.post('/document/codex/build', { documentId: this.docId });
      this.current = null;
      await this.load({ force: true });
      this.status.textContent = t('codex.built', { n: r.entries }) + (r.notice ? ' ' + r.notice : '');
    } catch (x) {
      this.status.textContent = x.message;
    } finally {
      this.buildBtn.disabled = false;
    }
  }

  // export downloads the codex as a Markdown appendix.
  async export() {
    const blob = await api.fetchBlob('/document/codex/export', { documentId: this.docId, format: 'md' });
    const a = h('a', { href: URL.createObjectURL(blob), download: 'codex.md' });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10000);
  }
}
