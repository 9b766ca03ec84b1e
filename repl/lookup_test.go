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
