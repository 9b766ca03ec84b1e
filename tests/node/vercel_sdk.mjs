// Holds a three-turn conversation with a running `rlm serve` through the
// Vercel AI SDK's Responses provider (ai + @ai-sdk/openai), as released:
// generateText with openai.responses(model), the conversation's messages
// carried from turn to turn as the SDK returns them. With store on (the
// provider's default) the SDK sends the earlier assistant turns as
// item_reference items, which the server resolves to the caller's own
// stored items. Run by cmd/rlm's TestVercelAISDK, against a fake upstream
// (a scripted test double, not a model). Env: RLM_BASE_URL, RLM_KEY,
// RLM_OTHER_KEY. Prints one JSON line of results; exits non-zero on the
// first failed check.
import { generateText } from 'ai';
import { createOpenAI } from '@ai-sdk/openai';

const baseURL = process.env.RLM_BASE_URL;
const sent = [];
const recording = async (url, init) => {
  if (init && init.body) sent.push(JSON.parse(init.body));
  return fetch(url, init);
};
const provider = createOpenAI({ baseURL, apiKey: process.env.RLM_KEY, fetch: recording });
const model = provider.responses('rlm');

function check(cond, msg) {
  if (!cond) {
    console.error('FAILED: ' + msg);
    process.exit(1);
  }
}

const messages = [];
const turns = [];
for (const question of ['What is the capital of France?', 'And the capital of Italy?', 'Which city did I ask about first?']) {
  messages.push({ role: 'user', content: question });
  const result = await generateText({ model, messages, maxRetries: 0 });
  turns.push({ text: result.text, finishReason: result.finishReason, id: result.response.id });
  messages.push(...result.response.messages);
}

// What the SDK sent: the later turns name the earlier answers by reference.
const references = sent.map((body) => (body.input || []).filter((it) => it.type === 'item_reference').map((it) => it.id));
check(references[0].length === 0, `the first turn sent references: ${JSON.stringify(references[0])}`);
check(references[2].length === 2, `the third turn sent ${references[2].length} references, want 2: ${JSON.stringify(sent[2].input)}`);

// Another key cannot read them: the same reference from another key is a 404.
const other = await fetch(baseURL + '/responses', {
  method: 'POST',
  headers: { 'Content-Type': 'application/json', Authorization: 'Bearer ' + process.env.RLM_OTHER_KEY },
  body: JSON.stringify({ model: 'rlm', input: [{ type: 'item_reference', id: references[2][0] }, { role: 'user', content: 'q' }] }),
});
const otherBody = await other.json();

console.log(JSON.stringify({ turns, references, other: { status: other.status, param: otherBody.error && otherBody.error.param } }));
