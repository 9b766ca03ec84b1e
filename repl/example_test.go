package repl_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/rlm-project/rlm/repl"
)

// A pool of sandboxed workers; one session holds a document as `context`
// and keeps its variables from cell to cell. A program that embeds the
// pool calls repl.MaybeRunWorker first thing in main, because workers are
// the same binary started again.
func ExamplePool() {
	pool, err := repl.NewPool(repl.PoolConfig{})
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()

	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	doc, err := repl.WriteContext(dir, []string{"The deploy key of staging is KX-4471.\n", "Nothing else here.\n"})
	if err != nil {
		log.Fatal(err)
	}

	ctx := context.Background()
	sess, err := pool.NewSession(ctx, repl.SessionConfig{Context: doc})
	if err != nil {
		log.Fatal(err)
	}
	defer sess.Close()
	for _, cell := range []string{
		`i := strings.Index(context, "KX-")`,
		`fmt.Println(len(contexts), context[i:i+7])`,
	} {
		res, err := sess.Run(ctx, cell)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Print(res.Output, res.Error)
	}
	// Output: 2 KX-4471
}
