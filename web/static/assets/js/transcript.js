// The transcript of a chat: the events of /query, /run/stream and the
// history of /chat, turned into messages and cards. Live and replayed
// events go through the same code, so a reloaded chat looks exactly as it
// did; only live events act (scroll the reading pane, flash edits, run
// actions) and only a pending request of a running run can be answered.

import { h, clear, linkify, pointersIn, pointersInValue } from './dom.js';
import * as api from './api.js';
import { t, opLabel, toolLabel, errorText } from './i18n.js';
import { approvalCard, scopeCard, confirmCard, viewportCard, advisorCard } from './cards.js';

export class Transcript {
  // ctx: jump(pointer), onEdit(event), highlight(pointer, color), submit(runId, toolId, params)
  constructor(ctx) {
    this.ctx = ctx;
    this.el = h('div', { class: 'transcript', role: 'log', 'aria-live': 'polite' });
    this.plan = h('div', { class: 'plan', hidden: true });
    this.stick = true;
    // Whatever grows the transcript (a delta, a diff that arrived, a
    // rendered answer) keeps it scrolled to the end if it was there.
    new ResizeObserver(() => this.scroll(false)).observe(this.el);
    this.reset();
  }

  // watch follows the scrolling of the transcript's scroller.
  watch(scroller) {
    scroller.addEventListener('scroll', () => { this.stick = this.atBottom(); }, { passive: true });
  }

  reset() {
    clear(this.el);
    if (this.ctx.empty) this.el.append(this.ctx.empty());
    this.plan.hidden = true;
    clear(this.plan);
    this.blocks = new Map(); // reasoningId / contentId → {el, text}
    this.calls = new Map(); // toolId / actionId → call state
    this.approvals = new Map(); // approvalId → card
    this.scopes = new Map(); // approvalId → card
    this.toRender = []; // content blocks waiting for /render
    this.runId = null;
    this.running = false;
    this.imageToken = '';
  }

  atBottom() {
    const s = this.el.parentElement;
    return !s || s.scrollHeight - s.scrollTop - s.clientHeight < 80;
  }

  scroll(force) {
    const s = this.el.parentElement;
    if (!s || !(force || this.stick)) return;
    s.scrollTop = s.scrollHeight;
    this.stick = true;
  }

  // apply takes one event; live is false for history.
  apply(ev, live) {
    const f = this['on_' + ev.type.replace('.', '_')];
    if (f) f.call(this, ev, live);
    this.scroll(false);
  }

  ptrLink(ptr) {
    return h('button', { class: 'ptr link', text: ptr, title: t('chat.showPointer'), onclick: () => this.ctx.jump(ptr) });
  }

  // turn returns the current assistant turn element (created on demand).
  turn() {
    if (!this.current) {
      this.current = h('div', { class: 'msg assistant' });
      this.el.append(this.current);
    }
    return this.current;
  }

  on_request_query(ev) {
    this.el.querySelector('.chat-empty')?.remove();
    this.current = null;
    this.el.append(h('div', { class: 'msg user' }, h('div', { class: 'bubble', text: ev.message })));
  }

  on_chat_start(ev) {
    if (ev.chatImageToken) this.imageToken = ev.chatImageToken;
  }

  on_run_start(ev, live) {
    this.runId = ev.runId;
    this.running = live;
    this.current = null;
  }

  // Text blocks.
  block(id, kind, taskId) {
    let b = this.blocks.get(id);
    if (!b) {
      const text = document.createTextNode('');
      let el;
      if (kind === 'reasoning') {
        el = h('details', { class: 'reasoning' }, h('summary', { text: t('chat.reasoning') }), h('div', { class: 'text' }, text));
      } else {
        el = h('div', { class: 'content streaming' }, text);
      }
      if (taskId) el.dataset.task = taskId;
      this.turn().append(el);
      b = { el, text, kind };
      this.blocks.set(id, b);
    }
    return b;
  }

  on_reasoning_start(ev) { this.block(ev.reasoningId, 'reasoning', ev.taskId).el.classList.add('live'); }
  on_reasoning_delta(ev) { this.block(ev.reasoningId, 'reasoning').text.appendData(ev.delta); }
  on_reasoning_end(ev) { this.block(ev.reasoningId, 'reasoning').el.classList.remove('live'); }
  on_reasoning_snapshot(ev) { this.block(ev.reasoningId, 'reasoning', ev.taskId).text.appendData(ev.text); }

