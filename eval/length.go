package eval

import (
	"fmt"
	"strconv"
	"strings"
)

// CharsPerToken is the estimate used to turn a length in tokens into a size
// in characters. Four characters per token is the usual figure for English
// prose under GPT- and Qwen-style BPE tokenizers; the generated text is
// plain ASCII English, so characters and bytes are the same.
const CharsPerToken = 4

// EstimateTokens returns the estimated token count of n bytes of text.
func EstimateTokens(n int64) int {
	return int((n + CharsPerToken - 1) / CharsPerToken)
}

// ParseLength parses a length such as "8k", "128K", "1m", "10M" or "5000".
// The suffix k means 1024 tokens and m means 1024*1024 tokens.
func ParseLength(s string) (int, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	mult := 1
	switch {
	case strings.HasSuffix(t, "k"):
		mult, t = 1<<10, strings.TrimSuffix(t, "k")
	case strings.HasSuffix(t, "m"):
		mult, t = 1<<20, strings.TrimSuffix(t, "m")
	}
	n, err := strconv.Atoi(t)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("length %q: want a positive number with an optional k or m suffix", s)
	}
	if n > (1<<40)/mult {
		return 0, fmt.Errorf("length %q: too large", s)
	}
	return n * mult, nil
}

// ParseLengths parses a comma-separated list of lengths.
func ParseLengths(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if strings.TrimSpace(f) == "" {
			continue
		}
		n, err := ParseLength(f)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no lengths in %q", s)
	}
	return out, nil
}

// FormatLength writes a token count the way ParseLength reads it, using the
// largest suffix that divides it exactly ("128K", "10M", "5000").
func FormatLength(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.Itoa(n>>20) + "M"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.Itoa(n>>10) + "K"
	}
	return strconv.Itoa(n)
}

// LengthBucket returns the length a custom instance of n estimated tokens
// is reported under: the smallest power of two times 1K that holds it (1K,
// 2K, 4K, ...), so "8K" holds the instances of more than 4K and at most 8K
// tokens. Reported at their exact lengths, instances of a custom file would
// each get a row and a chart position of their own.
func LengthBucket(n int) int {
	b := 1 << 10
	for b < n {
		b <<= 1
	}
	return b
}
