// Sends documents to a running `rlm serve` with the official OpenAI client:
// a PDF uploaded with files.create and referenced in a message, the same
// PDF inline as a file part, and an ELF binary, which must be refused with
// the SDK's BadRequestError. Run by cmd/rlm's TestNodeSDKDocuments, which
// starts the server against a fake upstream (a scripted test double, not a
// model). Env: RLM_BASE_URL, RLM_KEY, RLM_PDF (path of a PDF).
// Prints one JSON line of results; exits non-zero on the first failed check.
import { readFileSync } from 'node:fs';
import OpenAI, { toFile } from 'openai';

const client = new OpenAI({ baseURL: process.env.RLM_BASE_URL, apiKey: process.env.RLM_KEY, maxRetries: 0 });
const pdf = readFileSync(process.env.RLM_PDF);
const results = {};

function check(cond, msg) {
  if (!cond) {
    console.error('FAILED: ' + msg);
    process.exit(1);
  }
}

const question = { type: 'text', text: 'Which page talks about tides?' };
const uploaded = await client.files.create({
  file: await toFile(pdf, 'coast.pdf', { type: 'application/pdf' }),
  purpose: 'user_data',
});
check(uploaded.bytes === pdf.length, 'files.create: ' + JSON.stringify(uploaded));
const byID = await client.chat.completions.create({
  model: 'rlm',
  messages: [{ role: 'user', content: [question, { type: 'file', file: { file_id: uploaded.id } }] }],
});
results.uploaded = byID.choices[0].message.content;

const inline = await client.chat.completions.create({
  model: 'rlm',
  messages: [{ role: 'user', content: [question, { type: 'file', file: {
    filename: 'coast.pdf', file_data: 'data:application/pdf;base64,' + pdf.toString('base64') } }] }],
});
results.inline = inline.choices[0].message.content;

const elf = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]), Buffer.alloc(4096, 7)]);
try {
  await client.files.create({ file: await toFile(elf, 'tool', { type: 'application/octet-stream' }), purpose: 'user_data' });
  check(false, 'an ELF upload was accepted');
} catch (e) {
  check(e instanceof OpenAI.BadRequestError, `ELF upload: got ${e && e.constructor && e.constructor.name}: ${e}`);
  results.elf = { status: e.status, param: e.param, code: e.code, message: e.message };
}
console.log(JSON.stringify(results));
