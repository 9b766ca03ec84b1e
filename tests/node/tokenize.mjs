// Reference tokenizer for the Go tests of training/tokenizer.
//
// Reads a JSON request on stdin:
//   {"dir": "<dir with tokenizer.json and tokenizer_config.json>",
//    "texts": ["..."], "chats": [[{"role": "...", "content": "..."}, ...]]}
// and writes {"ids": [[...]], "chats": [{"text": "...", "ids": [...]}]}:
// the ids of each text from @lenml/tokenizers (a port of transformers.js,
// independent of the Go code), and each chat rendered by the real Jinja chat
// template of tokenizer_config.json through @huggingface/jinja, then tokenized.
import fs from "node:fs";
import path from "node:path";
import { TokenizerLoader } from "@lenml/tokenizers";
import { Template } from "@huggingface/jinja";

const req = JSON.parse(fs.readFileSync(0, "utf8"));
const tokenizerJSON = JSON.parse(fs.readFileSync(path.join(req.dir, "tokenizer.json"), "utf8"));
const tokenizerConfig = JSON.parse(fs.readFileSync(path.join(req.dir, "tokenizer_config.json"), "utf8"));
const tok = TokenizerLoader.fromPreTrained({ tokenizerJSON, tokenizerConfig });
const encode = (text) => Array.from(tok.encode(text, { add_special_tokens: false }));

const out = { ids: (req.texts ?? []).map(encode), chats: [] };
if (req.chats?.length) {
  const template = new Template(tokenizerConfig.chat_template);
  for (const messages of req.chats) {
    const text = template.render({ messages, add_generation_prompt: false });
    out.chats.push({ text, ids: encode(text) });
  }
}
process.stdout.write(JSON.stringify(out));