  on_content_start(ev) { this.block(ev.contentId, 'content', ev.taskId); }
  on_content_delta(ev) { this.block(ev.contentId, 'content').text.appendData(ev.delta); }
  on_content_end(ev) {
    const b = this.block(ev.contentId, 'content');
    this.toRender.push(b);
    this.flushRender();
  }
  on_content_snapshot(ev) {
    const b = this.block(ev.contentId, 'content', ev.taskId);
    b.text.appendData(ev.text);
    this.toRender.push(b);
  }

  // flushRender renders the finished content blocks as Markdown (one
  // /render call for all of them) and links their pointers.
  async flushRender() {
    const batch = this.toRender.splice(0);
    if (!batch.length) return;
    let out;
    try {
      out = await api.post('/render', { markdown: batch.map((b) => b.text.data) });
    } catch {
      batch.forEach((b) => b.el.classList.remove('streaming'));
      return;
    }
    batch.forEach((b, i) => {
      b.el.classList.remove('streaming');
      b.el.innerHTML = out.html[i];
      linkify(b.el, (p) => this.ptrLink(p));
      this.fixImages(b.el);
    });
  }

  // fixImages points images of the data directory at /api/ap/data with the
  // chat image token (auth on: an <img> cannot send the Bearer token).
  fixImages(el) {
    for (const img of el.querySelectorAll('img[src]')) {
      const src = img.getAttribute('src');
      if (/^[a-z]+:/i.test(src) || src.startsWith('//')) continue;
      let u;
      if (src.startsWith('/api/ap/data?')) u = new URL(src, location.origin);
      else {
        u = new URL('/api/ap/data', location.origin);
        u.searchParams.set('file', src.replace(/^\/+/, ''));
      }
      if (this.imageToken) u.searchParams.set('t', this.imageToken);
      img.src = u.pathname + u.search;
      img.loading = 'lazy';
    }
  }

  // Calls.
  call(id, start) {
    let c = this.calls.get(id);
    if (!c && start) {
      c = { id, name: start.name, args: '', type: start.type, toolKey: start.toolKey, action: start.action, live: false };
      c.status = h('span', { class: 'status running', text: t('chat.running') });
      c.summary = h('span', { class: 'summary' });
      c.ptrs = h('span', { class: 'ptrs' });
      c.extra = h('div', { class: 'extra' });
      c.details = h('details', { class: 'call-details' }, h('summary', { text: t('chat.details') }));
      c.el = h('div', { class: 'card call' + (start.action ? ' action' : ''), 'data-tool': start.name, 'data-id': id },
        h('div', { class: 'card-head' }, h('span', { class: 'call-name', text: toolLabel(start.name) }), c.summary, c.status),
        c.ptrs, c.extra, c.details);
      this.turn().append(c.el);
      this.calls.set(id, c);
    }
    return c;
  }

  callStart(id, name, type, ev, action, live) {
    const c = this.call(id, { name, type, toolKey: ev.toolKey, action });
    // The server offers every edit approval also as a call of the standard
    // confirm tool, under the approval's id, for clients that only know the
    // contract's tools; this app answers the approval card itself.
    if (this.approvals.has(id)) this.mirror(c);
    c.live = live;
    c.description = ev.description;
    c.toolTimeout = ev.toolTimeout;
    if (ev.toolParams) c.params = ev.toolParams;
    if (ev.description) c.details.append(h('p', { class: 'why', text: ev.description }));
    return c;
  }

  on_tool_start(ev, live) { this.callStart(ev.toolId, ev.toolName, ev.toolType, ev, false, live); }
  on_action_start(ev, live) { this.callStart(ev.actionId, ev.actionName, 'action', ev, true, live); }
  on_tool_args(ev) { const c = this.calls.get(ev.toolId); if (c) c.args += ev.delta; }
  on_action_args(ev) { const c = this.calls.get(ev.actionId); if (c) c.args += ev.delta; }
  on_tool_end(ev, live) { this.callEnd(this.calls.get(ev.toolId), live); }
  on_action_end(ev, live) {
    const c = this.calls.get(ev.actionId);
    this.callEnd(c, live);
    if (live && c && c.name === 'highlight_pointer' && c.parsed?.pointer) this.ctx.highlight(c.parsed.pointer, c.parsed.color);
  }
  on_tool_snapshot(ev) {
    const c = this.callStart(ev.toolId, ev.toolName, ev.toolType, ev, false, false);
    c.args = ev.arguments || '';
    this.callEnd(c, false);
  }
  on_action_snapshot(ev) {
    const c = this.callStart(ev.actionId, ev.actionName, 'action', ev, true, false);
    c.args = ev.arguments || '';
    this.callEnd(c, false);
  }

