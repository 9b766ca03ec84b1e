// Command heldout builds the held-out lookup set of issue 38 (package
// eval/heldout) from this machine's Debian files, and reports a run of it
// by kind, needle form, size and delivery.
//
//	go run ./examples/tiny-rlm/heldout -out DIR          # DIR/heldout.jsonl and its documents
//	rlm eval --local-model builtin --task custom:DIR/heldout.jsonl --n 1000 --temperature 0 --out RES
//	go run ./examples/tiny-rlm/heldout -report RES/results.jsonl
//
// Build prints how its documents differ from the frozen manifest
// (eval/heldout/manifest.json); -freeze rewrites that manifest.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/rlm-project/rlm/eval/heldout"
)

func main() {
	out := flag.String("out", "", "build the set into this `directory`")
	root := flag.String("root", "/", "the file system root the Debian files are read from")
	freeze := flag.String("freeze", "", "with -out, also write the manifest to this `file` (eval/heldout/manifest.json)")
	report := flag.String("report", "", "report the results in this rlm eval `results.jsonl`")
	flag.Parse()
	switch {
	case *out != "":
		man, err := heldout.Build(*out, *root)
		if errors.Is(err, heldout.ErrSources) {
			fmt.Fprintln(os.Stderr, "heldout:", err)
			os.Exit(2)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "heldout:", err)
			os.Exit(1)
		}
		frozen, err := heldout.Frozen()
		if err != nil {
			fmt.Fprintln(os.Stderr, "heldout:", err)
			os.Exit(1)
		}
		for _, d := range man.Differences(frozen) {
			fmt.Fprintln(os.Stderr, "heldout: differs from the frozen set:", d)
		}
		if *freeze != "" {
			b, err := os.ReadFile(*out + "/manifest.json")
			if err == nil {
				err = os.WriteFile(*freeze, b, 0o644)
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, "heldout:", err)
				os.Exit(1)
			}
		}
		fmt.Printf("%d cases in %s/%s\n", len(heldout.Cases()), *out, heldout.TaskFile)
	case *report != "":
		if err := heldout.Report(os.Stdout, *report); err != nil {
			fmt.Fprintln(os.Stderr, "heldout:", err)
			os.Exit(1)
		}
	default:
		flag.Usage()
		os.Exit(2)
	}
}
