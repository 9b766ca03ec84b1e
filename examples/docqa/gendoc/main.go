// Command gendoc writes the document of the README's document-QA
// walkthrough: a synthetic web server access log, the same on every
// machine, far larger than a model's context window (the default 200,000
// lines are about 15 MB, some 4M tokens). One address, 203.0.113.77, got
// more 401 responses than any other (1,337 of them), so the walkthrough's
// question has one right answer that needs the whole log.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"time"
)

func main() {
	lines := flag.Int("lines", 200_000, "lines of log to write")
	seed := flag.Uint64("seed", 1, "seed of the generated log")
	flag.Parse()
	if err := write(os.Stdout, *lines, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "gendoc:", err)
		os.Exit(1)
	}
}

// TopIP is the address with the most 401 responses, and TopIPCount their
// number (when lines is large enough to hold them).
const (
	TopIP      = "203.0.113.77"
	TopIPCount = 1337
)

func write(f *os.File, lines int, seed uint64) error {
	w := bufio.NewWriterSize(f, 1<<20)
	r := rand.New(rand.NewPCG(seed, 42))
	paths := []string{"/", "/login", "/api/orders", "/api/orders/42", "/api/users/me", "/static/app.js", "/health", "/api/search?q=shoes"}
	methods := []string{"GET", "GET", "GET", "POST", "PUT", "DELETE"}
	statuses := []int{200, 200, 200, 200, 201, 204, 301, 304, 400, 403, 404, 500, 502}
	// Every 401 but TopIP's goes to one of many addresses, none of which
	// can reach TopIPCount.
	start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	step := max(lines/TopIPCount, 1)
	for i := range lines {
		ts := start.Add(time.Duration(i) * 431 * time.Millisecond).Format(time.RFC3339)
		ip := fmt.Sprintf("10.%d.%d.%d", r.IntN(4), r.IntN(256), 1+r.IntN(254))
		method, path, status := methods[r.IntN(len(methods))], paths[r.IntN(len(paths))], statuses[r.IntN(len(statuses))]
		switch {
		case i%step == 0 && i/step < TopIPCount:
			ip, method, path, status = TopIP, "POST", "/login", 401
		case r.IntN(50) == 0:
			path, status = "/login", 401
		}
		fmt.Fprintf(w, "%s %s %s %s %d %dms user=u%04d\n", ts, ip, method, path, status, 1+r.IntN(900), r.IntN(10000))
	}
	return w.Flush()
}
