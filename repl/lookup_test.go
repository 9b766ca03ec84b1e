package repl

import (
	"strings"
	"testing"
)

// TestLookupHelpers checks that cells can call the document helpers of
// package document/lookup: lookup reads a value, lookup_lines lists the
// lines with the question's key words, and an empty question (one
// offloaded with its document) is found in the text.
func TestLookupHelpers(t *testing.T) {
	doc := strings.Repeat("filler line of the log\n", 1000) + "| host | port |\n|---|---|\n| db-3 | 5544 |\n"
	// The second piece is a question sent with its document, as in one
	// offloaded message.
	cf, err := WriteContext(t.TempDir(), []string{doc, "What port does db-3 use?"})
	if err != nil {
		t.Fatal(err)
	}
	p := newTestPool(t, 1)
	s, err := p.NewSession(t.Context(), SessionConfig{Context: cf, Query: "Which port does db-3 use?"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for code, want := range map[string]string{
		`fmt.Print(lookup(context, query))`:                                 "5544",
		`fmt.Print(lookup(contexts[0], "the uid of db-3?"))`:                "",
		`fmt.Print(lookup(context, ""))`:                                    "5544",
		`fmt.Print(strings.Join(lookup_lines(contexts[0], query, 1), "|"))`: "| db-3 | 5544 |",
	} {
		if r := run(t, s, code); r.Output != want || r.Error != "" {
			t.Errorf("%s: output %q, error %q; want %q", code, r.Output, r.Error, want)
		}
	}
}

// TestLookupKnowsFiles checks that lookup over the context itself is told
// where each attached file starts: a key near a file's start (Redis, at
// the head of the second file's log) is what the file is about, so the
// log's port line answers. A copy of the context is one text.
func TestLookupKnowsFiles(t *testing.T) {
	before := strings.Repeat("the worker drains the queue when the timer fires, and logs it\n", 200)
	log := "1:C 11 Mar 2025 03:10:05.497 # oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo\n" +
		"1:C 11 Mar 2025 03:10:12.181 # Redis version=7.0.15, bits=64, commit=00000000, modified=0, pid=1, just started\n" +
		"1:C 11 Mar 2025 03:10:17.742 # Configuration loaded\n" +
		"1:M 11 Mar 2025 03:10:30.606 * Running mode=standalone, port=6380.\n" +
		"1:M 11 Mar 2025 03:10:35.176 # Server initialized\n"
	cf, err := WriteContext(t.TempDir(), []string{before, log, before})
	if err != nil {
		t.Fatal(err)
	}
	p := newTestPool(t, 1)
	s, err := p.NewSession(t.Context(), SessionConfig{Context: cf, Query: "Which port is the Redis server listening on?"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for code, want := range map[string]string{
		`fmt.Print(lookup(context, query))`:                       "6380",
		`fmt.Print(lookup(string([]byte(context)), query) == "")`: "true",
	} {
		if r := run(t, s, code); r.Output != want || r.Error != "" {
			t.Errorf("%s: output %q, error %q; want %q", code, r.Output, r.Error, want)
		}
	}
}
