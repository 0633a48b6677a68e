// Find: the modes of `aite find` (every form of the words, exact phrase,
// ranked by relevance, by meaning, by meaning and words, every name of a
// codex entry), results with the matches marked; a click scrolls
// the reading pane to the item.

import { h, clear } from './dom.js';
import * as api from './api.js';
import { t } from './i18n.js';

export class Find {
  constructor({ onJump }) {
    this.onJump = onJump;
    this.input = h('input', { type: 'search', class: 'find-input', placeholder: t('find.placeholder'), 'aria-label': t('find.label') });
    this.mode = h('select', { class: 'find-mode', 'aria-label': t('find.mode') },
      h('option', { value: 'all', text: t('find.all') }), h('option', { value: 'exact', text: t('find.exact') }),
      h('option', { value: 'ranked', text: t('find.ranked') }), h('option', { value: 'hybrid', text: t('find.hybrid') }),
      h('option', { value: 'semantic', text: t('find.semantic') }), h('option', { value: 'entry', text: t('find.entry') }));
    this.headings = h('input', { type: 'checkbox' });
    this.status = h('p', { class: 'find-status muted', role: 'status' });
    this.results = h('ol', { class: 'find-results' });
    const form = h('form', { class: 'find-form', role: 'search', onsubmit: (e) => { e.preventDefault(); this.run(); } },
      h('div', { class: 'find-row' }, this.input, h('button', { class: 'btn', type: 'submit', text: t('find.go') })),
      h('div', { class: 'find-row' }, this.mode, h('label', { class: 'check' }, this.headings, t('find.headings'))));
    this.mode.addEventListener('change', () => this.input.value && this.run());
    this.el = h('div', { class: 'find' }, form, this.status, this.results);
    this.results.addEventListener('keydown', (e) => this.key(e));
  }

  setDocument(id) {
    this.docId = id;
    clear(this.results);
    this.status.textContent = '';
  }

  focus() {
    this.input.focus();
    this.input.select();
  }

  async run() {
    const q = this.input.value.trim();
    if (!q || !this.docId) return;
    this.status.textContent = t('find.searching');
    clear(this.results);
    let found;
    try {
      found = await api.get('/document/find', { documentId: this.docId, q, mode: this.mode.value, headings: this.headings.checked, limit: 200 });
    } catch (err) {
      this.status.textContent = err.message;
      return;
    }
    const n = found.results.length;
    this.status.textContent = (n === 0 ? t('find.none') : t(found.limitReached ? 'find.countMore' : 'find.count', { n })) +
      (found.notice ? ' ' + found.notice : '');
    for (const r of found.results) {
      const li = h('li', {},
        h('button', { class: 'hit', 'data-index': r.index, onclick: () => this.onJump(r.index) },
          h('span', { class: 'hit-head' }, h('span', { class: 'ptr', text: r.pointer }),
            r.score ? h('span', { class: 'score', text: r.score.toFixed(2) }) : null),
          h('span', { class: 'excerpt', html: r.excerpt })));
      this.results.append(li);
    }
  }

  key(e) {
    const items = [...this.results.querySelectorAll('.hit')];
    const i = items.indexOf(document.activeElement);
    if (e.key === 'ArrowDown' && i < items.length - 1) items[i + 1].focus();
    else if (e.key === 'ArrowUp' && i > 0) items[i - 1].focus();
    else return;
    e.preventDefault();
  }
}
