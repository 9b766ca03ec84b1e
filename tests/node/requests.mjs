// A fetch for the clients under test that records each request it sends
// to `rlm serve`, summed up the way cmd/rlm's checkToolRoundTrip reads
// it: the tools offered, the calls sent back and the outputs carried (as
// chat messages or as Responses items), the response it follows, the
// response format asked for, and the trace the server ran it in.
export function recordingFetch() {
  const requests = [];
  const fetchAndRecord = async (url, init) => {
    const body = init && typeof init.body === 'string' ? JSON.parse(init.body) : {};
    const resp = await fetch(url, init);
    requests.push({ path: new URL(url).pathname, trace: resp.headers.get('x-rlm-trace-id') || '', ...summary(body) });
    return resp;
  };
  return { fetch: fetchAndRecord, requests };
}

function summary(body) {
  if (Array.isArray(body.messages)) {
    const msgs = body.messages;
    return {
      tools: (body.tools || []).map((t) => t.function.name),
      previous: '',
      calls: msgs.flatMap((m) => (m.tool_calls || []).map((c) => c.id)),
      outputs: msgs.filter((m) => m.role === 'tool').map((m) => ({ id: m.tool_call_id, content: text(m.content) })),
      format: body.response_format ? body.response_format.type : '',
    };
  }
  const input = Array.isArray(body.input) ? body.input : [];
  return {
    tools: (body.tools || []).map((t) => t.name),
    previous: body.previous_response_id || '',
    calls: input.filter((it) => it.type === 'function_call').map((it) => it.call_id),
    outputs: input.filter((it) => it.type === 'function_call_output').map((it) => ({ id: it.call_id, content: text(it.output) })),
    format: body.text && body.text.format ? body.text.format.type : '',
  };
}

// text is a message's or an output's content as a string.
function text(c) {
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c.map((p) => p.text || '').join('');
  return JSON.stringify(c);
}
