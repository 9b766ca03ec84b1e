// Package eval generates long-context evaluation tasks, scores answers with
// the published rules of the benchmarks they imitate, and runs them through an
// RLM engine (and, as a baseline, through the model directly).
//
// Tasks:
//   - sniah: needle in a haystack, as in RULER: a single needle, or with
//     several keys (multi-key); values are numbers or UUIDs.
//   - records: counting and extraction over structured records.
//   - label-count: counting comments by sentiment, which needs sub-calls
//     (llm_query on chunks) and code to combine their answers.
//   - oolong: OOLONG-style aggregation over labelled records.
//   - oolong-pairs: OOLONG-Pairs-style questions about pairs of users.
//   - custom: instances read from a JSONL file.
//
// Questions of sniah, records and label-count come in held-in and held-out
// phrasing sets (TaskOptions.Phrasings): training data uses the first and
// evaluation the second, as it uses seeds training never saw.
//
// Generators are deterministic functions of (seed, index, length) and stream
// their context to an io.Writer, so a 10M-token input is written once to a
// file and never held in memory several times over.
//
// Lengths are in estimated tokens: CharsPerToken characters of the generated
// (ASCII, English) text count as one token. "8k" is 8*1024 tokens and "1m" is
// 1024*1024 tokens, as in RULER's sequence lengths.
package eval
