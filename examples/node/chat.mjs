// Ask the rlm gateway a question about a file with the official OpenAI
// client, showing the run's progress live (turns, code cells, sub-calls)
// from the stream's progress chunks.
//
//   npm install openai@7.57.0
//   RLM_URL=http://127.0.0.1:8080 RLM_API_KEY=secret node examples/node/chat.mjs app.log "How many lines say FAIL?"
//
// A server with nothing configured answers with its built-in demo model,
// which only looks facts up in documents ("What is the ticket of the
// disk-full alert?" of examples/curl.sh's log): the script says so, and
// that other questions need a real model.
import fs from 'node:fs';
import path from 'node:path';
import OpenAI, { toFile } from 'openai';

const [file, question = 'Summarize this document.'] = process.argv.slice(2);
if (!file) {
  console.error('usage: node chat.mjs FILE [QUESTION]');
  process.exit(2);
}
const client = new OpenAI({
  baseURL: (process.env.RLM_URL ?? 'http://127.0.0.1:8080') + '/v1',
  apiKey: process.env.RLM_API_KEY || 'none',
});

const models = await client.models.list();
if (models.data.some((m) => m.rlm?.served_by === 'builtin')) {
  console.error('note: the server answers with its built-in demo model rlm-tiny-demo, which only looks facts up in documents; ' +
    'other questions need a real model (rlm serve --upstream URL --root-model NAME)');
}

const uploaded = await client.files.create({
  file: await toFile(fs.createReadStream(file), path.basename(file)),
  purpose: 'user_data',
});
console.error(`uploaded ${uploaded.filename} as ${uploaded.id} (${uploaded.bytes} bytes)`);

const stream = await client.chat.completions.create({
  model: 'rlm',
  stream: true,
  stream_options: { include_usage: true },
  messages: [{ role: 'user', content: [
    { type: 'text', text: question },
    { type: 'file', file: { file_id: uploaded.id } },
  ] }],
});

// Progress chunks carry choices: [] and an `rlm` event; everything else is
// the ordinary OpenAI stream.
const indent = (ev) => '  '.repeat(ev.depth ?? 0);
function show(ev) {
  switch (ev.event) {
    case 'turn_start': return `${indent(ev)}[${ev.node}] turn ${ev.turn}`;
    case 'cell_start': return `${indent(ev)}[${ev.node}] running cell ${ev.turn}.${ev.cell}`;
    case 'cell_end': return `${indent(ev)}[${ev.node}] cell ${ev.turn}.${ev.cell} printed ${ev.output_bytes ?? 0} bytes${ev.error ? ' (error)' : ''}`;
    case 'subcall_start': return `${indent(ev)}[${ev.node}] ${ev.kind}_query …`;
    case 'subcall_end': return `${indent(ev)}[${ev.node}] ${ev.kind}_query done in ${ev.duration_ms ?? 0} ms`;
    case 'node_end': return `${indent(ev)}[${ev.node}] finished: ${ev.stop_reason}`;
    default: return null;
  }
}
let answer = '';
for await (const chunk of stream) {
  if (chunk.rlm && chunk.choices.length === 0) {
    const line = show(chunk.rlm);
    if (line) console.error(line);
  }
  for (const c of chunk.choices) {
    if (c.delta.content) answer += c.delta.content;
    if (c.finish_reason) console.error(`finish_reason: ${c.finish_reason}, trace ${chunk.rlm?.trace_id}`);
  }
  if (chunk.usage) console.error(`tokens: ${chunk.usage.total_tokens}`);
}
console.log(answer);
await client.files.delete(uploaded.id);
