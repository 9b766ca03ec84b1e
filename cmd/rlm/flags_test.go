package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/rlm-project/rlm/cmd/rlm/internal/cli"
)

// TestBadFlagOneLine: a retired or mistyped flag gets one line naming what
// to use, and exit status 2, in every command; not the whole help.
func TestBadFlagOneLine(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--api-keys", "k"}, "rlm serve: --api-keys was renamed --api-key"},
		{[]string{"serve", "--local-kv-cache=1GiB"}, "rlm serve: --local-kv-cache was renamed --kv-cache"},
		{[]string{"query", "--local-max-model-len", "8192", "q"}, "rlm query: --local-max-model-len was renamed --model-window"},
		{[]string{"query", "--sampling-seed", "1", "q"}, "rlm query: --sampling-seed was renamed --seed"},
		{[]string{"query", "--api-key", "k", "q"}, "rlm query: --api-key was renamed --upstream-key"},
		{[]string{"query", "--concurrency", "4", "q"}, "rlm query: --concurrency was renamed --call-concurrency"},
		{[]string{"eval", "--concurrency", "4"}, "rlm eval: --concurrency was renamed --parallel"},
		{[]string{"eval", "--context-window", "4k"}, "rlm eval: --context-window was renamed --model-window"},
		{[]string{"eval", "--max-tokens", "9"}, "rlm eval: --max-tokens was renamed --max-total-tokens"},
		{[]string{"model", "serve", "--max-model-len", "9", "dir"}, "rlm model serve: --max-model-len was renamed --model-window"},
		{[]string{"model", "serve", "--api-keys", "k", "dir"}, "rlm model serve: --api-keys was renamed --api-key"},
		{[]string{"train", "rl", "--max-tokens", "9"}, "rlm train rl: --max-tokens was renamed --max-completion-tokens"},
		{[]string{"train", "rl", "--kv-cache-tokens", "9"}, "rlm train rl: --kv-cache-tokens was renamed --kv-cache"},
		{[]string{"train", "rl", "-max-calls", "9"}, "rlm train rl: --max-calls was renamed --max-llm-calls"},
		{[]string{"serve", "--kv-cach", "1GiB"}, "rlm serve: unknown flag --kv-cach (did you mean --kv-cache?); `rlm serve -h` lists its flags"},
		{[]string{"train", "sft", "--setps", "9"}, "rlm train sft: unknown flag --setps (did you mean --steps?)"},
		{[]string{"traces", "list", "--zzzzzzzz"}, "rlm traces list: unknown flag --zzzzzzzz; `rlm traces list -h` lists its flags"},
		{[]string{"eval", "--n", "x"}, `rlm eval: invalid value "x" for flag --n: parse error`},
		{[]string{"train", "init", "--out"}, "rlm train init: flag needs an argument: --out"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(t.Context(), tc.args, &stdout, &stderr)
		if code != 2 {
			t.Errorf("%q: exit %d, want 2 (stderr %q)", tc.args, code, stderr.String())
		}
		if lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], tc.want) {
			t.Errorf("%q: stderr\n%s\nwant one line starting %q", tc.args, stderr.String(), tc.want)
		}
		if stdout.Len() > 0 {
			t.Errorf("%q: wrote %q to stdout", tc.args, stdout.String())
		}
	}
}

// TestRenamedEnvRefused: an old variable left in a deployment stops the
// command, naming the new one; RLM_API_KEYS ignored would open the server.
func TestRenamedEnvRefused(t *testing.T) {
	for env, want := range map[string]string{
		"RLM_API_KEYS":       "environment variable RLM_API_KEYS was renamed RLM_API_KEY",
		"RLM_LOCAL_KV_CACHE": "environment variable RLM_LOCAL_KV_CACHE was renamed RLM_KV_CACHE",
		"RLM_LOCAL_MAX_SEQS": "environment variable RLM_LOCAL_MAX_SEQS was renamed RLM_MAX_SEQS",
	} {
		_, err := loadServeConfig(nil, cli.Env{Getenv: func(k string) string {
			if k == env {
				return "x"
			}
			return ""
		}}, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s set: %v, want %q", env, err, want)
		}
	}
}

// TestHelpUsesTwoDashes: every command's help writes its flags one way,
// with two dashes, as its errors do.
func TestHelpUsesTwoDashes(t *testing.T) {
	oneDash := regexp.MustCompile("(?m)(^\\s+|[ (`])-[a-z][a-z0-9-]+[a-z0-9]\\b")
	for _, args := range [][]string{{"serve"}, {"query"}, {"eval"}, {"model", "serve"}, {"train", "sft"}, {"train", "rl"},
		{"train", "init"}, {"train", "tokenizer"}, {"traces", "list"}, {"traces", "export"}} {
		var stdout, stderr bytes.Buffer
		if code := run(t.Context(), append(args, "-h"), &stdout, &stderr); code != 0 {
			t.Fatalf("%q -h: exit %d: %s", args, code, stderr.String())
		}
		help := stdout.String() + stderr.String()
		if !strings.Contains(help, "  --") {
			t.Errorf("%q -h lists no flags:\n%s", args, help)
		}
		if m := oneDash.FindString(help); m != "" {
			t.Errorf("%q -h names a flag with one dash: %q", args, m)
		}
	}
}

// TestHelpHeadingsHaveFlags: no command's help prints a heading of flags
// with none under it (rlm help serve once printed an empty "Flags:").
func TestHelpHeadingsHaveFlags(t *testing.T) {
	t.Parallel()
	for name, c := range commands() {
		for _, s := range c.Tables(cli.Env{}) {
			var out bytes.Buffer
			run(t.Context(), append([]string{"help"}, strings.Fields(s.Command())...), &out, &out)
			lines := strings.Split(out.String(), "\n")
			headings := 0
			for i, l := range lines {
				if l == "Flags:" || strings.HasPrefix(l, "Settings (") {
					headings++
					if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "  --") {
						t.Errorf("rlm help %s: heading %q has no flag under it:\n%s", s.Command(), l, out.String())
					}
				}
			}
			if headings == 0 {
				t.Errorf("rlm help %s (%s): no heading of flags:\n%s", s.Command(), name, out.String())
			}
		}
	}
}
