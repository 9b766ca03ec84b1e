// Runs a LangChain JS tool-calling agent (langchain's createAgent, as
// released) whose model is @langchain/openai's ChatOpenAI pointed at a
// running `rlm serve`: once on chat completions, once with useResponsesApi
// (/v1/responses). The agent has one tool (zod schema) and loops model ->
// tool -> model until the model answers. Run by cmd/rlm's
// TestLangChainAgent, against a fake upstream (a scripted test double
// standing in for a capable model: its root's cells call the tool offered
// for the cities the question names and answer from what it returned).
// Env: RLM_BASE_URL, RLM_KEY. Prints one JSON line of results; exits
// non-zero on the first failed check.
import { createAgent, tool } from 'langchain';
import { ChatOpenAI } from '@langchain/openai';
import { z } from 'zod';
import { recordingFetch } from './requests.mjs';

// LangSmith's tracing would send the runs to its platform: off, whatever
// the environment says.
process.env.LANGSMITH_TRACING = 'false';
process.env.LANGCHAIN_TRACING_V2 = 'false';

function check(cond, msg) {
  if (!cond) {
    console.error('FAILED: ' + msg);
    process.exit(1);
  }
}

const forecasts = { Oslo: 'snow', Cairo: 'heat' };

async function agentRun(api) {
  const { fetch, requests } = recordingFetch();
  const model = new ChatOpenAI({
    model: 'rlm',
    apiKey: process.env.RLM_KEY,
    maxRetries: 0,
    useResponsesApi: api === 'responses',
    configuration: { baseURL: process.env.RLM_BASE_URL, fetch },
  });
  const executed = [];
  const getWeather = tool(
    async ({ city }) => {
      executed.push(city);
      return forecasts[city] || 'unknown';
    },
    { name: 'get_weather', description: 'The weather in a city today.', schema: z.object({ city: z.string() }) },
  );
  const agent = createAgent({ model, tools: [getWeather], systemPrompt: 'Answer with the tools.' });
  const result = await agent.invoke({ messages: [{ role: 'user', content: 'What is the weather in Oslo and Cairo?' }] });
  const msgs = result.messages;
  const last = msgs[msgs.length - 1];
  const text = typeof last.content === 'string' ? last.content : last.content.map((c) => c.text || '').join('');
  const toolMessages = msgs.filter((m) => m.type === 'tool').map((m) => m.content);
  const aiCalls = msgs.filter((m) => m.type === 'ai').map((m) => (m.tool_calls || []).length);
  check(text === 'Oslo: snow; Cairo: heat', `${api}: answer ${JSON.stringify(text)}`);
  check(JSON.stringify([...executed].sort()) === '["Cairo","Oslo"]', `${api}: the tool ran for ${JSON.stringify(executed)}`);
  check(JSON.stringify(aiCalls) === '[2,0]', `${api}: tool calls per model turn ${JSON.stringify(aiCalls)}, want [2,0]`);
  return { text, executed, toolMessages, aiCalls, requests };
}

console.log(JSON.stringify({ chat: await agentRun('chat'), responses: await agentRun('responses') }));
