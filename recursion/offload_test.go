package recursion

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestCountChars checks the word-at-a-time count against the byte
// by byte rule (every byte that is not a continuation byte) on ASCII,
// multi-byte text, invalid UTF-8 and random bytes of lengths 0 to 99, on
// both sides of the 32-byte blocks it reads.
func TestCountChars(t *testing.T) {
	naive := func(s string) int {
		n := 0
		for i := 0; i < len(s); i++ {
			if s[i]&0xC0 != 0x80 {
				n++
			}
		}
		return n
	}
	inputs := []string{"", "a", "abcdefg", "abcdefgh", "abcdefghi", "héllo wörld, ça va? 日本語のテキスト 🎉🎉", "\x80\x80\xbf\xc3", "\xff\xfe" + strings.Repeat("é", 9)}
	r := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		b := make([]byte, r.IntN(100))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		inputs = append(inputs, string(b))
	}
	for _, s := range inputs {
		if got, want := countChars(s), naive(s); got != want {
			t.Errorf("countChars(%q) = %d, want %d", s, got, want)
		}
		if got, want := countChars([]byte(s)), naive(s); got != want {
			t.Errorf("countChars([]byte(%q)) = %d, want %d", s, got, want)
		}
		if utf8.ValidString(s) && countChars(s) != utf8.RuneCountInString(s) {
			t.Errorf("countChars(%q) = %d runes, utf8 says %d", s, countChars(s), utf8.RuneCountInString(s))
		}
	}
}

func TestLongerThan(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want bool
	}{
		{"", 0, false},
		{"abc", 3, false},
		{"abcd", 3, true},
		{"ééé", 3, false}, // 6 bytes, 3 characters
		{"éééé", 3, true},
		{"🎉🎉🎉", 3, false}, // 12 bytes: the most 3 characters can take
		{"🎉🎉🎉a", 3, true},
		{strings.Repeat("x", 1_000_000), 100_000, true},
	}
	for _, tt := range tests {
		if got := longerThan(tt.s, tt.n); got != tt.want {
			t.Errorf("longerThan(%q, %d) = %v, want %v", tt.s, tt.n, got, tt.want)
		}
	}
}
