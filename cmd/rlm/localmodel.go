package main

import (
	"fmt"
	"io"
	"strconv"

	"github.com/rlm-project/rlm/cmd/rlm/internal/cli"
	"github.com/rlm-project/rlm/inference"
	"github.com/rlm-project/rlm/inference/client"
	"github.com/rlm-project/rlm/models/tinydemo"
)

// builtinNoContext is the built-in model's answer to a question with no
// document: it was trained to read documents in the REPL, and anything
// else it would write is noise.
func builtinNoContext(offloadThreshold int) string {
	return "rlm-tiny-demo, the small model built into rlm, only answers questions about an attached document " +
		"(a file, or a message longer than " + thousands(offloadThreshold) + " characters): attach one and ask about it. " +
		"It is not a general assistant. For other questions, give rlm a real model: --upstream URL --root-model NAME " +
		"(any OpenAI-compatible server: OpenAI, vLLM, llama.cpp, Ollama), or set OPENAI_BASE_URL."
}

// thousands writes n with commas between its thousands: 16,000.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// builtinOffloadThreshold is the built-in model's offload threshold unless
// one is set: it reads text only through the REPL, so a message longer
// than the longest question the lookup helper takes from a message
// (lookup.Question's 1,000 characters) holds a document to offload, not
// one for the model to read itself (the default threshold, 16,000, left a
// 14 KB table pasted with its question unread).
const builtinOffloadThreshold = 1000

// builtinNoAnswer ends the answer of a run the built-in model could not
// finish: the question needs a real model.
const builtinNoAnswer = "(This needs a real model: rlm-tiny-demo, the small demo model built into rlm, only looks facts up in documents. " +
	"Give rlm an OpenAI-compatible model with --upstream URL --root-model NAME, or set OPENAI_BASE_URL.)"

// builtinNotice is the one line serve, query and eval write when the
// built-in model answers: what it is, what it scored, and how to use a
// real one.
func builtinNotice() string {
	s := "answering with the built-in demo model " + tinydemo.Name + ", which looks facts up in documents"
	if rec, err := tinydemo.RecordedEval(); err == nil {
		s += fmt.Sprintf(" (%d/%d held-out tasks)", rec.Solved, rec.Instances)
	}
	return s + "; set --upstream URL for a real model"
}

// fallBackToBuiltin makes the built-in model the local model of serve and
// query when neither an upstream nor --local-model is configured.
func (c *config) fallBackToBuiltin() {
	if c.Upstream == "" && c.LocalModel == "" {
		c.LocalModel = cli.ModelBuiltin
	}
}

// wantsLocal reports whether --local-model names a model to run.
func (c *config) wantsLocal() bool { return c.LocalModel != "" && c.LocalModel != cli.ModelNone }

// startLocalModel loads --local-model on --device and makes it the
// upstream of root turns and sub-calls; the root model defaults to its
// name. A GPU it runs on is named on log.
func (c *config) startLocalModel(log io.Writer) (*inference.Engine, error) {
	dev, err := cli.ParseDevice(c.Device, c.Precision)
	if err != nil {
		return nil, err
	}
	kv := c.KVCache
	if c.LocalModel == cli.ModelBuiltin && !c.explicit["kv-cache"] {
		// The default pool is sized for real checkpoints; the small
		// built-in model needs a fraction of it.
		kv = cli.BuiltinKVCache
	}
	ic, err := cli.ParseKVCache(kv)
	if err != nil {
		return nil, fmt.Errorf("kv-cache: %w", err)
	}
	if c.MaxSeqs <= 0 || c.MaxBatchTokens <= 0 {
		return nil, fmt.Errorf("max-seqs and max-batch-tokens must be positive")
	}
	// --model-window is the local model's window; auto (0) and off
	// (negative) leave it the model's own.
	ic.MaxSeqs, ic.MaxBatchTokens, ic.MaxModelLen = c.MaxSeqs, c.MaxBatchTokens, max(c.ContextWindow, 0)
	e, err := cli.LoadModel(c.LocalModel, ic, dev, log)
	if err != nil {
		return nil, err
	}
	if c.RootModel == "" {
		c.RootModel = e.Name()
	}
	// An unset temperature is OpenAI's default, 1, except for the built-in
	// model: it was trained and evaluated (eval.json) greedy, and a demo
	// should answer the same question the same way every time.
	temp := 1.0
	if c.LocalModel == cli.ModelBuiltin {
		temp = 0
	}
	c.Local = &client.Client{Engine: e, Temperature: temp}
	if c.LocalModel == cli.ModelBuiltin {
		if !c.explicit["offload-threshold"] {
			c.Limits.OffloadThreshold = builtinOffloadThreshold
		}
		c.NoContextAnswer, c.NoAnswerNote, c.GroundedAnswers = builtinNoContext(c.Limits.OffloadThreshold), builtinNoAnswer, true
	}
	return e, nil
}

// prepareRun readies the engine settings of `rlm query` and `rlm eval`: the
// built-in model when nothing else is configured (said on log unless
// quiet), a local model loaded (after the settings that need no model are
// checked, so that bad ones fail at once), then every check. release
// closes the local model; it is never nil.
func (c *config) prepareRun(log io.Writer, quiet bool) (release func(), err error) {
	release = func() {}
	c.fallBackToBuiltin()
	if c.wantsLocal() {
		if err := c.checkRun(); err != nil {
			return release, err
		}
		local, err := c.startLocalModel(log)
		if err != nil {
			return release, err
		}
		release = func() { local.Close() }
		if c.LocalModel == cli.ModelBuiltin && !quiet {
			fmt.Fprintln(log, "rlm: "+builtinNotice())
		}
	}
	if err := c.check(); err != nil {
		release()
		return func() {}, err
	}
	return release, nil
}
