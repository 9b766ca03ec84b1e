// Command expert serves training/expert, the programmatic expert policy (a
// documented data generator, not a model), as an OpenAI-compatible upstream
// on a loopback port, so that `rlm eval` runs its cells through the real
// engine and REPL and records every run as a trajectory for training.
//
// It prints its base URL (ending in /v1) on stdout and serves until
// SIGINT/SIGTERM or -timeout, whichever comes first, so that a script that
// dies without stopping it never leaves it running for long.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/rlm-project/rlm/training/expert"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen `address` (port 0: any free port)")
	seed := flag.Uint64("seed", 1, "seed of the expert's cell styles: the same seed and question give the same trajectory")
	timeout := flag.Duration("timeout", 30*time.Minute, "exit after this long even if never stopped")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "expert:", err)
		os.Exit(1)
	}
	srv := &http.Server{Handler: expert.Policy{Seed: *seed}.Handler(), ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	url := "http://" + ln.Addr().String() + "/v1"
	fmt.Fprintln(os.Stderr, "expert: serving the programmatic expert policy (a data generator, not a model) at", url)
	fmt.Println(url)
	select {
	case <-ctx.Done():
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintln(os.Stderr, "expert:", err)
			os.Exit(1)
		}
	}
	shut, done := context.WithTimeout(context.Background(), 5*time.Second)
	defer done()
	srv.Shutdown(shut)
}
