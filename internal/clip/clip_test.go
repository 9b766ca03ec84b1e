package clip

import (
	"testing"
	"unicode/utf8"
)

func TestClip(t *testing.T) {
	for _, tc := range []struct {
		s          string
		n          int
		head, tail string
		ellipsis   string
	}{
		{"hello", 10, "hello", "hello", "hello"},
		{"hello", 5, "hello", "hello", "hello"},
		{"hello", 4, "hell", "ello", "h…"},
		{"hello", 0, "", "", "…"},
		{"hello", -1, "", "", "…"},
		{"", 3, "", "", ""},
		// é is two bytes, 世 three: a cut inside one moves to its edge.
		{"aé", 2, "a", "é", "…"},
		{"世界", 4, "世", "界", "…"},
		{"世界", 5, "世", "界", "…"},
		{"ab世界", 6, "ab世", "世界", "ab…"},
	} {
		head, tail, ell := Head(tc.s, tc.n), Tail(tc.s, tc.n), Ellipsis(tc.s, tc.n)
		if head != tc.head || tail != tc.tail || ell != tc.ellipsis {
			t.Errorf("%q, %d: Head %q Tail %q Ellipsis %q, want %q %q %q", tc.s, tc.n, head, tail, ell, tc.head, tc.tail, tc.ellipsis)
		}
		for _, got := range []string{head, tail, ell} {
			if !utf8.ValidString(got) {
				t.Errorf("%q, %d: %q is not valid UTF-8", tc.s, tc.n, got)
			}
		}
	}
}
