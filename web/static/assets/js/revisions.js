// Revisions: every applied edit of the document, newest first, with its
// word-level diff; undo the last change, or restore the text as it was
// after any revision (itself a new revision, so it can be undone too).

import { h, clear } from './dom.js';
import * as api from './api.js';
import { t, opLabel, when } from './i18n.js';

export class Revisions {
  constructor({ onJump, onChanged, onError }) {
    this.onJump = onJump;
    this.onChanged = onChanged;
    this.onError = onError;
    this.undoBtn = h('button', { class: 'btn', onclick: () => this.restore(this.revision - 1), text: t('rev.undo') });
    this.head = h('div', { class: 'rev-head' });
    this.list = h('ol', { class: 'rev-list', reversed: true });
    this.el = h('div', { class: 'revisions' }, h('div', { class: 'rev-bar' }, this.head, this.undoBtn), this.list);
  }

  setDocument(id) {
    this.docId = id;
    this.revision = 0;
    clear(this.list);
  }

  async load() {
    if (!this.docId) return;
    const hist = await api.get('/document/history', { documentId: this.docId });
    const edits = hist.edits;
    this.revision = edits.length ? edits[edits.length - 1].revision : 0;
    this.head.textContent = t('rev.current', { n: this.revision });
    this.undoBtn.disabled = this.revision === 0;
    const pairs = edits.map((e) => ({ before: e.before || '', after: e.after || '' }));
    let diffs = [];
    if (pairs.length) diffs = (await api.post('/diff', { pairs: pairs.slice(-200) })).html;
    const offset = Math.max(0, edits.length - 200);
    clear(this.list);
    for (let i = edits.length - 1; i >= offset; i--) this.list.append(this.entry(edits[i], diffs[i - offset]));
    this.list.append(h('li', { class: 'rev', 'data-revision': 0 },
      h('div', { class: 'rev-title' }, h('span', { class: 'rev-n', text: '0' }), h('span', { text: t('rev.original') })),
      this.revision > 0 ? h('button', { class: 'btn small', text: t('rev.restore'), onclick: () => this.restore(0) }) : null));
  }

  entry(e, diff) {
    const ptr = e.newPointer || e.pointer;
    const title = e.op === 'revert' ? t('rev.reverted', { n: e.revertedTo }) : opLabel(e.op);
    return h('li', { class: 'rev', 'data-revision': e.revision },
      h('div', { class: 'rev-title' }, h('span', { class: 'rev-n', text: String(e.revision) }), h('span', { text: title }),
        ptr ? h('button', { class: 'ptr link', text: ptr, onclick: () => this.onJump(ptr) }) : null,
        h('time', { class: 'muted', text: when(e.at) })),
      e.op !== 'revert' ? h('div', { class: 'diff', html: diff || '' }) : null,
      e.revision < this.revision ? h('button', { class: 'btn small', text: t('rev.restore'), onclick: () => this.restore(e.revision) }) : null);
  }

  async restore(rev) {
    if (rev < 0) return;
    try {
      await api.post('/document/revert', { documentId: this.docId, revision: rev });
    } catch (err) {
      this.onError(err);
      return;
    }
    await this.onChanged();
  }
}
