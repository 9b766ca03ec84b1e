// Reference tokenizer for the Go tests of model/tokenizer.
//
// Reads a JSON request on stdin:
//   {"dir": "<dir with tokenizer.json and tokenizer_config.json>",
//    "texts": ["..."], "chats": [[{"role": "...", "content": "..."}, ...]],
//    "prompts": [[...messages...]]}
// and writes {"ids": [[...]], "chats": [{"text": "...", "ids": [...]}], "prompts": [...]}:
// the ids of each text from @lenml/tokenizers (a port of transformers.js,
// independent of the Go code), and each chat rendered by the real Jinja chat
// template of tokenizer_config.json through @huggingface/jinja, then tokenized
// (prompts with add_generation_prompt true, chats with it false).
import fs from "node:fs";
import path from "node:path";
import { TokenizerLoader } from "@lenml/tokenizers";
import { Template } from "@huggingface/jinja";

const req = JSON.parse(fs.readFileSync(0, "utf8"));
const tokenizerJSON = JSON.parse(fs.readFileSync(path.join(req.dir, "tokenizer.json"), "utf8"));
const tokenizerConfig = JSON.parse(fs.readFileSync(path.join(req.dir, "tokenizer_config.json"), "utf8"));
const tok = TokenizerLoader.fromPreTrained({ tokenizerJSON, tokenizerConfig });
const encode = (text) => Array.from(tok.encode(text, { add_special_tokens: false }));

const out = { ids: (req.texts ?? []).map(encode), chats: [], prompts: [] };
const template = new Template(tokenizerConfig.chat_template);
const render = (messages, add_generation_prompt) => {
  const text = template.render({ messages, add_generation_prompt });
  return { text, ids: encode(text) };
};
for (const messages of req.chats ?? []) out.chats.push(render(messages, false));
for (const messages of req.prompts ?? []) out.prompts.push(render(messages, true));
process.stdout.write(JSON.stringify(out));
