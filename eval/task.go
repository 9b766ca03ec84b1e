package eval

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"sort"
	"strings"
)

// Spec picks one instance of a task.
type Spec struct {
	Tokens int   // target context length in estimated tokens
	Index  int   // instance number, 0-based
	Seed   int64 // run seed; with Index and Tokens it fixes the instance
}

// Instance is what a generator produced: the question, the gold answer and
// how to score it. The context itself went to the generator's writer.
type Instance struct {
	Task     string            `json:"task"`
	Tokens   int               `json:"tokens"` // requested length
	Index    int               `json:"index"`
	Seed     int64             `json:"seed"`
	Question string            `json:"question"`
	Answer   string            `json:"answer"`             // gold answer as text
	Expected []string          `json:"expected,omitempty"` // values the "sniah" and "contains" scorers look for
	Scorer   string            `json:"scorer"`
	Bytes    int64             `json:"bytes"` // size of the context written
	Meta     map[string]string `json:"meta,omitempty"`
	// Documents are further files attached after the context, read
	// where they are (custom tasks' context_files).
	Documents []string `json:"documents,omitempty"`
	// Inline, when set, sends the context in the user message with the
	// question instead of attaching it: InlineQuestionFirst or
	// InlineQuestionLast.
	Inline string `json:"inline,omitempty"`
}

// Where an inline instance's question goes in its one message.
const (
	InlineQuestionFirst = "question-first"
	InlineQuestionLast  = "question-last"
)

// Task generates instances.
type Task interface {
	Name() string
	// Generate writes the context of one instance to w and returns the
	// instance. It must be a pure function of spec.
	Generate(ctx context.Context, w io.Writer, spec Spec) (Instance, error)
}

// FixedTask is a Task whose instances are a fixed list (a JSONL file) rather
// than a function of the requested length.
type FixedTask interface {
	Task
	Len() int
	// Tokens is the estimated length of instance i's context.
	Tokens(i int) int
}

// NewTask returns the built-in task called name. custom tasks need a file;
// use LoadCustom for them.
func NewTask(name string, opts TaskOptions) (Task, error) {
	if err := CheckPhrasings(opts.Phrasings); err != nil {
		return nil, err
	}
	switch name {
	case "sniah":
		return &SNIAH{Haystack: opts.Haystack, UUID: opts.UUIDValues, Depth: opts.Depth, Keys: opts.Keys, Phrasings: opts.Phrasings}, nil
	case "records":
		return Records{Phrasings: opts.Phrasings}, nil
	case "label-count":
		return LabelCount{Phrasings: opts.Phrasings}, nil
	case "docs":
		return &Docs{Source: opts.Source, Phrasings: opts.Phrasings}, nil
	case "oolong":
		return &Oolong{}, nil
	case "oolong-pairs":
		return &OolongPairs{}, nil
	}
	return nil, fmt.Errorf("unknown task %q (want one of %s)", name, strings.Join(TaskNames(), ", "))
}

// TaskNames lists the built-in tasks.
func TaskNames() []string {
	n := []string{"sniah", "docs", "oolong", "oolong-pairs", "records", "label-count"}
	sort.Strings(n)
	return n
}

// TaskOptions configure the built-in tasks.
type TaskOptions struct {
	Haystack   string  // sniah: text file used as haystack instead of the noise sentences
	UUIDValues bool    // sniah: needle values are UUIDs instead of 7-digit numbers
	Depth      float64 // sniah: needle depth in [0,1]; negative means random per instance
	Keys       int     // sniah: needles with distinct keys (multi-key when > 1)
	// Phrasings picks the question wordings of sniah, records and
	// label-count: PhrasingsHeldIn, PhrasingsHeldOut, or empty for each
	// task's original one. For docs it picks the half of everything
	// (sources, needle forms, wordings); empty is the held-out half.
	Phrasings string
	// Source is docs' kind of haystack (one of DocSources); empty: a
	// random one per instance.
	Source string
}

// newRand returns the random source of one instance. Mixing the task name,
// length and index into the PCG state makes instances independent of one
// another and of the order in which they are generated.
func newRand(task string, spec Spec) *rand.Rand {
	var h uint64 = 14695981039346656037
	for _, c := range []byte(task) {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return rand.New(rand.NewPCG(uint64(spec.Seed)^h, uint64(spec.Tokens)<<20^uint64(spec.Index)))
}

// countWriter counts and buffers what goes to w.
type countWriter struct {
	bw  *bufio.Writer
	n   int64
	err error
}

func newCountWriter(w io.Writer) *countWriter {
	return &countWriter{bw: bufio.NewWriterSize(w, 1<<16)}
}

func (c *countWriter) WriteString(s string) {
	if c.err != nil {
		return
	}
	n, err := c.bw.WriteString(s)
	c.n += int64(n)
	c.err = err
}

func (c *countWriter) Flush() error {
	if c.err != nil {
		return c.err
	}
	return c.bw.Flush()
}
