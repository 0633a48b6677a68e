// The outline: the headings of the book as a collapsible tree with the
// number of items of every section. Arrow keys move, Left/Right fold and
// unfold, Enter jumps to the heading.

import { h, clear } from './dom.js';
import { t } from './i18n.js';

export class Outline {
  constructor({ onJump }) {
    this.onJump = onJump;
    this.el = h('nav', { class: 'outline', 'aria-label': t('outline.label') });
    this.el.addEventListener('keydown', (e) => this.key(e));
    this.nodes = [];
    this.active = null;
  }

  // show builds the tree of the flat outline [{pointer, level, text, index, items}].
  show(outline, preamble) {
    clear(this.el);
    this.nodes = [];
    if (!outline.length) {
      this.el.append(h('p', { class: 'muted', text: t('outline.empty') }));
      return;
    }
    const root = h('ul', { role: 'tree', class: 'tree' });
    const stack = [{ level: 0, list: root }];
    outline.forEach((e, i) => {
      while (stack.length > 1 && stack[stack.length - 1].level >= e.level) stack.pop();
      const hasKids = i + 1 < outline.length && outline[i + 1].level > e.level;
      const li = h('li', { role: 'treeitem', 'aria-expanded': hasKids ? String(e.level < 2) : false, 'data-index': e.index });
      const row = h('div', { class: 'row' },
        hasKids ? h('button', { class: 'fold', tabindex: '-1', 'aria-label': t('outline.fold'), onclick: () => this.toggle(li) }) : h('span', { class: 'fold-none' }),
        h('button', { class: 'heading', tabindex: '-1', title: e.pointer, onclick: () => this.select(li, true) },
          h('span', { class: 'title', text: e.text || '—' }),
          h('span', { class: 'count', title: t('outline.items', { n: e.items }), text: String(e.items) })));
      li.append(row);
      const kids = hasKids ? h('ul', { role: 'group' }) : null;
      if (kids) li.append(kids);
      stack[stack.length - 1].list.append(li);
      if (kids) stack.push({ level: e.level, list: kids });
      this.nodes.push({ li, entry: e });
    });
    if (preamble) root.prepend(h('li', { class: 'preamble muted', text: t('outline.preamble', { n: preamble }) }));
    this.el.append(root);
    this.setFocus(this.nodes[0].li);
  }

  toggle(li, open) {
    const now = li.getAttribute('aria-expanded') === 'true';
    if (li.getAttribute('aria-expanded') === null) return;
    li.setAttribute('aria-expanded', String(open ?? !now));
  }

  select(li, jump) {
    this.setFocus(li);
    if (jump) this.onJump(Number(li.dataset.index));
  }

  setFocus(li) {
    for (const n of this.nodes) n.li.querySelector('.heading').tabIndex = -1;
    li.querySelector('.heading').tabIndex = 0;
    this.focused = li;
  }

  visible() {
    return this.nodes.map((n) => n.li).filter((li) => !li.parentElement.closest('li[aria-expanded="false"]'));
  }

  key(e) {
    const li = e.target.closest('li[role="treeitem"]');
    if (!li) return;
    const vis = this.visible();
    const i = vis.indexOf(li);
    let next = null;
    switch (e.key) {
      case 'ArrowDown': next = vis[i + 1]; break;
      case 'ArrowUp': next = vis[i - 1]; break;
      case 'ArrowRight': this.toggle(li, true); break;
      case 'ArrowLeft':
        if (li.getAttribute('aria-expanded') === 'true') this.toggle(li, false);
        else next = li.parentElement.closest('li[role="treeitem"]');
        break;
      case 'Enter': this.select(li, true); break;
      case 'Home': next = vis[0]; break;
      case 'End': next = vis[vis.length - 1]; break;
      default: return;
    }
    e.preventDefault();
    if (next) {
      this.setFocus(next);
      next.querySelector('.heading').focus();
    }
  }

  focus() {
    (this.focused || this.el).querySelector?.('.heading')?.focus();
  }

  // mark highlights the section holding item index.
  mark(index) {
    let best = null;
    for (const n of this.nodes) {
      if (n.entry.index <= index) best = n;
      else break;
    }
    if (best === this.active) return;
    this.active?.li.classList.remove('current');
    this.active = best;
    best?.li.classList.add('current');
  }
}
