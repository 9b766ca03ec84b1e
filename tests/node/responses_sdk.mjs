// Drives the Responses API of a running `rlm serve` with the official
// OpenAI client, unchanged: responses.create (plain, streamed, background),
// the responses.stream helper (new, and resuming a background response),
// responses.retrieve (polled, and streamed again from a sequence number),
// responses.cancel, responses.delete, responses.inputItems.list, and a
// follow-up through previous_response_id. Run by cmd/rlm's
// TestNodeSDKResponses, which starts the server against a fake upstream (a
// scripted test double, not a model): it answers FINAL(...) at once, waits
// long on a prompt that says "slow", defines a variable in a cell for the
// first question and, on the follow-up, writes a cell that reads it. Env: RLM_BASE_URL, RLM_KEY, RLM_OTHER_KEY.
// Prints one JSON line of results; exits non-zero on the first failed check.
import OpenAI from 'openai';

const baseURL = process.env.RLM_BASE_URL;
const client = new OpenAI({ baseURL, apiKey: process.env.RLM_KEY, maxRetries: 0 });
const other = new OpenAI({ baseURL, apiKey: process.env.RLM_OTHER_KEY, maxRetries: 0 });
const results = {};

function check(cond, msg) {
  if (!cond) {
    console.error('FAILED: ' + msg);
    process.exit(1);
  }
}

async function expectError(name, cls, status, fn) {
  try {
    await fn();
  } catch (e) {
    check(e instanceof cls, `${name}: got ${e && e.constructor && e.constructor.name}, want ${cls.name}: ${e}`);
    check(e.status === status, `${name}: status ${e.status}, want ${status}`);
    results[name] = { status: e.status, message: e.message };
    return;
  }
  check(false, `${name}: no error thrown`);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function until(id, statuses) {
  for (let i = 0; i < 400; i++) {
    const r = await client.responses.retrieve(id);
    if (statuses.includes(r.status)) return r;
    await sleep(25);
  }
  check(false, `response ${id} never reached ${statuses}`);
}

// Plain.
const plain = await client.responses.create({
  model: 'rlm',
  instructions: 'Answer briefly.',
  input: 'What is the capital of France?',
  metadata: { suite: 'sdk' },
});
check(plain.object === 'response' && plain.id.startsWith('resp_'), 'create: ' + JSON.stringify(plain));
check(plain.status === 'completed', 'create: status ' + plain.status);
results.plain = { status: plain.status, text: plain.output_text, usage: plain.usage, metadata: plain.metadata };

// Streamed: every event in order, the text in deltas.
const stream = await client.responses.create({ model: 'rlm', input: 'Stream it.', stream: true });
const types = [];
let deltas = '';
let final = null;
let lastSeq = -1;
for await (const ev of stream) {
  check(ev.sequence_number === lastSeq + 1, `stream: sequence ${ev.sequence_number} after ${lastSeq}`);
  lastSeq = ev.sequence_number;
  if (ev.type !== 'rlm.progress') types.push(ev.type);
  if (ev.type === 'response.output_text.delta') deltas += ev.delta;
  if (ev.type === 'response.completed') final = ev.response;
}
check(final && final.output[0].content[0].text === deltas, 'stream: deltas ' + JSON.stringify(deltas));
results.stream = { types: [...new Set(types)], text: deltas };

// The SDK's streaming helper, which rebuilds the response from the events
// and checks that they agree with each other.
const helper = client.responses.stream({ model: 'rlm', input: 'Stream it with the helper.' });
let helperDeltas = '';
helper.on('response.output_text.delta', (ev) => { helperDeltas += ev.delta; });
const helperFinal = await helper.finalResponse();
check(helperFinal.status === 'completed' && helperFinal.output_text === helperDeltas, 'stream helper: ' + JSON.stringify(helperFinal));
results.helper = { status: helperFinal.status, text: helperFinal.output_text };

// Background: answered at once, polled to the end, streamed again from
// the second event.
const bg = await client.responses.create({ model: 'rlm', input: 'In the background, please.', background: true });
check(bg.background === true && ['queued', 'in_progress'].includes(bg.status), 'background: ' + bg.status);
const bgDone = await until(bg.id, ['completed']);
const again = await client.responses.retrieve(bg.id, { stream: true, starting_after: 0 });
const replay = [];
for await (const ev of again) replay.push(ev);
check(replay[0].sequence_number === 1 && replay.at(-1).type === 'response.completed', 'replay: ' + replay.map((e) => e.type));
// The streaming helper resumes a background response by id, too.
const resumed = await client.responses.stream({ response_id: bg.id }).finalResponse();
check(resumed.status === 'completed' && resumed.output_text === bgDone.output_text, 'resumed helper: ' + JSON.stringify(resumed));
results.background = { status: bgDone.status, text: bgDone.output_text, replayed: replay.length, first: replay[0].sequence_number };

// Cancel: a background response stuck on a slow upstream.
const slow = await client.responses.create({ model: 'rlm', input: 'slow: take your time', background: true });
await until(slow.id, ['in_progress']);
const cancelled = await client.responses.cancel(slow.id);
results.cancel = { status: cancelled.status };

// Input items, and a follow-up whose cell uses a variable the first turn's
// cell defined: it runs in the same REPL session.
const items = await client.responses.inputItems.list(plain.id);
results.inputItems = items.data.map((it) => ({ role: it.role, type: it.content[0].type, text: it.content[0].text }));
const follow = await client.responses.create({ model: 'rlm', input: 'And what did you say before?', previous_response_id: plain.id });
results.followUp = { status: follow.status, text: follow.output_text, previous: follow.previous_response_id, session: follow.rlm?.session };

// Another key sees none of it.
await expectError('otherRetrieve', OpenAI.NotFoundError, 404, () => other.responses.retrieve(plain.id));
await expectError('otherFollowUp', OpenAI.NotFoundError, 404, () =>
  other.responses.create({ model: 'rlm', input: 'x', previous_response_id: plain.id }));

// Delete.
await client.responses.delete(plain.id);
await expectError('retrieveDeleted', OpenAI.NotFoundError, 404, () => client.responses.retrieve(plain.id));
// Function tools are the client's, and run; a hosted tool is not offered.
await expectError('badRequest', OpenAI.BadRequestError, 400, () =>
  client.responses.create({ model: 'rlm', input: 'x', tools: [{ type: 'web_search' }] }));

console.log(JSON.stringify(results));
