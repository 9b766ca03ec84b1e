// Command outside writes a lookup benchmark that shares nothing with the
// recipe's data: documents, needle forms, keys, values and questions that
// neither eval's generators nor the expert policy use, the way a new user
// would try the built-in model on their own files.
//
//	go run ./examples/tiny-rlm/outside -out DIR [-n 4] [-sizes 1m,4m] [-seed 1]
//	rlm eval --task custom:DIR/outside.jsonl
//
// Kinds of document (each instance one file, the needle one line of it):
//   - code: this module's own Go source (the recipe trains on the Go
//     toolchain's), needle a comment line "// The access code for the
//     loading dock is 48213."
//   - prose: this module's documentation (docs/*.md, README.md), needle a
//     sentence "The server room's door code is 7731-22."
//   - jsonlog: JSON lines of a made-up service, needle a line with a field
//     named like a config key ("deploy_token": "tok-88AF31")
//   - csv: a table of people with a header, needle a person's row; the
//     question names the person and a column
//   - ini: an INI configuration of many sections, needle "max_retries = 17"
//
// Keys are words, names and snake_case identifiers (the recipe's keys are
// all word-word or word_word pairs of its own lists); values are numbers,
// codes, words and dates; every question is worded here and nowhere else.
// Answers are scored exact (rlm eval's "exact" scorer).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rlm-project/rlm/eval"
)

func main() {
	out := flag.String("out", "outside", "output `directory`")
	n := flag.Int("n", 4, "instances per kind and size")
	sizes := flag.String("sizes", "1m,4m", "document sizes in bytes (k, m suffixes)")
	seed := flag.Uint64("seed", 1, "seed of keys, values, wordings and needle positions")
	root := flag.String("root", ".", "this module's root (its Go source and docs are two of the haystacks)")
	flag.Parse()
	if err := run(*out, *root, *n, *sizes, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "outside:", err)
		os.Exit(1)
	}
}

type item struct {
	ContextFile string `json:"context_file"`
	Question    string `json:"question"`
	Answer      string `json:"answer"`
	Scorer      string `json:"scorer"`
}

