// Drives a running `rlm model serve` with the official OpenAI client: chat
// (plain, streamed with usage, logprobs, n choices, the return_token_ids
// extension), legacy completions, models, and errors that must surface as
// the SDK's typed errors. The model is a tiny random Qwen3, so the checks
// are about the protocol, not the words. Run by cmd/rlm's
// TestModelServeNodeSDK. Env: RLM_BASE_URL, RLM_KEY, RLM_MODEL.
// Prints one JSON line of results; exits non-zero on the first failed check.
import OpenAI from 'openai';

const client = new OpenAI({ baseURL: process.env.RLM_BASE_URL, apiKey: process.env.RLM_KEY, maxRetries: 0 });
const model = process.env.RLM_MODEL;
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
    results[name] = { status: e.status, type: e.type, param: e.param ?? null };
    return;
  }
  check(false, `${name}: no error thrown`);
}

const messages = [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Count to three.' }];

const plain = await client.chat.completions.create({
  model, messages, temperature: 0, max_tokens: 16, logprobs: true, top_logprobs: 2,
});
check(plain.object === 'chat.completion', 'plain: object ' + plain.object);
check(plain.choices[0].message.role === 'assistant', 'plain: role');
check(['stop', 'length'].includes(plain.choices[0].finish_reason), 'plain: finish_reason ' + plain.choices[0].finish_reason);
const lp = plain.choices[0].logprobs.content;
check(lp.length === plain.usage.completion_tokens, `plain: ${lp.length} logprobs for ${plain.usage.completion_tokens} tokens`);
check(lp.every((t) => t.logprob <= 0 && t.top_logprobs.length === 2), 'plain: logprob entries');
results.plain = { content: plain.choices[0].message.content, usage: plain.usage };

const stream = await client.chat.completions.create({
  model, messages, temperature: 0, max_tokens: 16, stream: true, stream_options: { include_usage: true },
});
let text = '';
let finish = null;
let usage = null;
for await (const chunk of stream) {
  for (const c of chunk.choices) {
    text += c.delta.content ?? '';
    finish = c.finish_reason ?? finish;
  }
  if (chunk.usage) usage = chunk.usage;
}
check(text === plain.choices[0].message.content, `stream: ${JSON.stringify(text)} differs from the plain answer`);
check(finish === plain.choices[0].finish_reason && usage && usage.completion_tokens === plain.usage.completion_tokens, 'stream: finish or usage');
results.stream = { content: text, usage };

const many = await client.chat.completions.create({ model, messages, temperature: 1, seed: 3, n: 2, max_tokens: 8 });
check(many.choices.length === 2 && many.choices[1].index === 1, 'n=2: choices');

// The extension: exact token ids, passed through by the SDK.
const ids = await client.chat.completions.create({ model, messages, temperature: 0, max_tokens: 8, return_token_ids: true });
check(Array.isArray(ids.prompt_token_ids) && ids.prompt_token_ids.length === ids.usage.prompt_tokens, 'return_token_ids: prompt');
check(ids.choices[0].token_ids.length === ids.usage.completion_tokens, 'return_token_ids: completion');
const cont = await client.completions.create({ model, prompt: ids.prompt_token_ids, temperature: 0, max_tokens: 8, logprobs: 1 });
check(cont.object === 'text_completion' && cont.choices[0].text === ids.choices[0].message.content, 'completion from token ids differs from chat');
check(cont.choices[0].logprobs.token_logprobs.length === cont.usage.completion_tokens, 'completion logprobs');
results.token_ids = { prompt: ids.prompt_token_ids.length, completion: ids.choices[0].token_ids };

const models = await client.models.list();
check(models.data.length === 1 && models.data[0].id === model, 'models');

await expectError('bad_model', OpenAI.NotFoundError, 404, () => client.chat.completions.create({ model: 'nope', messages }), 'model');
await expectError('bad_temperature', OpenAI.BadRequestError, 400,
  () => client.chat.completions.create({ model, messages, temperature: 5 }), 'temperature');
await expectError('too_long', OpenAI.BadRequestError, 400,
  () => client.chat.completions.create({ model, messages, max_tokens: 10000000 }), 'max_tokens');
await expectError('bad_key', OpenAI.AuthenticationError, 401,
  () => new OpenAI({ baseURL: process.env.RLM_BASE_URL, apiKey: 'wrong', maxRetries: 0 }).models.list());

console.log(JSON.stringify(results));
