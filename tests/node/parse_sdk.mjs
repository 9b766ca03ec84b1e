// Drives the structured outputs of a running `rlm serve` with the official
// OpenAI client's parse helpers, as released: client.responses.parse with
// zodTextFormat and client.chat.completions.parse with zodResponseFormat,
// each once with the answer's facts in the question and once with a
// function tool (zodResponsesFunction, zodFunction): the first response's
// call comes back with its parsed arguments, the client runs the tool and
// sends its output, and the answer is parsed from the second. Run by
// cmd/rlm's TestOpenAIParse, against a fake upstream (a scripted test
// double standing in for a capable model: told a JSON answer format, its
// root builds the object in a cell, from the tool's output or from the
// question's words). Env: RLM_BASE_URL, RLM_KEY. Prints one JSON line of
// results; exits non-zero on the first failed check.
import OpenAI from 'openai';
import { zodFunction, zodResponseFormat, zodResponsesFunction, zodTextFormat } from 'openai/helpers/zod';
import { z } from 'zod';

const client = new OpenAI({ baseURL: process.env.RLM_BASE_URL, apiKey: process.env.RLM_KEY, maxRetries: 0 });
const Report = z.object({ city: z.string(), forecast: z.string() });
const WeatherArgs = z.object({ city: z.string() });

function check(cond, msg) {
  if (!cond) {
    console.error('FAILED: ' + msg);
    process.exit(1);
  }
}

function same(got, want, what) {
  check(JSON.stringify(got) === JSON.stringify(want), `${what}: ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
}

const out = {};

// The facts are in the question.
{
  const r = await client.responses.parse({
    model: 'rlm',
    input: 'Lima is foggy today. Report the weather in Lima.',
    text: { format: zodTextFormat(Report, 'weather_report') },
  });
  same(r.output_parsed, { city: 'Lima', forecast: 'foggy' }, 'responses.parse');
  check(r.text.format.type === 'json_schema' && r.text.format.name === 'weather_report', `responses.parse: text.format ${JSON.stringify(r.text)}`);
  out.responses = { parsed: r.output_parsed, text: r.output_text };

  const c = await client.chat.completions.parse({
    model: 'rlm',
    messages: [{ role: 'user', content: 'Quito is windy today. Report the weather in Quito.' }],
    response_format: zodResponseFormat(Report, 'weather_report'),
  });
  const m = c.choices[0].message;
  same(m.parsed, { city: 'Quito', forecast: 'windy' }, 'chat.completions.parse');
  check(m.refusal == null && c.choices[0].finish_reason === 'stop', `chat.completions.parse: ${JSON.stringify(c.choices[0])}`);
  out.chat = { parsed: m.parsed, content: m.content };
}

// The facts come from a tool the client runs.
{
  const executed = [];
  const tools = [zodResponsesFunction({ name: 'get_weather', description: 'The weather in a city today.', parameters: WeatherArgs })];
  const format = zodTextFormat(Report, 'weather_report');
  const first = await client.responses.parse({ model: 'rlm', input: 'What is the weather in Bern?', tools, text: { format } });
  const calls = first.output.filter((o) => o.type === 'function_call');
  check(first.status === 'completed' && calls.length === 1 && first.output_parsed == null, `responses.parse with a tool: ${JSON.stringify(first.output)}`);
  same(calls[0].parsed_arguments, { city: 'Bern' }, 'responses.parse: the call\'s parsed arguments');
  executed.push(calls[0].parsed_arguments.city);
  const second = await client.responses.parse({
    model: 'rlm',
    previous_response_id: first.id,
    input: [{ type: 'function_call_output', call_id: calls[0].call_id, output: 'hail' }],
    tools,
    text: { format },
  });
  same(second.output_parsed, { city: 'Bern', forecast: 'hail' }, 'responses.parse after the tool');
  out.responsesTool = { arguments: calls[0].parsed_arguments, parsed: second.output_parsed, executed };
}
{
  const tools = [zodFunction({ name: 'get_weather', description: 'The weather in a city today.', parameters: WeatherArgs })];
  const response_format = zodResponseFormat(Report, 'weather_report');
  const messages = [{ role: 'user', content: 'What is the weather in Graz?' }];
  const first = await client.chat.completions.parse({ model: 'rlm', messages, tools, response_format });
  const m = first.choices[0].message;
  check(first.choices[0].finish_reason === 'tool_calls' && (m.tool_calls || []).length === 1 && m.parsed == null,
    `chat.completions.parse with a tool: ${JSON.stringify(first.choices[0])}`);
  const call = m.tool_calls[0];
  same(call.function.parsed_arguments, { city: 'Graz' }, 'chat.completions.parse: the call\'s parsed arguments');
  messages.push(m, { role: 'tool', tool_call_id: call.id, content: 'sleet' });
  const second = await client.chat.completions.parse({ model: 'rlm', messages, tools, response_format });
  same(second.choices[0].message.parsed, { city: 'Graz', forecast: 'sleet' }, 'chat.completions.parse after the tool');
  out.chatTool = { arguments: call.function.parsed_arguments, parsed: second.choices[0].message.parsed };
}

console.log(JSON.stringify(out));