func run(out, root string, n int, sizes string, seed uint64) error {
	code, err := readTree(root, func(p string) bool {
		// Not this generator: its templates would be needles of their own.
		return strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") && !strings.Contains(p, "testdata") &&
			!strings.HasPrefix(p, "examples/tiny-rlm/outside/")
	})
	if err != nil {
		return err
	}
	prose, err := readTree(root, func(p string) bool {
		return strings.HasSuffix(p, ".md") && (strings.HasPrefix(p, "docs/") || p == "README.md")
	})
	if err != nil {
		return err
	}
	if len(code) == 0 || len(prose) == 0 {
		return fmt.Errorf("no Go source or docs under %s: run from the module root or set -root", root)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	var items []item
	for _, size := range strings.Split(sizes, ",") {
		bytes, err := eval.ParseLength(size)
		if err != nil {
			return err
		}
		for _, kind := range []string{"code", "prose", "jsonlog", "csv", "ini"} {
			for i := range n {
				r := rand.New(rand.NewPCG(seed, uint64(len(items))+1))
				lines, needle, q, a := instance(kind, r, code, prose, bytes)
				at := 1 + r.IntN(max(1, len(lines)-1))
				lines = append(lines[:at], append([]string{needle}, lines[at:]...)...)
				name := fmt.Sprintf("%s-%s-%d.txt", kind, size, i)
				if err := os.WriteFile(filepath.Join(out, name), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
					return err
				}
				items = append(items, item{ContextFile: name, Question: q, Answer: a, Scorer: "exact"})
			}
		}
	}
	f, err := os.Create(filepath.Join(out, "outside.jsonl"))
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	for _, it := range items {
		if err := enc.Encode(it); err != nil {
			f.Close()
			return err
		}
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Printf("wrote %d questions and their documents to %s (rlm eval --task custom:%s)\n", len(items), out, filepath.Join(out, "outside.jsonl"))
	return nil
}

// readTree returns the lines of the files under root that keep selects,
// in a fixed order.
func readTree(root string, keep func(rel string) bool) ([]string, error) {
	var paths []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && rel != "." || d.Name() == "node_modules" || d.Name() == "third_party") {
			return filepath.SkipDir
		}
		if !d.IsDir() && keep(filepath.ToSlash(rel)) {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	var lines []string
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		lines = append(lines, strings.Split(strings.TrimRight(string(b), "\n"), "\n")...)
	}
	return lines, nil
}

var (
	places  = []string{"loading dock", "server room", "north gate", "west stairwell", "boiler room", "rooftop hatch", "archive vault", "garden shed"}
	first   = []string{"Marta", "Jonas", "Aiko", "Tomás", "Leila", "Kwame", "Ingrid", "Ravi", "Sofia", "Dmitri"}
	last    = []string{"Kowalska", "Lindqvist", "Okafor", "Haddad", "Moreau", "Tanaka", "Silva", "Novak", "Brennan", "Castillo"}
	cities  = []string{"Gdansk", "Porto", "Tampere", "Cusco", "Ghent", "Nagoya", "Accra", "Ljubljana", "Halifax", "Mendoza"}
	cfgKeys = []string{"max_retries", "deploy_token", "cache_ttl", "shard_count", "release_channel", "backup_window", "pool_size", "api_region"}
)

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// instance returns a document of about size bytes (without its needle),
// the needle line, the question and the answer.
func instance(kind string, r *rand.Rand, code, prose []string, size int) (lines []string, needle, q, a string) {
	fill := func(src []string) []string {
		start := r.IntN(len(src))
		n := 0
		for i := start; n < size; i++ {
			l := src[i%len(src)]
			lines = append(lines, l)
			n += len(l) + 1
		}
		return lines
	}
	switch kind {
	case "code":
		place := pick(r, places)
		a = fmt.Sprint(10000 + r.IntN(90000))
		needle = "\t// The access code for the " + place + " is " + a + "."
		q = pick(r, []string{"What is the access code for the " + place + "?", "Which code opens the " + place + "?", "Tell me the " + place + " access code."})
		return fill(code), needle, q, a
	case "prose":
		place := pick(r, places)
		a = fmt.Sprintf("%d-%02d", 1000+r.IntN(9000), r.IntN(100))
		needle = "The " + place + "'s door code is " + a + ", changed every month."
		q = pick(r, []string{"What is the door code of the " + place + "?", "What's the " + place + " door code?", "Which door code does the " + place + " have?"})
		return fill(prose), needle, q, a
	case "jsonlog":
		key := pick(r, cfgKeys)
		a = fmt.Sprintf("v%d.%d.%d", 1+r.IntN(9), r.IntN(20), r.IntN(50))
		if key == "deploy_token" || key == "api_region" {
			a = fmt.Sprintf("tok-%06X", r.IntN(1<<24))
		}
		for n, i := 0, 0; n < size; i++ {
			l := fmt.Sprintf(`{"ts":"2026-10-%02dT%02d:%02d:%02dZ","level":%q,"msg":%q,"req":"r%07d","ms":%d}`,
				1+i%28, i%24, i%60, (i*7)%60, pick(r, []string{"info", "warn", "debug"}), pick(r, []string{"request served", "cache miss", "retrying upstream", "slow query"}), i, r.IntN(900))
			lines = append(lines, l)
			n += len(l) + 1
		}
		needle = fmt.Sprintf(`{"ts":"2026-10-05T10:00:00Z","level":"info","msg":"config loaded","%s":"%s"}`, key, a)
		q = pick(r, []string{"What is the " + key + " in this log?", "Which value was " + key + " set to when the config loaded?", "Find " + key + " in the log and give me its value."})
		return lines, needle, q, a
	case "csv":
		lines = append(lines, "id,name,city,zip,phone")
		for n, i := 0, 0; n < size; i++ {
			l := fmt.Sprintf("%d,%s %s,%s,%05d,+1-555-%04d", 100000+i, pick(r, first), pick(r, last[:5]), pick(r, cities), r.IntN(100000), r.IntN(10000))
			lines = append(lines, l)
			n += len(l) + 1
		}
		// The person asked about has a surname no other row has.
		name := pick(r, first) + " " + pick(r, last[5:])
		city, zip := pick(r, cities), fmt.Sprintf("%05d", r.IntN(100000))
		needle = fmt.Sprintf("%d,%s,%s,%s,+1-555-%04d", 900000+r.IntN(1000), name, city, zip, r.IntN(10000))
		if r.IntN(2) == 0 {
			q, a = pick(r, []string{"What city does " + name + " live in?", "Which city is " + name + " from?"}), city
		} else {
			q, a = pick(r, []string{"What is " + name + "'s zip?", "Give me the zip of " + name + "."}), zip
		}
		return lines, needle, q, a
	default: // ini
		key := pick(r, cfgKeys)
		for n, i := 0, 0; n < size; i++ {
			var l string
			if i%12 == 0 {
				l = fmt.Sprintf("[service.%d]", i/12)
			} else {
				l = fmt.Sprintf("%s_%d = %d", pick(r, []string{"timeout", "workers", "port", "weight", "limit"}), i%12, r.IntN(10000))
			}
			lines = append(lines, l)
			n += len(l) + 1
		}
		a = fmt.Sprint(2 + r.IntN(60))
		needle = key + " = " + a
		q = pick(r, []string{"What is " + key + " set to?", "What value does the configuration give " + key + "?", "How is " + key + " configured?"})
		return lines, needle, q, a
	}
}
