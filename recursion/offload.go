package recursion

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/rlm-project/rlm/recursion/llm"
	"github.com/rlm-project/rlm/repl"
)

// previewChars is how much of the head and tail of an offloaded piece the
// model sees in its placeholder.
const previewChars = 160

// piece describes one offloaded input as the model sees it.
type piece struct {
	Index  int
	Label  string // "message 2 (user)" or `document "a.txt"`
	Chars  int
	Head   string
	Tail   string
	Tokens int
}

func (p piece) placeholder() string {
	return fmt.Sprintf("[offloaded: contexts[%d], %s, %d chars, ~%d tokens]\n  head: %q\n  tail: %q",
		p.Index, p.Label, p.Chars, p.Tokens, p.Head, p.Tail)
}

// partsPlaceholder stands for a document split into parts (a PDF's pages):
// one line for all of them, since a placeholder per page of a long PDF
// would fill the root's prompt, with the head of the first part and the
// tail of the last.
func partsPlaceholder(name string, parts []piece) string {
	if len(parts) == 1 {
		return parts[0].placeholder()
	}
	first, last := parts[0], parts[len(parts)-1]
	chars := 0
	for _, p := range parts {
		chars += p.Chars
	}
	return fmt.Sprintf("[offloaded: contexts[%d..%d], document %q, %d parts (%s to %s), one per contexts[i], %d chars, ~%d tokens]\n  head of %s: %q\n  tail of %s: %q",
		first.Index, last.Index, name, len(parts), partLabel(first.Label), partLabel(last.Label), chars, llm.EstimateTokens(chars),
		partLabel(first.Label), first.Head, partLabel(last.Label), last.Tail)
}

// partLabel is the part's own label ("page 3") within a piece's label.
func partLabel(label string) string {
	if i := strings.LastIndex(label, "\" "); i >= 0 {
		return label[i+2:]
	}
	return label
}

// offloaded is the input of one node after the offload rule: the text the
// model sees and, when anything was offloaded, the context file.
type offloaded struct {
	View string // the input as the model sees it
	// Query is the last user message when it stayed in view: the REPL's
	// query, so that code can take the exact words of the question (a key,
	// an ID) rather than the model copying them. Empty when that message
	// was offloaded (its text is in context).
	Query  string
	Pieces []piece
	File   *repl.ContextFile // nil when nothing was offloaded
}

// inputTokens estimates the tokens of the whole input: what was offloaded
// and what stayed in view.
func (o *offloaded) inputTokens() int {
	chars := len(o.View)
	for _, p := range o.Pieces {
		chars += p.Chars
	}
	return llm.EstimateTokens(chars)
}

// inputBytes is the size of the whole input in bytes: what was offloaded
// and what stayed in view.
func (o *offloaded) inputBytes() int64 {
	n := int64(len(o.View))
	if o.File != nil {
		for _, r := range o.File.Pieces {
			n += r.End - r.Start
		}
	}
	return n
}

