package eval

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
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

// SNIAH is the needle task of RULER: sentences "One of the special magic
// numbers for KEY is: VALUE." hidden in a haystack, and a question asking
// for the VALUE of one KEY. With Keys > 1 it is RULER's multi-key variant:
// the other needles have other keys and are distractors.
type SNIAH struct {
	// Haystack is a text file repeated as often as needed; empty means
	// RULER's noise sentences. It must not contain "special magic".
	Haystack string
	// UUID makes the values UUIDs instead of 7-digit numbers.
	UUID bool
	// Depth is where the needle goes, as a fraction of the context; a
	// negative value picks a uniformly random depth per instance.
	Depth float64
	// Keys is the number of needles, each with its own key, at independent
	// random depths except the asked one, which follows Depth; 0 or 1 is
	// the single needle.
	Keys int
	// Phrasings is the set of question wordings (PhrasingsHeldIn or
	// PhrasingsHeldOut); empty is RULER's one question.
	Phrasings string
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
	if t.Keys > 1 {
		v = append(v, fmt.Sprintf("keys=%d", t.Keys))
	}
	if t.Phrasings != "" {
		v = append(v, "phrasings="+t.Phrasings)
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
	if t.Keys > len(keyAdjectives)*len(keyNouns) {
		return Instance{}, fmt.Errorf("sniah: %d keys: at most %d distinct keys exist", t.Keys, len(keyAdjectives)*len(keyNouns))
	}
	r := newRand(t.Name(), spec)
	key := keyAdjectives[r.IntN(len(keyAdjectives))] + "-" + keyNouns[r.IntN(len(keyNouns))]
	kind, value := "numbers", t.value(r)
	if t.UUID {
		kind = "uuids"
	}
	depth := t.Depth
	if depth < 0 {
		depth = r.Float64()
	}
	if depth > 1 {
		depth = 1
	}
	single := kind[:len(kind)-1]
	template, err := sniahPhrasings.pick(r, t.Phrasings)
	if err != nil {
		return Instance{}, fmt.Errorf("sniah: %w", err)
	}
	target := int64(spec.Tokens) * CharsPerToken
	needle := fmt.Sprintf("One of the special magic %s for %s is: %s.", kind, key, value)
	needles := []placed{{at: int64(depth * float64(target-int64(len(needle)))), text: needle}}
	keys := map[string]bool{key: true}
	for len(needles) < t.Keys {
		k := keyAdjectives[r.IntN(len(keyAdjectives))] + "-" + keyNouns[r.IntN(len(keyNouns))]
		if keys[k] {
			continue
		}
		keys[k] = true
		n := fmt.Sprintf("One of the special magic %s for %s is: %s.", kind, k, t.value(r))
		needles = append(needles, placed{at: int64(r.Float64() * float64(target-int64(len(n)))), text: n})
	}
	// Needles at the same offset keep their draw order: the asked one first.
	slices.SortStableFunc(needles, func(a, b placed) int { return cmp.Compare(a.at, b.at) })

	cw := newCountWriter(w)
	if t.Haystack == "" {
		err = writeNoise(ctx, cw, target, needles)
	} else {
		err = writeFileHaystack(ctx, cw, t.Haystack, target, needles)
	}
	if err == nil {
		err = cw.Flush()
	}
	if err != nil {
		return Instance{}, fmt.Errorf("sniah: write haystack: %w", err)
	}
	meta := map[string]string{"key": key, "depth": strconv.FormatFloat(depth, 'f', 3, 64)}
	if t.Keys > 1 {
		meta["keys"] = strconv.Itoa(t.Keys)
	}
	return Instance{
		Task:   t.Name(),
		Tokens: spec.Tokens, Index: spec.Index, Seed: spec.Seed,
		Question: fillTemplate(template, map[string]string{"kind": single, "key": key}),
		Answer:   value,
		Expected: []string{value},
		Scorer:   "sniah",
		Bytes:    cw.n,
		Meta:     meta,
	}, nil
}

// value draws a needle's value: a 7-digit number or a UUID.
func (t *SNIAH) value(r *rand.Rand) string {
	if t.UUID {
		return uuid(r)
	}
	return strconv.Itoa(1_000_000 + r.IntN(9_000_000))
}

// placed is a needle and the byte offset it goes at (the first boundary at
// or after it).
type placed struct {
	at   int64
	text string
}

// writeNoise writes noise sentences up to target bytes with each needle at
// the first sentence boundary at or after its offset. needles are sorted
// by offset.
func writeNoise(ctx context.Context, cw *countWriter, target int64, needles []placed) error {
	for i := 0; cw.err == nil; i++ {
		if i%(1<<14) == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		for len(needles) > 0 && cw.n >= needles[0].at {
			cw.WriteString(needles[0].text)
			cw.WriteString(" ")
			needles = needles[1:]
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
	for _, n := range needles {
		cw.WriteString(n.text)
		cw.WriteString("\n")
	}
	return cw.err
}

// writeFileHaystack repeats the file at path up to target bytes, with each
// needle after the first whitespace at or after its offset. needles are
// sorted by offset.
func writeFileHaystack(ctx context.Context, cw *countWriter, path string, target int64, needles []placed) error {
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
	readThisPass := false
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
		for len(needles) > 0 && cw.n+int64(len(chunk)) > needles[0].at {
			from := max(0, int(needles[0].at-cw.n))
			j := bytes.IndexAny(chunk[from:], " \n\t")
			if j < 0 {
				break
			}
			cut := from + j + 1
			cw.WriteString(string(chunk[:cut]))
			cw.WriteString(needles[0].text + " ")
			chunk = chunk[cut:]
			needles = needles[1:]
		}
		cw.WriteString(string(chunk))
	}
	for _, n := range needles {
		cw.WriteString(" " + n.text + "\n")
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
