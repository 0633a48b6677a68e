// The reading pane: the book item by item, rendered by the server
// (/document/items?format=html), virtualised so that a 5 MB novel scrolls
// as smoothly as a short story. Items are fetched and rendered in blocks of
// BLOCK; the height of a block not rendered yet is estimated from the
// lengths of its items (/document/layout), and replaced by its measured
// height once rendered, keeping the first visible block where it was.

import { h, clear } from './dom.js';
import * as api from './api.js';
import { t } from './i18n.js';

const BLOCK = 50;
const OVERSCAN = 1.5; // screens rendered above and below the viewport
const PREFETCH = 8; // screens fetched (not rendered) ahead in the direction of scrolling
const KEEP = 4; // screens kept rendered before blocks are dropped

export class Reader {
  constructor({ onPosition, onError }) {
    this.onPosition = onPosition || (() => {});
    this.onError = onError || (() => {});
    this.spacer = h('div', { class: 'reader-spacer' });
    this.el = h('div', { class: 'reader', tabindex: '0', role: 'document', 'aria-label': t('reader.label') }, this.spacer);
    this.el.addEventListener('scroll', () => this.schedule(), { passive: true });
    new ResizeObserver(() => this.resized()).observe(this.el);
    this.reset();
  }

  reset() {
    this.docId = null;
    this.revision = -1;
    this.total = 0;
    this.est = []; // estimated height per block
    this.measured = new Map(); // block → measured height
    this.tops = [0]; // top of each block, prefix sums (length blocks + 1)
    this.data = new Map(); // block → items
    this.loading = new Map(); // block → Promise
    this.rendered = new Map(); // block → element
    this.flashIndex = -1;
    this.cursor = -1; // the focused item index (keyboard)
    clear(this.spacer).style.height = '0px';
  }

  // open shows document id (rendered from its start, or at index at).
  async open(id, at = 0) {
    this.reset();
    this.docId = id;
    await this.loadLayout();
    await this.jumpTo(at === 'end' ? this.total - 1 : at, { align: at === 'end' ? 'end' : 'start' });
  }

  async loadLayout() {
    const lay = await api.get('/document/layout', { documentId: this.docId });
    this.revision = lay.revision;
    this.total = lay.total;
    this.sizes = lay.sizes;
    this.types = lay.types;
    this.estimate();
  }

  // estimate computes the estimated height of every block from the pane's
  // width, the item lengths and types.
  estimate() {
    const width = Math.max(320, Math.min(this.el.clientWidth || 800, 760) - 48);
    const cpl = Math.max(30, width / 8.6); // characters per line at the body font
    const lh = 28;
    const blocks = Math.ceil(this.total / BLOCK);
    this.est = new Array(blocks).fill(0);
    for (let i = 0; i < this.total; i++) {
      const n = this.sizes[i];
      let px;
      switch (this.types[i]) {
        case 'h': px = 2.6 * lh; break;
        case 't': px = 2 * lh; break;
        case 'c': px = (n / 40 + 2) * 0.9 * lh; break;
        default: px = Math.ceil(n / cpl) * lh + 0.7 * lh;
      }
      this.est[(i / BLOCK) | 0] += px;
    }
    this.computeTops();
  }

  computeTops() {
    const n = this.est.length;
    this.tops = new Array(n + 1);
    this.tops[0] = 0;
    for (let b = 0; b < n; b++) this.tops[b + 1] = this.tops[b] + (this.measured.get(b) ?? this.est[b]);
    this.spacer.style.height = this.tops[n] + 'px';
  }