// offload applies the offload rule to a node's input: messages longer than
// threshold characters and every document go, in order, into one context
// file in dir; the rest stays visible. When what stays visible would pass
// viewLimit characters (a conversation of many messages each under the
// threshold, too long for the model's window), the conversation goes into
// the file as one transcript piece instead, but for its leading system
// messages and its last messages, the question, which stay in view (see
// transcriptSpan). viewLimit 0 is no limit. Documents are streamed from
// disk. The caller removes the file (File.Path) when the node ends.
func offload(dir string, msgs []llm.Message, docs []Document, threshold, viewLimit int) (_ *offloaded, err error) {
	out := &offloaded{}
	var view strings.Builder
	var f *os.File
	var w *bufio.Writer
	var pos int64
	open := func() error {
		if f != nil {
			return nil
		}
		var err error
		f, err = os.CreateTemp(dir, "rlm-context-*.txt")
		if err != nil {
			return fmt.Errorf("create context file: %w", err)
		}
		w = bufio.NewWriterSize(f, 64<<10) // large pieces bypass it
		out.File = &repl.ContextFile{Path: f.Name()}
		return nil
	}
	defer func() {
		if f == nil {
			return
		}
		if ferr := w.Flush(); ferr != nil && err == nil {
			err = fmt.Errorf("write context file: %w", ferr)
		}
		if cerr := f.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close context file: %w", cerr)
		}
		if err != nil {
			os.Remove(f.Name())
			out.File = nil
		}
	}()
	// add writes one piece, separated from the previous by a blank line that
	// belongs to `context` but to no contexts[i].
	add := func(label string, r io.Reader) (piece, error) {
		if err := open(); err != nil {
			return piece{}, err
		}
		if len(out.Pieces) > 0 {
			n, err := w.WriteString("\n\n")
			pos += int64(n)
			if err != nil {
				return piece{}, fmt.Errorf("write context file: %w", err)
			}
		}
		pv := &previewWriter{}
		n, err := io.Copy(io.MultiWriter(w, pv), r)
		if err != nil {
			return piece{}, fmt.Errorf("copy %s into context file: %w", label, err)
		}
		out.File.Pieces = append(out.File.Pieces, repl.Range{Start: pos, End: pos + n})
		pos += n
		p := piece{Index: len(out.Pieces), Label: label, Chars: pv.chars, Tokens: llm.EstimateTokens(pv.chars), Head: pv.head(), Tail: pv.tail()}
		out.Pieces = append(out.Pieces, p)
		return p, nil
	}

	// msgs[head:tail] go into the file as one transcript piece.
	head, tail := 0, 0
	if viewLimit > 0 && viewChars(msgs, threshold) > viewLimit {
		head, tail = transcriptSpan(msgs, threshold, viewLimit)
	}
	for i, m := range msgs {
		role := roleOf(m)
		if role == "user" {
			out.Query = ""
		}
		if i >= head && i < tail {
			if i == head {
				p, err := add(fmt.Sprintf("messages %d-%d of the conversation, each a [role] line and then its text", head+1, tail), transcript(msgs[head:tail]))
				if err != nil {
					return nil, err
				}
				fmt.Fprintf(&view, "[conversation]\n%s\n\n", p.placeholder())
			}
			continue
		}
		if !longerThan(m.Content, threshold) {
			fmt.Fprintf(&view, "[%s]\n%s\n\n", role, m.Content)
			if role == "user" {
				out.Query = m.Content
			}
			continue
		}
		p, err := add(fmt.Sprintf("message %d (%s)", i+1, role), strings.NewReader(m.Content))
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&view, "[%s]\n%s\n\n", role, p.placeholder())
	}
	for _, d := range docs {
		if d.Path == "" {
			return nil, errors.New("document without a path")
		}
		df, err := os.Open(d.Path)
		if err != nil {
			return nil, fmt.Errorf("open document %q: %w", d.Name, err)
		}
		name := d.Name
		if name == "" {
			name = d.Path
		}
		if len(d.Parts) == 0 {
			p, err := add(fmt.Sprintf("document %q", name), df)
			df.Close()
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(&view, "[attached document]\n%s\n\n", p.placeholder())
			continue
		}
		var parts []piece
		for _, part := range d.Parts {
			p, err := add(fmt.Sprintf("document %q %s", name, part.Label), io.NewSectionReader(df, part.Start, part.End-part.Start))
			if err != nil {
				df.Close()
				return nil, err
			}
			parts = append(parts, p)
		}
		df.Close()
		fmt.Fprintf(&view, "[attached document]\n%s\n\n", partsPlaceholder(name, parts))
	}
	out.View = strings.TrimSpace(view.String())
	return out, nil
}

// placeholderChars bounds the characters of one placeholder in the view:
// its head and tail quoted (an escape may take 6 characters), and the rest.
const placeholderChars = 2*6*previewChars + 200

func roleOf(m llm.Message) string {
	if m.Role == "" {
		return "user"
	}
	return m.Role
}

// viewChars estimates, from above, the characters of the view the offload
// rule makes of msgs: short messages as they are, long ones as
// placeholders.
func viewChars(msgs []llm.Message, threshold int) int {
	n := 0
	for _, m := range msgs {
		n += viewCharsOf(m, threshold)
	}
	return n
}

func viewCharsOf(m llm.Message, threshold int) int {
	n := len(roleOf(m)) + 4 // "[role]\n" and the blank line after
	if longerThan(m.Content, threshold) {
		return n + placeholderChars
	}
	return n + len(m.Content)
}

// transcriptSpan chooses the messages msgs[head:tail] that go into the
// context as a transcript when the view would not fit viewLimit. The
// leading system messages are kept out of it while they take at most a
// quarter of the view (they are instructions), and the last messages while
// they take at most half (the question, and what led to it). Those kept
// out follow the usual rule: in view, or their own piece when long.
func transcriptSpan(msgs []llm.Message, threshold, viewLimit int) (head, tail int) {
	used := 0
	for ; head < len(msgs) && roleOf(msgs[head]) == "system"; head++ {
		n := viewCharsOf(msgs[head], threshold)
		if used+n > viewLimit/4 {
			break
		}
		used += n
	}
	used = 0
	for tail = len(msgs); tail > head; tail-- {
		n := viewCharsOf(msgs[tail-1], threshold)
		if used+n > viewLimit/2 {
			break
		}
		used += n
	}
	return head, tail
}

