// Counts what a client pays for a tools/list result (docs/mcp.md, "What a client pays for the tool
// list"): for each golden given, the tools, the length of its JSON and its tokens with the
// o200k_base and cl100k_base encodings. Not part of the test suite; run it by hand:
//
//   mkdir /tmp/tok && cd /tmp/tok && npm install gpt-tokenizer@3.4.0
//   cp count_tokens.mjs /tmp/tok/ && node /tmp/tok/count_tokens.mjs internal/mcpserver/testdata/*.json
import { readFileSync } from "node:fs";
import * as o200k from "gpt-tokenizer/encoding/o200k_base";
import * as cl100k from "gpt-tokenizer/encoding/cl100k_base";

for (const f of process.argv.slice(2)) {
  const tools = JSON.parse(readFileSync(f, "utf8"));
  const all = JSON.stringify(tools);
  const desc = tools.map((t) => t.description).join("\n");
  const row = (enc) => `${enc.encode(all).length} (descriptions alone ${enc.encode(desc).length})`;
  console.log(`${f.split("/").pop()}: ${tools.length} tools, ${all.length} bytes; o200k ${row(o200k)}; cl100k ${row(cl100k)}`);
}
