// Drives a running `rlm serve` with the official OpenAI client, as a user
// would: plain and streaming chat completions, a file upload referenced in a
// message, and error cases that must surface as the SDK's typed errors.
// Run by cmd/rlm's TestNodeSDK, which starts the server against a fake
// upstream (a scripted test double, not a model). Env: RLM_BASE_URL, RLM_KEY.
// Prints one JSON line of results; exits non-zero on the first failed check.
import OpenAI, { toFile } from 'openai';

const baseURL = process.env.RLM_BASE_URL;
const apiKey = process.env.RLM_KEY;
const client = new OpenAI({ baseURL, apiKey, maxRetries: 0 });
const results = {};

function check(cond, msg) {
  if (!cond) {
    console.error('FAILED: ' + msg);
    process.exit(1);
  }
}

async function expectError(name, cls, status, fn, param) {
  try {
    await fn();
  } catch (e) {
    check(e instanceof cls, `${name}: got ${e && e.constructor && e.constructor.name}, want ${cls.name}: ${e}`);
    check(e.status === status, `${name}: status ${e.status}, want ${status}`);
    if (param !== undefined) check(e.param === param, `${name}: param ${e.param}, want ${param}`);
    check(typeof e.message === 'string' && e.message.length > 0, `${name}: empty message`);
    results[name] = { status: e.status, type: e.type, param: e.param ?? null };
    return;
  }
  check(false, `${name}: no error thrown`);
}

// Plain completion.
const plain = await client.chat.completions.create({
  model: 'rlm',
  messages: [{ role: 'user', content: 'How many failures are in this log?\n' + process.env.RLM_LOG_TEXT }],
  temperature: 0,
});
check(plain.object === 'chat.completion', 'plain: object ' + plain.object);
check(plain.choices[0].message.role === 'assistant', 'plain: role');
check(plain.choices[0].finish_reason === 'stop', 'plain: finish_reason ' + plain.choices[0].finish_reason);
check(plain.usage.total_tokens > 0, 'plain: usage');
results.plain = { content: plain.choices[0].message.content, rlm: plain.rlm };

// Streaming with usage; progress chunks have empty choices and an rlm field.
const stream = await client.chat.completions.create({
  model: 'rlm',
  messages: [{ role: 'user', content: 'How many failures?\n' + process.env.RLM_LOG_TEXT }],
  stream: true,
  stream_options: { include_usage: true },
});
let content = '';
let progress = 0;
let finish = null;
let usage = null;
for await (const chunk of stream) {
  check(chunk.object === 'chat.completion.chunk', 'stream: object ' + chunk.object);
  if (chunk.rlm && chunk.choices.length === 0) progress++;
  if (chunk.usage) usage = chunk.usage;
  for (const c of chunk.choices) {
    if (c.delta.content) content += c.delta.content;
    if (c.finish_reason) finish = c.finish_reason;
  }
}
check(finish === 'stop', 'stream: finish ' + finish);
check(usage && usage.total_tokens > 0, 'stream: usage chunk');
results.stream = { content, progress, finish };

// Upload once, reference by file id.
const file = await client.files.create({
  file: await toFile(Buffer.from(process.env.RLM_LOG_TEXT), 'app.log'),
  purpose: 'user_data',
});
check(file.id.startsWith('file-') && file.bytes === Buffer.byteLength(process.env.RLM_LOG_TEXT), 'files.create: ' + JSON.stringify(file));
const listed = await client.files.list();
check(listed.data.some((f) => f.id === file.id), 'files.list lacks the upload');
const withFile = await client.chat.completions.create({
  model: 'rlm',
  messages: [{ role: 'user', content: [
    { type: 'text', text: 'How many failures are in the attached log?' },
    { type: 'file', file: { file_id: file.id } },
  ] }],
});
results.file = { id: file.id, content: withFile.choices[0].message.content };

// Typed errors.
await expectError('unknown_model', OpenAI.NotFoundError, 404, () =>
  client.chat.completions.create({ model: 'no-such-model', messages: [{ role: 'user', content: 'x' }] }), 'model');
await expectError('bad_request', OpenAI.BadRequestError, 400, () =>
  client.chat.completions.create({ model: 'rlm', messages: [{ role: 'user', content: 'x' }], n: 3 }), 'n');
await expectError('bad_key', OpenAI.AuthenticationError, 401, () =>
  new OpenAI({ baseURL, apiKey: 'wrong', maxRetries: 0 }).models.list());
await expectError('missing_file', OpenAI.NotFoundError, 404, () =>
  client.files.retrieve('file-000000000000000000000000'));
await client.files.delete(file.id);
await expectError('deleted_file', OpenAI.NotFoundError, 404, () => client.files.retrieve(file.id));

console.log(JSON.stringify(results));