  // callEnd shows the complete arguments; a frontend tool gets its form.
  callEnd(c, live) {
    if (!c || c.ended) return;
    c.ended = true;
    try {
      c.parsed = JSON.parse(c.args || '{}');
    } catch {
      c.parsed = c.params || {};
    }
    c.summary.textContent = summarize(c.parsed);
    this.addPointers(c, pointersInValue(c.parsed));
    c.details.append(h('pre', { class: 'args', text: JSON.stringify(c.parsed, null, 2) }));
    if (c.type === 'html' || c.type === 'qlc') this.frontend(c, live);
  }

  addPointers(c, ptrs) {
    for (const p of ptrs) {
      if (c.ptrs.childElementCount >= 8 || [...c.ptrs.children].some((x) => x.textContent === p)) continue;
      c.ptrs.append(this.ptrLink(p));
    }
  }

  // mirror hides a confirm-tool call that repeats an approval card.
  mirror(c) {
    c.mirror = true;
    c.el.hidden = true;
  }

  frontend(c, live) {
    if (c.mirror) return;
    const answer = (params) => this.ctx.submit(this.runId, c.id, params);
    const card = c.toolKey === 'confirm' ? confirmCard(c, answer) : viewportCard(c, answer);
    c.form = card;
    card.setActive(live && this.running);
    c.extra.append(card.el);
  }

  on_tool_progress(ev) {
    const c = this.calls.get(ev.toolId);
    if (!c) return;
    if (!c.progress) {
      c.bar = h('progress', { max: 1, value: 0 });
      c.progressText = h('span', { class: 'progress-text' });
      c.progress = h('div', { class: 'progress' }, c.bar, c.progressText);
      c.extra.prepend(c.progress);
    }
    const d = ev.data || {};
    if (d.batch && d.estimatedBatches) {
      c.bar.max = Math.max(d.estimatedBatches, d.batch);
      c.bar.value = d.batch;
      c.progressText.textContent = t('chat.batch', { k: d.batch, n: d.estimatedBatches }) +
        (d.evidence ? ' · ' + t('chat.matches', { n: d.evidence }) : '');
    } else {
      c.bar.removeAttribute('value');
      c.progressText.textContent = ev.message;
    }
    c.progress.title = ev.message;
  }

  on_tool_result(ev) { this.callResult(this.calls.get(ev.toolId), ev.result); }
  on_action_result(ev) {
    this.callResult(this.calls.get(ev.actionId), typeof ev.result === 'string' ? ev.result : JSON.stringify(ev.result));
  }

  callResult(c, text) {
    if (!c) return;
    let failed = false;
    let code = '';
    try {
      const v = JSON.parse(text);
      if (v && v.ok === false) {
        failed = true;
        code = v.code || '';
      }
    } catch {
      // plain text
    }
    c.status.className = 'status ' + (failed ? 'failed' : 'done');
    c.status.textContent = failed ? (code === 'call_denied' ? t('chat.notApplied') : t('chat.failed')) : t('chat.done');
    c.el.classList.add(failed ? 'is-failed' : 'is-done');
    if (c.progress && !failed) {
      c.bar.value = c.bar.max;
    }
    let value;
    try {
      value = JSON.parse(text);
    } catch {
      value = null;
    }
    this.addPointers(c, value !== null && typeof value === 'object' ? pointersInValue(value) : pointersIn(text));
    c.details.append(h('pre', { class: 'result', text: pretty(text) }));
    c.form?.setActive(false);
  }

  on_request_submit(ev) {
    const c = this.calls.get(ev.toolId);
    if (c?.form) c.form.answered(ev.payload);
    const a = this.approvals.get(ev.toolId) || this.scopes.get(ev.toolId);
    a?.answered(ev.payload);
  }

  on_document_edit(ev, live) {
    const c = this.calls.get(ev.toolId);
    const ptr = ev.newPointer || ev.pointer;
    const note = h('div', { class: 'edit-note' }, h('span', { text: '✎ ' + opLabel(ev.op) }), ptr ? this.ptrLink(ptr) : null,
      h('span', { class: 'muted', text: t('chat.revision', { n: ev.revision }) }));
    (c ? c.extra : this.turn()).append(note);
    if (live) this.ctx.onEdit(ev);
  }

