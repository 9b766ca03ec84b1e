// Runs an agent of the OpenAI Agents SDK (@openai/agents, as released) with
// a function tool (zod parameters) against a running `rlm serve`, through
// both of its OpenAI models, each given a custom OpenAI client whose
// baseURL is the server: OpenAIResponsesModel (/v1/responses, the SDK's
// default) and OpenAIChatCompletionsModel (/v1/chat/completions). Run by
// cmd/rlm's TestOpenAIAgentsSDK, against a fake upstream (a scripted test
// double standing in for a capable model: its root's cells call the tools
// offered, with the cities the question names, and it answers from what
// the calls returned). It asks the weather of one city, then of six (the
// cell calls the tool from a goroutine each, at once, which comes back as
// six parallel calls in one response), with the model RLM_KIND says:
// chat, responses (the Responses model as the SDK runs it by default,
// sending the whole conversation each time), or responses-chained (from
// an earlier response of the conversation: each request names the
// previous response and sends only the new items). Env: RLM_BASE_URL,
// RLM_KEY, RLM_KIND. Prints one JSON line of results; exits non-zero on
// the first failed check.
import OpenAI from 'openai';
import { Agent, OpenAIChatCompletionsModel, OpenAIResponsesModel, run, setTracingDisabled, tool } from '@openai/agents';
import { z } from 'zod';
import { recordingFetch } from './requests.mjs';

// The SDK's traces would go to OpenAI's platform: off.
setTracingDisabled(true);

const baseURL = process.env.RLM_BASE_URL;
const kind = process.env.RLM_KIND;

function check(cond, msg) {
  if (!cond) {
    console.error('FAILED: ' + msg);
    process.exit(1);
  }
}

// forecast is what the tool says of a city: a word the model cannot know.
const forecast = (city) => `${city.toLowerCase()}-${city.length}-drizzle`;

async function ask(cities) {
  const { fetch, requests } = recordingFetch();
  const client = new OpenAI({ baseURL, apiKey: process.env.RLM_KEY, maxRetries: 0, fetch });
  const executed = [];
  const getWeather = tool({
    name: 'get_weather',
    description: 'The weather in a city today.',
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }) => {
      executed.push(city);
      return forecast(city);
    },
  });
  const model = kind === 'chat' ? new OpenAIChatCompletionsModel(client, 'rlm') : new OpenAIResponsesModel(client, 'rlm');
  const agent = new Agent({ name: 'Weather', instructions: 'Answer with the tools.', model, tools: [getWeather] });
  const question = `What is the weather in ${cities.join(', ').replace(/, ([^,]*)$/, ' and $1')}?`;
  // responses-chained: the conversation's state on the server, as the SDK
  // keeps it when a run starts from an earlier response: each request
  // names the previous response and sends only the new items.
  let previousResponseId;
  if (kind === 'responses-chained') {
    const hello = await run(agent, 'Hello.', { maxTurns: 2 });
    previousResponseId = hello.lastResponseId;
    check(previousResponseId, 'responses-chained: the first turn has no response id');
    requests.length = 0;
  }
  const result = await run(agent, question, { maxTurns: 4, previousResponseId });

  const want = cities.map((c) => `${c}: ${forecast(c)}`).join('; ');
  check(result.finalOutput === want, `${kind}: final output ${JSON.stringify(result.finalOutput)}, want ${JSON.stringify(want)}`);
  check(JSON.stringify([...executed].sort()) === JSON.stringify([...cities].sort()),
    `${kind}: the tool ran for ${JSON.stringify(executed)}, want once for each of ${JSON.stringify(cities)}`);
  return {
    cities,
    finalOutput: result.finalOutput,
    executed,
    requests,
  };
}

check(['responses', 'responses-chained', 'chat'].includes(kind), `RLM_KIND ${kind}`);
const runs = [await ask(['Paris']), await ask(['Rome', 'Oslo', 'Lima', 'Quito', 'Bern', 'Cairo'])];
console.log(JSON.stringify({ kind, runs }));
