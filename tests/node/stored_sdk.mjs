// Drives the stored chat-completions API of a running `rlm serve` with the
// official OpenAI client, as a user would: create with store and metadata,
// then chat.completions.list (auto-paging, order, model and metadata
// filters), retrieve, update, messages.list and delete, plus the errors the
// SDK must raise as typed exceptions. Run by cmd/rlm's TestNodeSDKStored,
// which starts the server against a fake upstream (a scripted test double,
// not a model). Env: RLM_BASE_URL, RLM_KEY, RLM_OTHER_KEY (a second key, to
// check that one key never sees another's completions).
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

async function expectError(name, cls, status, fn, param) {
  try {
    await fn();
  } catch (e) {
    check(e instanceof cls, `${name}: got ${e && e.constructor && e.constructor.name}, want ${cls.name}: ${e}`);
    check(e.status === status, `${name}: status ${e.status}, want ${status}`);
    if (param !== undefined) check(e.param === param, `${name}: param ${e.param}, want ${param}`);
    results[name] = { status: e.status, param: e.param ?? null, message: e.message };
    return;
  }
  check(false, `${name}: no error thrown`);
}

async function all(pages) {
  const out = [];
  for await (const c of pages) out.push(c);
  return out;
}

// Five stored completions; metadata tells them apart.
const ids = [];
for (let i = 0; i < 5; i++) {
  const c = await client.chat.completions.create({
    model: i === 3 ? 'small' : 'rlm',
    store: true,
    metadata: { suite: 'sdk', parity: i % 2 === 0 ? 'even' : 'odd', n: String(i) },
    messages: [
      { role: 'system', content: 'Answer briefly.' },
      { role: 'user', content: `question ${i}` },
    ],
  });
  check(c.id.startsWith('chatcmpl-'), 'create: id ' + c.id);
  ids.push(c.id);
}

// list pages through everything with after= cursors, two at a time.
const listed = await all(client.chat.completions.list({ limit: 2, metadata: { suite: 'sdk' } }));
check(JSON.stringify(listed.map((c) => c.id)) === JSON.stringify(ids), 'list: ' + listed.map((c) => c.id));
check(listed.every((c) => c.object === 'chat.completion' && c.metadata.suite === 'sdk'), 'list: objects');
const firstPage = await client.chat.completions.list({ limit: 2 });
check(firstPage.data.length === 2 && firstPage.has_more === true && firstPage.hasNextPage(), 'list: first page has_more');
const desc = await all(client.chat.completions.list({ order: 'desc', limit: 3 }));
check(JSON.stringify(desc.map((c) => c.id)) === JSON.stringify([...ids].reverse()), 'list desc: ' + desc.map((c) => c.id));
const even = await all(client.chat.completions.list({ metadata: { parity: 'even' } }));
check(JSON.stringify(even.map((c) => c.id)) === JSON.stringify([ids[0], ids[2], ids[4]]), 'list metadata filter: ' + even.map((c) => c.id));
const small = await all(client.chat.completions.list({ model: 'small' }));
check(small.length === 1 && small[0].id === ids[3], 'list model filter');
results.list = { ids: listed.map((c) => c.id), desc: desc.length, even: even.length, small: small.length };

// retrieve
const got = await client.chat.completions.retrieve(ids[1]);
check(got.id === ids[1] && got.status === 'completed' && got.metadata.n === '1', 'retrieve: ' + JSON.stringify(got));
results.retrieve = { id: got.id, status: got.status, content: got.choices[0].message.content, metadata: got.metadata };

// update replaces the metadata
const updated = await client.chat.completions.update(ids[1], { metadata: { suite: 'sdk', reviewed: 'yes' } });
check(updated.id === ids[1] && updated.metadata.reviewed === 'yes' && updated.metadata.n === undefined, 'update: ' + JSON.stringify(updated.metadata));
const reviewed = await all(client.chat.completions.list({ metadata: { reviewed: 'yes' } }));
check(reviewed.length === 1 && reviewed[0].id === ids[1], 'list after update');
results.update = updated.metadata;

// messages.list
const msgs = await all(client.chat.completions.messages.list(ids[2], { limit: 1 }));
check(msgs.length === 2 && msgs[0].id === ids[2] + '-0' && msgs[0].role === 'system' && msgs[1].content === 'question 2',
  'messages.list: ' + JSON.stringify(msgs));
const lastMsg = await client.chat.completions.messages.list(ids[2], { order: 'desc', limit: 1 });
check(lastMsg.data.length === 1 && lastMsg.data[0].id === ids[2] + '-1' && lastMsg.has_more === true, 'messages.list desc');
results.messages = msgs.map((m) => ({ id: m.id, role: m.role, content: m.content }));

// another key sees none of it
const theirs = await all(other.chat.completions.list());
check(theirs.length === 0, 'other key lists ' + theirs.length);
await expectError('other_key_retrieve', OpenAI.NotFoundError, 404, () => other.chat.completions.retrieve(ids[0]));
await expectError('other_key_delete', OpenAI.NotFoundError, 404, () => other.chat.completions.delete(ids[0]));

// delete, then it is gone
const deleted = await client.chat.completions.delete(ids[0]);
check(deleted.id === ids[0] && deleted.deleted === true && deleted.object === 'chat.completion.deleted', 'delete: ' + JSON.stringify(deleted));
results.delete = deleted;
await expectError('deleted_retrieve', OpenAI.NotFoundError, 404, () => client.chat.completions.retrieve(ids[0]));
await expectError('deleted_messages', OpenAI.NotFoundError, 404, () => client.chat.completions.messages.list(ids[0]));
const after = await all(client.chat.completions.list());
check(after.length === 4 && !after.some((c) => c.id === ids[0]), 'list after delete');

// bad input: OpenAI's 400s
const tooMany = Object.fromEntries(Array.from({ length: 17 }, (_, i) => ['k' + i, 'v']));
await expectError('metadata_too_many_keys', OpenAI.BadRequestError, 400, () =>
  client.chat.completions.create({ model: 'rlm', store: true, metadata: tooMany, messages: [{ role: 'user', content: 'x' }] }), 'metadata');
await expectError('metadata_value_too_long', OpenAI.BadRequestError, 400, () =>
  client.chat.completions.update(ids[1], { metadata: { k: 'x'.repeat(513) } }), 'metadata.k');
await expectError('unknown_rlm_key', OpenAI.BadRequestError, 400, () =>
  client.chat.completions.create({ model: 'rlm', messages: [{ role: 'user', content: 'x' }], rlm: { max_iteration: 3 } }), 'rlm.max_iteration');
check(results.unknown_rlm_key.message.includes('max_iterations'), 'unknown rlm key: message lacks the allowed keys');

console.log(JSON.stringify(results));
