package eval

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// noiseSentences is RULER's "noise" haystack: the same few sentences,
// repeated, so that nothing in the haystack resembles the needle.
var noiseSentences = []string{
	"The grass is green.", "The sky is blue.", "The sun is yellow.",
	"Here we go.", "There and back again.",
}

var keyAdjectives = []string{
	"abrasive", "agreeable", "ancient", "brave", "bright", "calm", "clumsy", "curious",
	"damp", "eager", "elegant", "fancy", "fierce", "gentle", "gigantic", "grumpy",
	"hollow", "icy", "jolly", "lazy", "lively", "massive", "nervous", "obnoxious",
	"polite", "quaint", "rapid", "rustic", "shiny", "silent", "tender", "vivid",
}

var keyNouns = []string{
	"anchor", "badger", "banjo", "cactus", "canyon", "comet", "dolphin", "falcon",
	"fairy", "glacier", "harbor", "island", "kettle", "lantern", "meadow", "monsoon",
	"orchid", "pebble", "quartz", "raven", "saddle", "spindle", "thunder", "tulip",
	"velvet", "walrus", "willow", "zephyr", "biscuit", "compass", "garnet", "sparrow",
}

// SNIAH is the single-needle task of RULER: one sentence "One of the special
// magic numbers for KEY is: VALUE." hidden in a haystack, and a question
// asking for VALUE.
type SNIAH struct {
	// Haystack is a text file repeated as often as needed; empty means
	// RULER's noise sentences. It must not contain "special magic".
	Haystack string
	// UUID makes the values UUIDs instead of 7-digit numbers.
	UUID bool
	// Depth is where the needle goes, as a fraction of the context; a
	// negative value picks a uniformly random depth per instance.
	Depth float64
}

// Name implements Task. Options other than the defaults are part of the
// name ("sniah[uuid,depth=0.50]"), so that results of different variants
// never mix in one results file or table row.
func (t *SNIAH) Name() string {
	var v []string
	if t.UUID {
		v = append(v, "uuid")
	}
	if t.Depth >= 0 {
		v = append(v, fmt.Sprintf("depth=%.2f", min(t.Depth, 1)))
	}
	if t.Haystack != "" {
		v = append(v, "haystack="+filepath.Base(t.Haystack))
	}
	if len(v) == 0 {
		return "sniah"
	}
	return "sniah[" + strings.Join(v, ",") + "]"
}

// Generate implements Task.
func (t *SNIAH) Generate(ctx context.Context, w io.Writer, spec Spec) (Instance, error) {
	if spec.Tokens <= 0 {
		return Instance{}, fmt.Errorf("sniah: length %d tokens: must be positive", spec.Tokens)
	}
	r := newRand(t.Name(), spec)
	key := keyAdjectives[r.IntN(len(keyAdjectives))] + "-" + keyNouns[r.IntN(len(keyNouns))]
	kind, value := "numbers", strconv.Itoa(1_000_000+r.IntN(9_000_000))
	if t.UUID {
		kind, value = "uuids", uuid(r)
	}
	depth := t.Depth
	if depth < 0 {
		depth = r.Float64()
	}
	if depth > 1 {
		depth = 1
	}
	needle := fmt.Sprintf("One of the special magic %s for %s is: %s.", kind, key, value)
	target := int64(spec.Tokens) * CharsPerToken
	insertAt := int64(depth * float64(target-int64(len(needle))))

	cw := newCountWriter(w)
	var err error
	if t.Haystack == "" {
		err = writeNoise(ctx, cw, target, insertAt, needle)
	} else {
		err = writeFileHaystack(ctx, cw, t.Haystack, target, insertAt, needle)
	}
	if err == nil {
		err = cw.Flush()
	}
	if err != nil {
		return Instance{}, fmt.Errorf("sniah: write haystack: %w", err)
	}
	single := kind[:len(kind)-1]
	return Instance{
		Task:   t.Name(),
		Tokens: spec.Tokens, Index: spec.Index, Seed: spec.Seed,
		Question: fmt.Sprintf("What is the special magic %s for %s mentioned in the provided text? "+
			"Answer with the %s itself.", single, key, single),
		Answer:   value,
		Expected: []string{value},
		Scorer:   "sniah",
		Bytes:    cw.n,
		Meta:     map[string]string{"key": key, "depth": strconv.FormatFloat(depth, 'f', 3, 64)},
	}, nil
}

// writeNoise writes noise sentences up to target bytes with the needle at the
// first sentence boundary at or after insertAt.
func writeNoise(ctx context.Context, cw *countWriter, target, insertAt int64, needle string) error {
	inserted := false
	for i := 0; cw.err == nil; i++ {
		if i%(1<<14) == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if !inserted && cw.n >= insertAt {
			cw.WriteString(needle)
			cw.WriteString(" ")
			inserted = true
		}
		s := noiseSentences[i%len(noiseSentences)]
		if cw.n+int64(len(s))+1 > target {
			break
		}
		cw.WriteString(s)
		if i%len(noiseSentences) == len(noiseSentences)-1 {
			cw.WriteString("\n")
		} else {
			cw.WriteString(" ")
		}
	}
	if !inserted {
		cw.WriteString(needle)
		cw.WriteString("\n")
	}
	return cw.err
}

// writeFileHaystack repeats the file at path up to target bytes, with the
// needle after the first whitespace at or after insertAt.
func writeFileHaystack(ctx context.Context, cw *countWriter, path string, target, insertAt int64, needle string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if found, err := containsFold(f, []byte("special magic")); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	} else if found {
		return fmt.Errorf("haystack %s contains %q, so the needle would not be unique", path, "special magic")
	}
	buf := make([]byte, 1<<16)
	inserted, readThisPass := false, false
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	for cw.n < target && cw.err == nil {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := f.Read(buf)
		if n == 0 && errors.Is(err, io.EOF) {
			if !readThisPass {
				return fmt.Errorf("haystack %s is empty", path)
			}
			readThisPass = false
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				return err
			}
			cw.WriteString("\n")
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("read %s: %w", path, err)
		}
		readThisPass = true
		chunk := buf[:n]
		if rem := target - cw.n; int64(len(chunk)) > rem {
			chunk = chunk[:rem]
		}
		if !inserted && cw.n+int64(len(chunk)) > insertAt {
			from := max(0, int(insertAt-cw.n))
			if j := bytes.IndexAny(chunk[from:], " \n\t"); j >= 0 {
				cut := from + j + 1
				cw.WriteString(string(chunk[:cut]))
				cw.WriteString(needle + " ")
				chunk = chunk[cut:]
				inserted = true
			}
		}
		cw.WriteString(string(chunk))
	}
	if !inserted {
		cw.WriteString(" " + needle + "\n")
	}
	return cw.err
}

// containsFold reports whether r contains pat (lower case ASCII), ignoring
// ASCII case, reading r in chunks.
func containsFold(r io.Reader, pat []byte) (bool, error) {
	buf := make([]byte, 1<<16+len(pat))
	keep := 0
	for {
		n, err := r.Read(buf[keep:])
		total := keep + n
		if bytes.Contains(bytes.ToLower(buf[:total]), pat) {
			return true, nil
		}
		if errors.Is(err, io.EOF) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		// Keep the tail that could begin a match split across reads.
		keep = min(len(pat)-1, total)
		copy(buf, buf[total-keep:total])
	}
}

func uuid(r *rand.Rand) string {
	var b [16]byte
	for i := range b {
		b[i] = byte(r.UintN(256))
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
