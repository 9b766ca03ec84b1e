package inference

import (
	"strings"
	"unicode/utf8"

	"github.com/rlm-project/rlm/model/tokenizer"
)

// textStream turns sampled tokens into text as they come. Special tokens
// (<|im_end|>, ...) add no text, as with Hugging Face's
// skip_special_tokens. It holds back an unfinished UTF-8 character, and any
// tail that could still become a stop string, so streamed text never has
// to be taken back; the stop string itself is never part of the text.
type textStream struct {
	tok     *tokenizer.Tokenizer
	special map[int32]bool
	stops   []string
	maxStop int
	buf     []byte
	sent    int
}

func newTextStream(tok *tokenizer.Tokenizer, special map[int32]bool, stops []string) *textStream {
	s := &textStream{tok: tok, special: special}
	for _, st := range stops {
		if st != "" {
			s.stops = append(s.stops, st)
			s.maxStop = max(s.maxStop, len(st))
		}
	}
	return s
}

// push adds one token and returns the text that became safe to show, and
// whether a stop string ended the text.
func (s *textStream) push(id int32) (delta string, stopped bool) {
	if s.special[id] {
		return "", false
	}
	old := len(s.buf)
	s.buf = append(s.buf, s.tok.TokenBytes(int(id))...)
	if len(s.stops) > 0 {
		from := max(0, old-s.maxStop+1)
		first := -1
		for _, st := range s.stops {
			if i := strings.Index(string(s.buf[from:]), st); i >= 0 && (first < 0 || from+i < first) {
				first = from + i
			}
		}
		if first >= 0 {
			s.buf = s.buf[:first]
			return s.take(len(s.buf)), true
		}
	}
	end := max(s.sent, len(s.buf)-max(s.maxStop-1, 0))
	// Back off to the start of an unfinished character.
	for i := end - 1; i >= s.sent && i >= end-utf8.UTFMax; i-- {
		if utf8.RuneStart(s.buf[i]) {
			if !utf8.FullRune(s.buf[i:end]) {
				end = i
			}
			break
		}
	}
	return s.take(end), false
}

// flush returns whatever is held back, at the end of generation.
func (s *textStream) flush() string { return s.take(len(s.buf)) }

func (s *textStream) take(end int) string {
	if end <= s.sent {
		return ""
	}
	d := string(s.buf[s.sent:end])
	s.sent = end
	return d
}

// text is everything shown so far plus what is held back.
func (s *textStream) text() string { return string(s.buf) }
