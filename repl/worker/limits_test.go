package worker

import (
	"strings"
	"testing"
)

func TestElideValues(t *testing.T) {
	ctx := strings.Repeat("c", 300)
	for _, tc := range []struct{ in, want string }{
		{"line 1: cannot assign to " + ctx + " (string constant)", "line 1: cannot assign to context (string, 300 bytes) (string constant)"},
		{"line 2: cannot assign to " + strings.Repeat("v", 400) + " (untyped string constant)\nnext", "line 2: cannot assign to a constant (string, 400 bytes) (untyped string constant)\nnext"},
		{"line 3: cannot assign to x (untyped int constant)", "line 3: cannot assign to x (untyped int constant)"},
		{"short " + ctx[:10], "short " + ctx[:10]},
	} {
		if got := elideValues(tc.in, map[string]string{"context": ctx}); got != tc.want {
			t.Errorf("elideValues(%.60q) = %.120q, want %.120q", tc.in, got, tc.want)
		}
	}
}
