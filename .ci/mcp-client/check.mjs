// An independent MCP client for aite: the official TypeScript SDK drives
// aite's MCP server the way Claude Desktop, Cursor or VS Code would, and
// fails loudly on anything unexpected.
//
//   node check.mjs stdio <aite command> <args…>   e.g. node check.mjs stdio ./aite mcp book.md
//   node check.mjs http <url of /mcp>
//
// Over stdio it checks a client without elicitation (find → propose →
// apply, paging, resources, bad arguments) and one with elicitation (the
// edit is approved in a form, then one is declined). Over HTTP it checks
// find → propose → apply on the document named "zvezdochkin". It prints
// one JSON line of what it saw.
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const [mode, ...rest] = process.argv.slice(2);
const seen = { mode, client: "@modelcontextprotocol/sdk", checks: [] };

function transport() {
  let t;
  if (mode === "stdio") t = new StdioClientTransport({ command: rest[0], args: rest.slice(1), env: process.env, stderr: "inherit" });
  else if (mode === "http") t = new StreamableHTTPClientTransport(new URL(rest[0]));
  else throw new Error(`unknown mode ${mode}: use stdio or http`);
  const set = t.setProtocolVersion?.bind(t);
  t.setProtocolVersion = (v) => {
    seen.protocolVersion = v; // what the server answered to initialize
    set?.(v);
  };
  return t;
}

async function connect(answer) {
  const client = new Client({ name: "aite-ci-check", version: "1.0.0" }, answer ? { capabilities: { elicitation: { form: {} } } } : {});
  if (answer) client.setRequestHandler(ElicitRequestSchema, answer);
  await client.connect(transport());
  return client;
}

// call calls a tool and returns its structured content; want says whether
// an error result is expected.
async function call(client, name, args, want = "ok") {
  const res = await client.callTool({ name, arguments: args });
  const text = res.content?.[0]?.text ?? "";
  assert.ok(Buffer.byteLength(text) <= 16 * 1024, `${name}: ${Buffer.byteLength(text)} bytes of text`);
  if (want === "ok") assert.ok(!res.isError, `${name}: ${text}`);
  else assert.ok(res.isError, `${name} should fail: ${text}`);
  if (res.structuredContent && !("page" in res.structuredContent)) {
    assert.deepEqual(JSON.parse(text), res.structuredContent, `${name}: the text is a copy of the structured content`);
  }
  seen.checks.push(`${name}${want === "ok" ? "" : " (error)"}`);
  return res.structuredContent ?? {};
}

function checkSchemas(tools) {
  for (const t of tools) {
    assert.ok(t.description, `${t.name} has a description`);
    const walk = (s, path) => {
      if (s && typeof s === "object") {
        if ("type" in s) assert.equal(typeof s.type, "string", `${t.name}${path}: one JSON type per property`);
        for (const [k, v] of Object.entries(s)) walk(v, `${path}.${k}`);
      }
    };
    walk(t.inputSchema, "");
  }
}

// findProposeApply finds a paragraph, proposes a change, checks nothing
// changed, applies it and reads it back.
async function findProposeApply(client, doc) {
  const found = await call(client, "search-find", { ...doc, query: "телеграмма" });
  const pointer = found.results[0].pointer;
  const before = (await call(client, "editor-read", { ...doc, pointer })).items[0].markdown;
  const markdown = before + " Проверено клиентом MCP.";
  const proposal = await call(client, "propose_replace_text", { ...doc, pointer, markdown });
  assert.equal(proposal.applied, false);
  assert.match(proposal.diff, /^\+.*Проверено клиентом MCP\.$/m);
  assert.equal((await call(client, "editor-read", { ...doc, pointer })).items[0].markdown, before, "a proposal changes nothing");
  const done = await call(client, "apply_edit", { proposalId: proposal.proposalId });
  assert.equal(done.applied, true);
  assert.equal(done.pointerBefore, pointer);
  assert.equal((await call(client, "editor-read", { ...doc, pointer: done.pointerAfter })).items[0].markdown, markdown);
  await call(client, "apply_edit", { proposalId: proposal.proposalId }, "error");
  seen.edited = done.pointerAfter;
}

async function withoutElicitation() {
  const client = await connect();
  seen.server = client.getServerVersion();
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  checkSchemas(tools);
  for (const want of ["search-find", "editor-read", "propose_replace_text", "apply_edit", "read_more"]) {
    assert.ok(names.includes(want), `${want} is listed: ${names}`);
  }
  assert.ok(!names.includes("editor-replace_text"), "a client without elicitation is not offered blind edits");
  seen.tools = names.length;
  seen.toolListBytes = JSON.stringify(tools).length;

  let doc = {};
  if (mode === "http") {
    const { documents } = await call(client, "list_documents", {});
    const sample = documents.find((d) => d.name === "zvezdochkin");
    assert.ok(sample, `the sample is a document: ${JSON.stringify(documents)}`);
    doc = { documentId: sample.documentId };
  }
  await findProposeApply(client, doc);

  const bad = await client.callTool({ name: "editor-read", arguments: { ...doc, pointer: "999" } });
  assert.ok(bad.isError && /nearest pointers/.test(bad.content[0].text), "a bad pointer is an error result with the nearest pointers");
  seen.checks.push("editor-read (bad pointer)");

  const first = await call(client, "editor-read", { ...doc, pointer: "1", after: 200 });
  assert.ok(first.continuation, "the whole book comes in pages");
  const next = await call(client, "read_more", { continuation: first.continuation });
  assert.equal(next.page, 2);

  const { resources } = await client.listResources();
  assert.ok(resources.length >= 1);
  const outline = await client.readResource({ uri: resources[0].uri });
  assert.match(outline.contents[0].text, /outline/);
  const { resourceTemplates } = await client.listResourceTemplates();
  const itemURI = resourceTemplates.find((t) => t.name === "item").uriTemplate
    .replace("{documentId}", encodeURIComponent(doc.documentId ?? resources[0].uri.split("/")[3]))
    .replace("{+pointer}", seen.edited);
  assert.match((await client.readResource({ uri: itemURI })).contents[0].text, /Проверено клиентом MCP\./);
  seen.checks.push("resources");
  await client.close();
}

async function withElicitation() {
  const asked = [];
  let answer = { action: "accept", content: {} };
  const client = await connect(async (req) => {
    asked.push(req.params.message);
    return answer;
  });
  const names = (await client.listTools()).tools.map((t) => t.name);
  assert.ok(names.includes("editor-replace_text") && !names.includes("apply_edit"), `${names}`);
  const done = await call(client, "editor-replace_text", { pointer: "2", markdown: "Вступление, одобренное в форме." });
  assert.equal(done.applied, true);
  assert.match(asked[0], /Replace the item 2:1\.p1/);
  assert.match(asked[0], /\+Вступление, одобренное в форме\./);
  answer = { action: "decline", content: { comment: "не сейчас" } };
  await call(client, "editor-delete", { pointer: "2" }, "error");
  assert.equal((await call(client, "editor-read", { pointer: "2" })).items[0].markdown, "Вступление, одобренное в форме.");
  seen.elicitation = asked.length;
  await client.close();
}

try {
  await withoutElicitation();
  if (mode === "stdio") await withElicitation();
  console.log(JSON.stringify(seen));
} catch (err) {
  console.error(`MCP client check failed (${mode}): ${err.stack ?? err}`);
  console.error(`checks passed before: ${seen.checks.join(", ")}`);
  process.exit(1);
}