// transcript reads msgs as the view would show them, "[role]" and the
// text, separated by blank lines, without copying the texts.
func transcript(msgs []llm.Message) io.Reader {
	rs := make([]io.Reader, 0, 3*len(msgs))
	for i, m := range msgs {
		if i > 0 {
			rs = append(rs, strings.NewReader("\n\n"))
		}
		rs = append(rs, strings.NewReader("["+roleOf(m)+"]\n"), strings.NewReader(m.Content))
	}
	return io.MultiReader(rs...)
}

// previewWriter counts characters and keeps the head and tail of a stream
// without holding all of it.
type previewWriter struct {
	chars   int
	headBuf []byte
	tailBuf []byte
}

func (p *previewWriter) Write(b []byte) (int, error) {
	p.chars += countChars(b)
	if len(p.headBuf) < 4*previewChars {
		p.headBuf = append(p.headBuf, b[:min(len(b), 4*previewChars-len(p.headBuf))]...)
	}
	keep := 4 * previewChars
	if len(b) >= keep {
		p.tailBuf = append(p.tailBuf[:0], b[len(b)-keep:]...)
	} else {
		p.tailBuf = append(p.tailBuf, b...)
		if len(p.tailBuf) > keep {
			p.tailBuf = append(p.tailBuf[:0], p.tailBuf[len(p.tailBuf)-keep:]...)
		}
	}
	return len(b), nil
}

// WriteString is Write for a string, without converting it: io.Copy from a
// strings.Reader hands a whole message to io.MultiWriter, which would
// otherwise copy a 40 MB message into a []byte for a writer without it.
func (p *previewWriter) WriteString(s string) (int, error) {
	p.chars += countChars(s)
	if len(p.headBuf) < 4*previewChars {
		p.headBuf = append(p.headBuf, s[:min(len(s), 4*previewChars-len(p.headBuf))]...)
	}
	keep := 4 * previewChars
	if len(s) >= keep {
		p.tailBuf = append(p.tailBuf[:0], s[len(s)-keep:]...)
	} else {
		p.tailBuf = append(p.tailBuf, s...)
		if len(p.tailBuf) > keep {
			p.tailBuf = append(p.tailBuf[:0], p.tailBuf[len(p.tailBuf)-keep:]...)
		}
	}
	return len(s), nil
}

func (p *previewWriter) head() string {
	s := strings.ToValidUTF8(string(p.headBuf), "")
	if r := []rune(s); len(r) > previewChars {
		return string(r[:previewChars])
	}
	return s
}

func (p *previewWriter) tail() string {
	s := strings.ToValidUTF8(string(p.tailBuf), "")
	if r := []rune(s); len(r) > previewChars {
		return string(r[len(r)-previewChars:])
	}
	return s
}

// longerThan reports whether s has more than n characters (runes),
// counting only when the byte length leaves it open: a message of a
// million characters is not walked rune by rune to learn that it is long.
func longerThan(s string, n int) bool {
	switch {
	case len(s) <= n:
		return false
	case len(s) > utf8.UTFMax*n:
		return true
	}
	return utf8.RuneCountInString(s) > n
}

// countChars counts the bytes of b that are not UTF-8 continuation bytes
// (10xxxxxx): the characters of valid UTF-8, each stray byte of invalid
// UTF-8 one more. It reads 32 bytes at a time, as four 64-bit words (the
// compiler merges each word's byte loads into one), since whole offloaded
// inputs (tens of megabytes) pass through it.
func countChars[T string | []byte](b T) int {
	// A continuation byte has bit 7 set and bit 6 clear; x<<1 moves each
	// byte's bit 6 to its bit 7.
	const high = 0x8080808080808080
	cont, i := 0, 0
	for ; i+32 <= len(b); i += 32 {
		w := b[i : i+32]
		x0 := uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 | uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
		x1 := uint64(w[8]) | uint64(w[9])<<8 | uint64(w[10])<<16 | uint64(w[11])<<24 | uint64(w[12])<<32 | uint64(w[13])<<40 | uint64(w[14])<<48 | uint64(w[15])<<56
		x2 := uint64(w[16]) | uint64(w[17])<<8 | uint64(w[18])<<16 | uint64(w[19])<<24 | uint64(w[20])<<32 | uint64(w[21])<<40 | uint64(w[22])<<48 | uint64(w[23])<<56
		x3 := uint64(w[24]) | uint64(w[25])<<8 | uint64(w[26])<<16 | uint64(w[27])<<24 | uint64(w[28])<<32 | uint64(w[29])<<40 | uint64(w[30])<<48 | uint64(w[31])<<56
		cont += bits.OnesCount64(x0&^(x0<<1)&high) + bits.OnesCount64(x1&^(x1<<1)&high) +
			bits.OnesCount64(x2&^(x2<<1)&high) + bits.OnesCount64(x3&^(x3<<1)&high)
	}
	n := i - cont
	for ; i < len(b); i++ {
		if b[i]&0xC0 != 0x80 {
			n++
		}
	}
	return n
}
