// Parallel client tool calls through the official OpenAI client, as
// released, against a running `rlm serve`: a document of RLM_RECORDS
// records, one customer each, too long to be shown to the model whole
// (offloaded into the REPL), and a function tool that looks up a
// customer's balance. The RLM's cell calls the tool for every record at
// once (one batched call), so the first answer holds one call per record;
// the client runs them all and sends every output in one follow-up, which
// resumes the cell. Both APIs: chat completions (the
// history with the assistant's tool_calls and the tool messages) and
// Responses (previous_response_id and function_call_output items). Run by
// cmd/rlm's TestParallelToolCalls, against a fake upstream (a scripted test
// double standing in for a capable model: its root writes that cell and
// answers with the total it printed). Env: RLM_BASE_URL, RLM_KEY,
// RLM_RECORDS. Prints one JSON line of results; exits non-zero on the
// first failed check.
import OpenAI from 'openai';

const client = new OpenAI({ baseURL: process.env.RLM_BASE_URL, apiKey: process.env.RLM_KEY, maxRetries: 0 });
const n = Number(process.env.RLM_RECORDS || '100');

function check(cond, msg) {
  if (!cond) {
    console.error('FAILED: ' + msg);
    process.exit(1);
  }
}

const customer = (i) => 'C' + String(i).padStart(3, '0');
const balance = (id) => (Number(id.slice(1)) * 37) % 1000;
const filler = 'The account was reviewed and nothing else of note was found in it. '.repeat(10);
const doc = Array.from({ length: n }, (_, i) => `Record ${i}: customer ${customer(i)} opened an account. ${filler}`).join('\n\n');
const question = 'What do the customers of these records hold in all? Look up each balance with the tool.\n\n' + doc;
const total = Array.from({ length: n }, (_, i) => balance(customer(i))).reduce((a, b) => a + b, 0);
const want = `The ${n} customers hold ${total} in all.`;
const parameters = {
  type: 'object',
  properties: { customer: { type: 'string', description: 'The customer id, like C007.' } },
  required: ['customer'],
  additionalProperties: false,
};
const description = "A customer's balance.";

// run executes the calls, each once, and returns their outputs by call id.
function run(calls, executed) {
  const outputs = {};
  for (const c of calls) {
    check(c.name === 'get_balance', `a call of ${c.name}`);
    const { customer: id } = JSON.parse(c.arguments);
    executed.push(id);
    outputs[c.id] = String(balance(id));
  }
  return outputs;
}

function checkCalls(api, executed) {
  const ids = [...executed].sort();
  check(ids.length === n && new Set(ids).size === n && ids.every((id, i) => id === customer(i)),
    `${api}: the tool ran for ${ids.length} customers (${new Set(ids).size} distinct), want each of ${n} once`);
}

async function chat() {
  const executed = [];
  const tools = [{ type: 'function', function: { name: 'get_balance', description, parameters, strict: true } }];
  const messages = [{ role: 'user', content: question }];
  const { data: first, response: r1 } = await client.chat.completions.create({ model: 'rlm', messages, tools, parallel_tool_calls: true }).withResponse();
  const choice = first.choices[0];
  check(choice.finish_reason === 'tool_calls', `chat: finish reason ${choice.finish_reason}: ${JSON.stringify(choice.message).slice(0, 300)}`);
  const calls = choice.message.tool_calls.map((tc) => ({ id: tc.id, name: tc.function.name, arguments: tc.function.arguments }));
  check(calls.length === n, `chat: ${calls.length} tool calls in the first answer, want ${n}`);
  const outputs = run(calls, executed);
  messages.push(choice.message, ...calls.map((c) => ({ role: 'tool', tool_call_id: c.id, content: outputs[c.id] })));
  const { data: second, response: r2 } = await client.chat.completions.create({ model: 'rlm', messages, tools }).withResponse();
  const answer = second.choices[0];
  check(answer.finish_reason === 'stop' && answer.message.content === want, `chat: answer ${JSON.stringify(answer)}, want ${want}`);
  checkCalls('chat', executed);
  return { calls: calls.length, answer: answer.message.content, traces: [r1.headers.get('x-rlm-trace-id'), r2.headers.get('x-rlm-trace-id')] };
}

async function responses() {
  const executed = [];
  const tools = [{ type: 'function', name: 'get_balance', description, parameters, strict: true }];
  const { data: first, response: r1 } = await client.responses.create({ model: 'rlm', input: question, tools }).withResponse();
  const calls = first.output.filter((o) => o.type === 'function_call').map((o) => ({ id: o.call_id, name: o.name, arguments: o.arguments }));
  check(first.status === 'completed' && calls.length === n && first.output.length === n,
    `responses: status ${first.status}, ${calls.length} calls of ${first.output.length} items, want ${n}`);
  const outputs = run(calls, executed);
  const { data: second, response: r2 } = await client.responses.create({
    model: 'rlm',
    previous_response_id: first.id,
    input: calls.map((c) => ({ type: 'function_call_output', call_id: c.id, output: outputs[c.id] })),
    tools,
  }).withResponse();
  check(second.status === 'completed' && second.output_text === want, `responses: answer ${JSON.stringify(second.output_text)}, want ${want}`);
  checkCalls('responses', executed);
  return { calls: calls.length, answer: second.output_text, traces: [r1.headers.get('x-rlm-trace-id'), r2.headers.get('x-rlm-trace-id')] };
}

console.log(JSON.stringify({ chat: await chat(), responses: await responses() }));
