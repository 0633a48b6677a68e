// The client of the /api/ap contract: JSON envelopes, the Bearer token when
// auth is on, and Server-Sent Events read from fetch (POST /query and GET
// /run/stream need headers and a body, which EventSource cannot send).

const BASE = '/api/ap';
const TOKEN_KEY = 'aite.token';

let token = sessionStorage.getItem(TOKEN_KEY) || localStorage.getItem(TOKEN_KEY) || '';
let unauthorized = () => {};

// ApiError is a failed request: status is the envelope's code (the HTTP
// status), data its data.
export class ApiError extends Error {
  constructor(status, msg, data) {
    super(msg || 'HTTP ' + status);
    this.status = status;
    this.data = data || {};
  }
}

export const hasToken = () => token !== '';

// setToken keeps the API token for this tab, or on this device (remember).
export function setToken(t, remember) {
  token = (t || '').trim();
  sessionStorage.removeItem(TOKEN_KEY);
  localStorage.removeItem(TOKEN_KEY);
  if (token) (remember ? localStorage : sessionStorage).setItem(TOKEN_KEY, token);
}

// onUnauthorized sets what happens when the API answers 401.
export function onUnauthorized(f) {
  unauthorized = f;
}

function headers(extra = {}) {
  const h = { ...extra };
  if (token) h.Authorization = 'Bearer ' + token;
  return h;
}

function url(path, query) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query || {})) if (v !== undefined && v !== null && v !== '') q.set(k, v);
  const s = q.toString();
  return BASE + path + (s ? '?' + s : '');
}

async function envelope(res) {
  let env;
  try {
    env = await res.json();
  } catch {
    throw new ApiError(res.status, 'HTTP ' + res.status);
  }
  if (res.status === 401) {
    unauthorized();
    throw new ApiError(401, env.msg, env.data);
  }
  if (env.code !== 0) throw new ApiError(env.code || res.status, env.msg, env.data);
  return env.data;
}

// get reads GET path?query and returns the envelope's data.
export async function get(path, query) {
  return envelope(await fetch(url(path, query), { headers: headers() }));
}

// post sends a JSON body and returns the envelope's data.
export async function post(path, body) {
  return envelope(await fetch(url(path), {
    method: 'POST', headers: headers({ 'Content-Type': 'application/json' }), body: JSON.stringify(body),
  }));
}

// del sends DELETE path?query and returns the envelope's data.
export async function del(path, query) {
  return envelope(await fetch(url(path, query), { method: 'DELETE', headers: headers() }));
}

// upload posts a file as multipart form data to /documents.
export async function upload(file) {
  const form = new FormData();
  form.append('file', file, file.name);
  return envelope(await fetch(url('/documents'), { method: 'POST', headers: headers(), body: form }));
}

// fetchBlob GETs a raw (non-envelope) response, e.g. /document/download.
export async function fetchBlob(path, query) {
  const res = await fetch(url(path, query), { headers: headers() });
  if (!res.ok) await envelope(res);
  return res.blob();
}

// stream opens an SSE stream (POST /query with body, or GET /run/stream)
// and calls onEvent(event) for every event until the stream ends. It
// resolves when the stream ends, rejects with an ApiError when the server
// refused the request before streaming.
export async function stream(path, { body, query, lastEventId, signal }, onEvent) {
  const h = headers({ Accept: 'text/event-stream' });
  if (body) h['Content-Type'] = 'application/json';
  if (lastEventId) h['Last-Event-ID'] = String(lastEventId);
  const res = await fetch(url(path, query), {
    method: body ? 'POST' : 'GET', headers: h, body: body ? JSON.stringify(body) : undefined, signal,
  });
  if (!(res.headers.get('Content-Type') || '').startsWith('text/event-stream')) {
    await envelope(res);
    throw new ApiError(res.status, 'not a stream');
  }
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += value;
    let end;
    while ((end = buf.indexOf('\n\n')) >= 0) {
      const frame = buf.slice(0, end);
      buf = buf.slice(end + 2);
      let kind = 'message';
      let data = '';
      for (const line of frame.split('\n')) {
        if (line.startsWith('event:')) kind = line.slice(6).trim();
        else if (line.startsWith('data:')) data += line.slice(5);
      }
      if (kind === 'message' && data && data !== '[DONE]') onEvent(JSON.parse(data));
    }
  }
}
