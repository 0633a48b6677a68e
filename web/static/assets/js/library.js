// The library: every document with its size and revision; open one, add
// Markdown files (drag and drop anywhere, or choose), download the current
// text.

import { h, clear, bytes } from './dom.js';
import * as api from './api.js';
import { t, when } from './i18n.js';

// download saves the current Markdown of a document as a file.
export async function download(doc) {
  const blob = await api.fetchBlob('/document/download', { documentId: doc.documentId });
  const a = h('a', { href: URL.createObjectURL(blob), download: /\.md$/i.test(doc.name) ? doc.name : doc.name + '.md' });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
}

export class Library {
  constructor({ onOpen, onError }) {
    this.onOpen = onOpen;
    this.onError = onError;
    this.fileInput = h('input', { type: 'file', accept: '.md,.markdown,.txt,text/markdown,text/plain', multiple: true, hidden: true,
      onchange: () => this.add([...this.fileInput.files]) });
    this.status = h('p', { class: 'lib-status', role: 'status' });
    this.table = h('table', { class: 'lib-table' });
    this.drop = h('div', { class: 'drop-zone', 'aria-hidden': 'true' }, h('p', { text: t('lib.drop') }));
    this.el = h('main', { class: 'library' },
      h('div', { class: 'lib-head' }, h('h1', { text: t('lib.title') }),
        h('button', { class: 'btn primary', text: t('lib.upload'), onclick: () => this.fileInput.click() }), this.fileInput),
      h('p', { class: 'muted', text: t('lib.hint') }), this.status, this.table, this.drop);
    for (const ev of ['dragenter', 'dragover']) {
      this.el.addEventListener(ev, (e) => {
        if (![...e.dataTransfer.types].includes('Files')) return;
        e.preventDefault();
        this.el.classList.add('dragging');
      });
    }
    this.el.addEventListener('dragleave', (e) => {
      if (e.target === this.drop || !this.el.contains(e.relatedTarget)) this.el.classList.remove('dragging');
    });
    this.el.addEventListener('drop', (e) => {
      e.preventDefault();
      this.el.classList.remove('dragging');
      this.add([...e.dataTransfer.files]);
    });
  }

  async load() {
    const docs = await api.get('/documents');
    clear(this.table).append(h('thead', {}, h('tr', {},
      h('th', { text: t('lib.name') }), h('th', { class: 'num', text: t('lib.size') }), h('th', { class: 'num', text: t('lib.items') }),
      h('th', { class: 'num', text: t('lib.revision') }), h('th', { text: t('lib.updated') }), h('th', {}))));
    const body = h('tbody');
    for (const d of docs) {
      body.append(h('tr', { 'data-id': d.documentId },
        h('td', {}, h('a', { href: '#doc=' + d.documentId, class: 'doc-link', text: d.name })),
        h('td', { class: 'num', text: bytes(d.sizeBytes) }), h('td', { class: 'num', text: d.itemCount.toLocaleString() }),
        h('td', { class: 'num', text: String(d.revision) }), h('td', { text: when(d.updatedAt) }),
        h('td', { class: 'actions' }, h('button', { class: 'btn small', text: t('lib.download'), onclick: () => download(d).catch(this.onError) }))));
    }
    this.table.append(body);
    if (!docs.length) this.status.textContent = t('lib.empty');
    return docs;
  }

  async add(files) {
    for (const f of files) {
      this.status.textContent = t('lib.uploading', { name: f.name });
      try {
        const d = await api.upload(f);
        this.status.textContent = t('lib.uploaded', { name: d.name });
      } catch (err) {
        this.status.textContent = t('lib.uploadFailed', { name: f.name, error: err.message });
        continue;
      }
    }
    await this.load();
  }
}
