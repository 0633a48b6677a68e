// Small DOM helpers: h() builds elements, the rest formats values.

// h(tag, attrs, ...children) creates an element. attrs: class, text, html
// (trusted server HTML only), on<event> handlers, dataset entries as data-*,
// aria-* and any other attribute; false/null attributes are left out.
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === false || v === null || v === undefined) continue;
    if (k === 'class') el.className = v;
    else if (k === 'text') el.textContent = v;
    else if (k === 'html') el.innerHTML = v;
    else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'value') el.value = v;
    else if (k === 'checked' || k === 'disabled' || k === 'hidden' || k === 'open') el[k] = !!v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

// clear removes every child of el and returns it.
export function clear(el) {
  el.replaceChildren();
  return el;
}

export const $ = (sel, root = document) => root.querySelector(sel);
export const $$ = (sel, root = document) => [...root.querySelectorAll(sel)];

// bytes formats a size: 5.6 MB, 12 KB, 512 B.
export function bytes(n) {
  if (n >= 1 << 20) return (n / (1 << 20)).toFixed(1) + ' MB';
  if (n >= 1 << 10) return Math.round(n / (1 << 10)) + ' KB';
  return n + ' B';
}

// POINTER matches a semantic pointer id:label in prose (24:1.1.p21, 7:p3,
// 3:1.2). A bare heading label (9:1) is left out there, so that a time such
// as 19:30 is not taken for a pointer; numbers have no leading zeros.
const N = '(?:0|[1-9]\\d*)';
export const POINTER = new RegExp(`\\b[1-9]\\d*:(?:${N}(?:\\.${N})*\\.p[1-9]\\d*|${N}(?:\\.${N})+|p[1-9]\\d*)(?![\\w:])`, 'g');

// WHOLE_POINTER matches a string that is exactly one pointer (any label).
const WHOLE_POINTER = new RegExp(`^[1-9]\\d*:(?:${N}(?:\\.${N})*(?:\\.p[1-9]\\d*)?|p[1-9]\\d*)$`);

// pointersInValue returns the distinct strings of a JSON value (arguments,
// a result) that are exactly pointers, in order.
export function pointersInValue(v, out = []) {
  if (typeof v === 'string') {
    if (WHOLE_POINTER.test(v) && !out.includes(v)) out.push(v);
  } else if (Array.isArray(v)) v.forEach((x) => pointersInValue(x, out));
  else if (v && typeof v === 'object') Object.values(v).forEach((x) => pointersInValue(x, out));
  return out;
}

// matches returns the pointer matches of a text (a fresh regexp each time:
// a global one keeps its lastIndex between calls).
const matches = (text) => [...String(text || '').matchAll(new RegExp(POINTER.source, 'g'))];

// pointersIn returns the distinct pointers of a text, in order.
export function pointersIn(text) {
  const out = [];
  for (const m of matches(text)) if (!out.includes(m[0])) out.push(m[0]);
  return out;
}

// linkify turns the pointers in the text nodes under root (outside links
// and pre blocks) into links built by make(pointer).
export function linkify(root, make) {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode: (n) => (n.parentElement.closest('a, pre, .ptr') ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
  });
  const nodes = [];
  while (walker.nextNode()) nodes.push(walker.currentNode);
  for (const node of nodes) {
    const text = node.data;
    const found = matches(text);
    if (!found.length) continue;
    const frag = document.createDocumentFragment();
    let at = 0;
    for (const m of found) {
      frag.append(text.slice(at, m.index), make(m[0]));
      at = m.index + m[0].length;
    }
    frag.append(text.slice(at));
    node.replaceWith(frag);
  }
}

// debounce delays f until ms passed without a call.
export function debounce(f, ms) {
  let id = 0;
  return (...args) => {
    clearTimeout(id);
    id = setTimeout(() => f(...args), ms);
  };
}
