// The chat panel: pick an agent, talk to it about the open document, watch
// the answer stream, answer its requests, stop it; the chats of every
// document are kept and come back exactly as they were.

import { h, clear } from './dom.js';
import * as api from './api.js';
import { t, when } from './i18n.js';
import { Transcript } from './transcript.js';

const CHAT_KEY = 'aite.chat.';
const CONFIRM_KEY = 'aite.confirmEdits';

export class ChatPanel {
  // ctx: jump(pointer), onEdit(event), highlight(pointer, color), onError(err)
  constructor(ctx) {
    this.ctx = ctx;
    this.transcript = new Transcript({
      jump: ctx.jump, onEdit: ctx.onEdit, highlight: ctx.highlight,
      submit: (runId, toolId, params) => api.post('/submit', { runId, toolId, params }),
      empty: () => h('div', { class: 'chat-empty' }, h('p', { text: t('chat.empty') }),
        [t('chat.example1'), t('chat.example2')].map((q) => h('button', { class: 'example', text: q,
          onclick: () => { this.input.value = q; this.input.focus(); } }))),
    });
    this.agent = h('select', { class: 'agent', 'aria-label': t('chat.agent'), onchange: () => this.agentChanged() });
    this.history = h('select', { class: 'history', 'aria-label': t('chat.history'), onchange: () => this.pickChat(this.history.value) });
    this.newBtn = h('button', { class: 'btn small', text: t('chat.new'), title: t('chat.newTitle'), onclick: () => this.newChat() });
    this.input = h('textarea', { class: 'chat-input', rows: 3, placeholder: t('chat.placeholder'), 'aria-label': t('chat.message'),
      onkeydown: (e) => {
        if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
          e.preventDefault();
          this.send();
        }
      } });
    this.confirm = h('input', { type: 'checkbox', checked: localStorage.getItem(CONFIRM_KEY) !== '0',
      onchange: () => localStorage.setItem(CONFIRM_KEY, this.confirm.checked ? '1' : '0') });
    this.sendBtn = h('button', { class: 'btn primary send', text: t('chat.send'), onclick: () => this.send() });
    this.stopBtn = h('button', { class: 'btn danger stop', text: t('chat.stop'), hidden: true, onclick: () => this.stop() });
    this.notice = h('p', { class: 'chat-notice', role: 'status' });
    this.scroller = h('div', { class: 'chat-scroll' }, this.transcript.el);
    this.transcript.watch(this.scroller);
    this.el = h('aside', { class: 'chat', 'aria-label': t('chat.label') },
      h('div', { class: 'chat-head' }, this.agent, this.history, this.newBtn),
      this.transcript.plan, this.scroller,
      h('div', { class: 'composer' }, this.notice, this.input,
        h('div', { class: 'composer-row' }, h('label', { class: 'check', title: t('chat.confirmHint') }, this.confirm, t('chat.confirmEdits')),
          h('span', { class: 'spacer' }), this.stopBtn, this.sendBtn)));
    this.agents = [];
  }

  async loadAgents() {
    this.agents = await api.get('/agents');
    clear(this.agent);
    for (const a of this.agents) {
      this.agent.append(h('option', { value: a.key, text: a.name || a.key, title: a.description || '' }));
    }
    const def = this.agents.find((a) => a.key === 'bookEditor') || this.agents[0];
    if (def) this.agent.value = def.key;
  }

  agentChanged() {
    if (this.chatId) this.newChat();
  }

  // setDocument shows the last chat of document id (or a new one).
  async setDocument(id) {
    this.docId = id;
    if (!this.agents.length) await this.loadAgents();
    await this.loadHistory();
    const last = localStorage.getItem(CHAT_KEY + id);
    if (last && this.chats.some((c) => c.chatId === last)) await this.pickChat(last);
    else this.newChat();
  }

  async loadHistory() {
    this.chats = await api.get('/chats', { documentId: this.docId });
    clear(this.history).append(h('option', { value: '', text: t('chat.historyLabel', { n: this.chats.length }) }));
    for (const c of this.chats) this.history.append(h('option', { value: c.chatId, text: c.chatName + ' · ' + when(c.updatedAt) }));
    this.history.value = this.chatId || '';
  }

  newChat() {
    this.abortStream();
    this.chatId = null;
    this.transcript.reset();
    this.history.value = '';
    this.agent.disabled = false;
    this.notice.textContent = '';
    this.setRunning(null);
    if (this.docId) localStorage.removeItem(CHAT_KEY + this.docId);
  }

  async pickChat(id) {
    if (!id) return this.newChat();
    this.abortStream();
    this.chatId = id;
    localStorage.setItem(CHAT_KEY + this.docId, id);
    this.history.value = id;
    const sum = this.chats.find((c) => c.chatId === id);
    if (sum) {
      this.agent.value = sum.agentKey;
      this.agent.disabled = true;
    }
    const chat = await api.get('/chat', { chatId: id });
    this.transcript.reset();
    this.transcript.imageToken = chat.chatImageToken || '';
    let events = chat.events;
    const active = chat.activeRunId;
    let cut = events.length;
    if (active) {
      // The running run is replayed from its live log instead (exact).
      const start = events.findIndex((e) => e.type === 'run.start' && e.runId === active);
      if (start >= 0) {
        cut = start;
        while (cut > 0 && events[cut - 1].type !== 'request.query') cut--;
        cut = Math.max(0, cut - 1);
      }
    }
    for (const ev of events.slice(0, cut)) this.transcript.apply(ev, false);
    await this.transcript.flushRender();
    this.transcript.scroll(true);
    if (active) this.follow(api.stream('/run/stream', { query: { runId: active }, signal: this.signal() }, (ev) => this.onEvent(ev)));
  }

  signal() {
    this.abortStream();
    this.controller = new AbortController();
    return this.controller.signal;
  }

  abortStream() {
    this.controller?.abort();
    this.controller = null;
  }

  onEvent(ev) {
    switch (ev.type) {
      case 'chat.start':
        this.chatId = ev.chatId;
        localStorage.setItem(CHAT_KEY + this.docId, ev.chatId);
        this.agent.disabled = true;
        this.loadHistory().catch(this.ctx.onError); // the new chat is listed while its first run goes on
        break;
      case 'run.start':
        this.setRunning(ev.runId);
        break;
      case 'run.complete':
      case 'run.error':
        this.setRunning(null);
        break;
    }
    this.transcript.apply(ev, true);
  }

  setRunning(runId) {
    this.runId = runId;
    this.stopBtn.hidden = !runId;
    this.sendBtn.disabled = !!runId;
    this.el.classList.toggle('running', !!runId);
  }

  // follow waits for a stream to end, then refreshes the chat list.
  async follow(p) {
    try {
      await p;
    } catch (err) {
      if (err.name === 'AbortError') return;
      this.notice.textContent = err.message;
      this.setRunning(null);
      return;
    }
    this.loadHistory().catch(this.ctx.onError);
  }

  send() {
    const message = this.input.value.trim();
    if (!message || this.runId || !this.docId) return;
    this.input.value = '';
    this.notice.textContent = '';
    const body = { message, agentKey: this.agent.value, params: { documentId: this.docId, confirmEdits: this.confirm.checked } };
    if (this.chatId) body.chatId = this.chatId;
    this.transcript.scroll(true);
    this.follow(api.stream('/query', { body, signal: this.signal() }, (ev) => this.onEvent(ev)));
  }

  async stop() {
    if (!this.runId) return;
    this.stopBtn.disabled = true;
    try {
      await api.post('/run/cancel', { runId: this.runId });
    } catch (err) {
      this.notice.textContent = err.message;
    } finally {
      this.stopBtn.disabled = false;
    }
  }

  focus() {
    this.input.focus();
  }
}