  // Approvals (edits) and scopes.
  on_approval_request(ev, live) {
    const card = approvalCard(ev, {
      link: (p) => this.ptrLink(p),
      answer: (params) => this.ctx.submit(this.runId, ev.approvalId, params),
    });
    card.setActive(live && this.running);
    this.approvals.set(ev.approvalId, card);
    const twin = this.calls.get(ev.approvalId);
    if (twin) {
      this.mirror(twin);
      twin.form?.el.remove();
    }
    const host = this.calls.get(ev.calls?.[0]?.toolId);
    (host ? host.extra : this.turn()).append(card.el);
  }

  on_approval_decision(ev) { this.approvals.get(ev.approvalId)?.decided(ev); }

  on_scope_request(ev, live) {
    const card = scopeCard(ev, (params) => this.ctx.submit(this.runId, ev.approvalId, params));
    card.setActive(live && this.running);
    this.scopes.set(ev.approvalId, card);
    const host = this.calls.get(ev.toolId);
    (host ? host.extra : this.turn()).append(card.el);
  }

  on_scope_decision(ev) { this.scopes.get(ev.approvalId)?.decided(ev); }

  on_advisor_snapshot(ev) {
    const host = ev.parentToolId ? this.calls.get(ev.parentToolId.split('/')[0]) : null;
    (host ? host.extra : this.turn()).append(advisorCard(ev));
  }

  // Plans and tasks.
  on_plan_update(ev) {
    this.plan.hidden = false;
    clear(this.plan).append(h('div', { class: 'plan-title', text: t('chat.plan') }),
      h('ol', {}, ev.plan.map((task) => h('li', { class: 'task ' + task.status, 'data-task': task.taskId },
        h('span', { class: 'task-status', title: t('task.' + task.status), 'aria-label': t('task.' + task.status) }),
        h('span', { text: task.description })))));
  }

  task(id, status) {
    const li = this.plan.querySelector(`[data-task="${CSS.escape(id)}"]`);
    if (li) li.className = 'task ' + status;
  }

  on_task_start(ev) { this.task(ev.taskId, 'running'); }
  on_task_complete(ev) { this.task(ev.taskId, 'completed'); }
  on_task_cancel(ev) { this.task(ev.taskId, 'canceled'); }
  on_task_fail(ev) { this.task(ev.taskId, 'failed'); }

  // The end of a run.
  finish() {
    this.running = false;
    for (const c of this.calls.values()) c.form?.setActive(false);
    for (const a of [...this.approvals.values(), ...this.scopes.values()]) a.setActive(false);
    for (const c of this.calls.values()) {
      if (!c.status.classList.contains('running')) continue;
      c.status.className = 'status skipped';
      c.status.textContent = t('chat.skipped');
    }
  }

  on_run_complete(ev) {
    this.finish();
    if (ev.finishReason && ev.finishReason !== 'stop') {
      this.turn().append(h('p', { class: 'note', text: t('finish.' + ev.finishReason, {}, ev.finishReason) }));
    }
  }

  on_run_error(ev) {
    this.finish();
    const code = ev.error?.code || 'internal_error';
    this.turn().append(h('div', { class: 'card error' + (code === 'run_aborted' ? ' stopped' : ''), role: 'alert' },
      h('strong', { text: errorText(code) }), code === 'run_aborted' ? null : h('p', { class: 'muted', text: ev.error?.message || '' })));
  }
}

// summarize shows the telling arguments of a call in one line.
function summarize(args) {
  const keys = ['keywords', 'query', 'q', 'question', 'task', 'taskDescription', 'filterDescription', 'label', 'cursorName', 'markdown', 'newMarkdown', 'message'];
  const parts = [];
  for (const k of keys) {
    const v = args?.[k];
    if (v === undefined || v === null || v === '') continue;
    let s = Array.isArray(v) ? v.join(', ') : typeof v === 'object' ? JSON.stringify(v) : String(v);
    if (s.length > 70) s = s.slice(0, 69) + '…';
    parts.push(s);
    if (parts.length === 2) break;
  }
  return parts.join(' · ');
}

function pretty(text) {
  try {
    const s = JSON.stringify(JSON.parse(text), null, 2);
    return s.length > 4000 ? s.slice(0, 4000) + '\n…' : s;
  } catch {
    return text.length > 4000 ? text.slice(0, 4000) + '…' : text;
  }
}
