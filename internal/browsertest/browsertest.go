// Package browsertest starts a real browser, headless Debian chromium, for
// tests that check what people see: pages of the web viewer, charts drawn
// as SVG. It is test support; nothing else imports it.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"github.com/chromedp/chromedp"
)

// Start starts headless chromium with a fresh profile and a width x height
// window, and returns a context to run chromedp actions in; the browser is
// stopped when the test ends. The test is skipped when chromium is not
// installed, unless CI=true, where that is a failure.
func Start(t testing.TB, width, height int) context.Context {
	t.Helper()
	bin := "/usr/bin/chromium"
	if _, err := os.Stat(bin); err != nil {
		if p, err := exec.LookPath("chromium"); err == nil {
			bin = p
		} else if os.Getenv("CI") == "true" {
			t.Fatalf("chromium is required under CI: %v", err)
		} else {
			t.Skip("chromium not installed")
		}
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(bin),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(width, height),
	)
	ctx, cancelCtx := chromedp.NewContext(alloc)
	t.Cleanup(func() {
		cancelCtx()
		cancelAlloc()
	})
	// The first action starts the browser; it must not carry a timeout,
	// or the browser would be stopped when that timeout's context ends.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// ArtifactDir is where tests leave screenshots: $RLM_ARTIFACTS (CI keeps
// it) or a temporary directory.
func ArtifactDir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("RLM_ARTIFACTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}
