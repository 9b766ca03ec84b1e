// Drives the tool calls and structured outputs of a running `rlm serve`
// with the Vercel AI SDK (ai + @ai-sdk/openai), as released: generateText
// with a tool and several steps (stopWhen: stepCountIs), through the
// Responses provider (openai.responses) and the chat provider
// (openai.chat), and generateObject with a zod schema through both. Run by
// cmd/rlm's TestVercelAISDKTools, against a fake upstream (a scripted test
// double standing in for a capable model: its root's cells call the tool
// offered for the cities the question names and answer from what it
// returned; asked for JSON, it builds the object, from the tool's output
// or from the question's words). Env: RLM_BASE_URL, RLM_KEY. Prints one
// JSON line of results; exits non-zero on the first failed check.
import { generateObject, generateText, stepCountIs, tool } from 'ai';
import { createOpenAI } from '@ai-sdk/openai';
import { z } from 'zod';
import { recordingFetch } from './requests.mjs';

function check(cond, msg) {
  if (!cond) {
    console.error('FAILED: ' + msg);
    process.exit(1);
  }
}

// provider is an OpenAI provider for the server that records what each
// request sent.
function provider() {
  const { fetch, requests } = recordingFetch();
  return { p: createOpenAI({ baseURL: process.env.RLM_BASE_URL, apiKey: process.env.RLM_KEY, fetch }), requests };
}

const forecasts = { Paris: 'sunny', Tokyo: 'typhoon' };

async function weather(kind) {
  const { p, requests } = provider();
  const executed = [];
  const getWeather = tool({
    description: 'The weather in a city today.',
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => {
      executed.push(city);
      return forecasts[city] || 'unknown';
    },
  });
  const model = kind === 'chat' ? p.chat('rlm') : p.responses('rlm');
  const result = await generateText({
    model,
    tools: { get_weather: getWeather },
    stopWhen: stepCountIs(4),
    prompt: 'What is the weather in Paris and Tokyo?',
    maxRetries: 0,
  });
  const toolCalls = result.steps.map((s) => s.toolCalls.length);
  check(result.text === 'Paris: sunny; Tokyo: typhoon', `${kind}: text ${JSON.stringify(result.text)}`);
  check(result.finishReason === 'stop', `${kind}: finish reason ${result.finishReason}`);
  check(JSON.stringify(toolCalls) === '[2,0]', `${kind}: tool calls per step ${JSON.stringify(toolCalls)}, want [2,0]`);
  check(JSON.stringify([...executed].sort()) === '["Paris","Tokyo"]', `${kind}: the tool ran for ${JSON.stringify(executed)}`);
  return { text: result.text, steps: result.steps.length, toolCalls, executed, requests };
}

async function object(kind) {
  const { p, requests } = provider();
  const model = kind === 'chat' ? p.chat('rlm') : p.responses('rlm');
  const result = await generateObject({
    model,
    schema: z.object({ city: z.string(), forecast: z.string() }),
    schemaName: 'weather_report',
    prompt: 'Lima is foggy today. Report the weather in Lima as an object.',
    maxRetries: 0,
  });
  check(JSON.stringify(result.object) === '{"city":"Lima","forecast":"foggy"}', `${kind}: object ${JSON.stringify(result.object)}`);
  return { object: result.object, finishReason: result.finishReason, requests };
}

const out = {
  responses: await weather('responses'),
  chat: await weather('chat'),
  objectResponses: await object('responses'),
  objectChat: await object('chat'),
};
console.log(JSON.stringify(out));
