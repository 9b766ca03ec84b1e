// Command fakeupstream serves eval/fakemodel, a scripted TEST DOUBLE for a
// model (not a model), as an OpenAI-compatible upstream on a loopback port,
// so that examples/training/run.sh can collect real RLM trajectories offline.
//
// Its "root model" (-root, default "root") writes correct Go for the eval
// tasks' questions and its "sub-model" (any other model name) answers from
// the text it is given. It prints its base URL (ending in /v1) on stdout and
// serves until SIGINT/SIGTERM or -timeout, whichever comes first, so that a
// script that dies without stopping it never leaves it running for long.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/rlm-project/rlm/eval/fakemodel"
	"github.com/rlm-project/rlm/internal/fakellm"
)

func main() {
	root := flag.String("root", "root", "model name the test double answers as the RLM's root")
	timeout := flag.Duration("timeout", 10*time.Minute, "exit after this long even if never stopped")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()

	fake := fakellm.New(fakemodel.Script(*root))
	defer fake.Close()
	fmt.Fprintln(os.Stderr, "fakeupstream: serving eval/fakemodel, a scripted test double (not a model), at", fake.URL)
	fmt.Println(fake.URL)
	<-ctx.Done()
}