  // blockAt returns the block at pixel y.
  blockAt(y) {
    let lo = 0;
    let hi = this.est.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.tops[mid] <= y) lo = mid;
      else hi = mid - 1;
    }
    return Math.max(0, lo);
  }

  schedule() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.update();
    });
  }

  resized() {
    if (!this.docId) return;
    const w = this.el.clientWidth;
    if (w === this.width) return;
    this.width = w;
    this.measured.clear(); // widths changed: heights too
    for (const [b, el] of this.rendered) this.measured.set(b, el.offsetHeight);
    this.estimate();
    this.place();
  }

  // update renders the blocks around the viewport and drops far ones.
  update() {
    if (!this.docId || this.total === 0) return;
    const view = this.el.clientHeight || 600;
    const top = this.el.scrollTop;
    const first = this.blockAt(top - OVERSCAN * view);
    const last = this.blockAt(top + view + OVERSCAN * view);
    for (let b = first; b <= last; b++) this.show(b);
    // Fetch ahead in the direction of scrolling, so a fling finds the text
    // already there.
    const down = top >= (this.lastTop ?? 0);
    this.lastTop = top;
    const ahead = down ? this.blockAt(top + view + PREFETCH * view) : this.blockAt(top - PREFETCH * view);
    for (let b = down ? last + 1 : first - 1; down ? b <= ahead : b >= ahead; b += down ? 1 : -1) {
      if (!this.data.has(b)) this.load(b).catch(() => {});
    }
    for (const [b, el] of this.rendered) {
      if (this.tops[b + 1] < top - KEEP * view || this.tops[b] > top + view + KEEP * view) {
        el.remove();
        this.rendered.delete(b);
      }
    }
    this.onPosition(this.firstVisibleIndex());
  }

  // show renders block b, loading it first.
  show(b) {
    if (this.rendered.has(b)) return Promise.resolve();
    const items = this.data.get(b);
    if (!items) return this.load(b).then(() => this.show(b), (err) => this.onError(err));
    const anchor = this.anchor();
    const el = h('section', { class: 'blk', 'data-block': b }, items.map((it) => this.item(it)));
    el.style.top = this.tops[b] + 'px';
    this.spacer.append(el);
    this.rendered.set(b, el);
    this.measured.set(b, el.offsetHeight);
    this.computeTops();
    this.place(anchor);
    return Promise.resolve();
  }

  load(b) {
    if (!this.loading.has(b)) {
      const rev = this.revision;
      const p = api.get('/document/items', { documentId: this.docId, from: b * BLOCK, limit: BLOCK, format: 'html' })
        .then((page) => {
          if (rev === this.revision) this.data.set(b, page.items);
        })
        .finally(() => this.loading.delete(b));
      this.loading.set(b, p);
    }
    return this.loading.get(b);
  }

  item(it) {
    const ptr = it.pointer;
    const body = h('div', { class: 'item-body', html: it.html });
    const el = h('div', {
      class: 'item kind-' + it.kind + (it.index === this.flashIndex ? ' flash' : ''),
      'data-index': it.index, 'data-pointer': ptr, tabindex: '-1',
    }, h('div', { class: 'item-tools' },
      h('button', { class: 'ptr-copy', title: t('reader.copy'), 'aria-label': t('reader.copyPointer', { pointer: ptr }), onclick: () => this.copy(ptr, el) },
        h('span', { class: 'ptr', text: ptr }), h('span', { class: 'copy-icon', 'aria-hidden': 'true', text: '⧉' }))), body);
    if (it.depth > 1) el.style.setProperty('--depth', it.depth - 1);
    return el;
  }

  async copy(ptr, el) {
    try {
      await navigator.clipboard.writeText(ptr);
    } catch {
      const ta = h('textarea', { value: ptr });
      document.body.append(ta);
      ta.select();
      document.execCommand('copy');
      ta.remove();
    }
    el.classList.add('copied');
    setTimeout(() => el.classList.remove('copied'), 1200);
  }

  // anchor is the first visible block and how far the viewport top is
  // into it.
  anchor() {
    const top = this.el.scrollTop;
    const b = this.blockAt(top);
    return { block: b, offset: top - this.tops[b] };
  }

  // place positions the rendered blocks at their tops and restores the
  // anchor, so a block measured above the viewport does not move the text
  // being read.
  place(anchor) {
    for (const [b, el] of this.rendered) el.style.top = this.tops[b] + 'px';
    if (anchor) {
      const want = this.tops[anchor.block] + anchor.offset;
      if (Math.abs(this.el.scrollTop - want) > 0.5) this.el.scrollTop = want;
    }
  }

  firstVisibleIndex() {
    const top = this.el.scrollTop;
    for (const b of [...this.rendered.keys()].sort((x, y) => x - y)) {
      const el = this.rendered.get(b);
      if (this.tops[b + 1] <= top) continue;
      for (const it of el.children) {
        if (this.tops[b] + it.offsetTop + it.offsetHeight > top) return Number(it.dataset.index);
      }
    }
    return Math.min(this.total - 1, this.blockAt(top) * BLOCK);
  }

  itemEl(index) {
    const el = this.rendered.get((index / BLOCK) | 0);
    return el ? el.querySelector(`[data-index="${index}"]`) : null;
  }

  // jumpTo scrolls to item index (align start or end) and optionally
  // flashes it.
  async jumpTo(index, { align = 'start', flash = false, focus = false } = {}) {
    if (!this.docId || this.total === 0) return;
    index = Math.max(0, Math.min(this.total - 1, index));
    const b = (index / BLOCK) | 0;
    if (flash) this.flashIndex = index;
    await this.load(b);
    await this.show(b);
    const el = this.itemEl(index);
    if (!el) return;
    const y = this.tops[b] + el.offsetTop;
    this.el.scrollTop = align === 'end' ? y + el.offsetHeight - this.el.clientHeight + 24 : Math.max(0, y - 24);
    this.update();
    const again = this.itemEl(index); // neighbours may have moved it
    if (again) {
      const y2 = this.tops[b] + again.offsetTop;
      this.el.scrollTop = align === 'end' ? y2 + again.offsetHeight - this.el.clientHeight + 24 : Math.max(0, y2 - 24);
      if (flash) {
        this.flash(again);
        this.flashIndex = -1; // a later re-render does not flash it again
      }
      if (focus) this.focusItem(index);
    }
  }

  flash(el) {
    el.classList.remove('flash');
    void el.offsetWidth; // restart the animation
    el.classList.add('flash');
    el.addEventListener('animationend', () => el.classList.remove('flash'), { once: true });
  }

  // jumpToPointer resolves a pointer and scrolls to its item.
  async jumpToPointer(ptr, opts = { flash: true }) {
    const loc = await api.get('/document/locate', { documentId: this.docId, pointer: ptr });
    await this.jumpTo(loc.index, opts);
    return loc;
  }

  // refresh reloads the book after it changed (an edit, a revert), keeping
  // the reading position, and flashes the items at the given pointers.
  async refresh(flashPointers = []) {
    if (!this.docId) return;
    const keep = this.firstVisibleIndex();
    const id = this.docId;
    this.reset();
    this.docId = id;
    await this.loadLayout();
    let target = keep;
    let flash = false;
    for (const p of flashPointers) {
      try {
        const loc = await api.get('/document/locate', { documentId: id, pointer: p });
        target = loc.index;
        flash = true;
        break;
      } catch {
        // a deleted item: nothing to flash
      }
    }
    await this.jumpTo(target, { flash });
  }

  // move focuses the item delta items away from the current one.
  async move(delta) {
    const from = this.cursor >= 0 ? this.cursor : this.firstVisibleIndex();
    const to = Math.max(0, Math.min(this.total - 1, from + delta));
    const el = this.itemEl(to);
    if (!el || el.getBoundingClientRect().bottom > this.el.getBoundingClientRect().bottom ||
        el.getBoundingClientRect().top < this.el.getBoundingClientRect().top) {
      await this.jumpTo(to);
    }
    this.focusItem(to);
  }

  focusItem(index) {
    this.cursor = index;
    const el = this.itemEl(index);
    if (el) el.focus({ preventScroll: true });
  }

  // headingIndex returns the index of the next (dir 1) or previous (-1)
  // heading from the current position.
  headingIndex(dir) {
    const from = this.cursor >= 0 ? this.cursor : this.firstVisibleIndex();
    for (let i = from + dir; i >= 0 && i < this.total; i += dir) if (this.types[i] === 'h') return i;
    return -1;
  }
}
