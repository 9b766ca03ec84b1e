// Package testpdf makes real PDFs for tests and benchmarks with Debian's
// groff and Ghostscript (`groff -Tps | ps2pdf`), the way a person's tools
// would, rather than hand-written PDF syntax.
package testpdf

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Available reports whether groff and ps2pdf are installed. Without them
// Make skips the test, or fails it under CI (CI=true), where .ci/run
// installs them.
func Available(tb testing.TB) {
	tb.Helper()
	for _, tool := range []string{"groff", "ps2pdf"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				tb.Fatalf("%s is required under CI (apt-get install groff-base ghostscript): %v", tool, err)
			}
			tb.Skipf("%s not installed (apt-get install groff-base ghostscript)", tool)
		}
	}
}

// Make returns a PDF with one page per element of pages (UTF-8 text;
// paragraphs separated by blank lines). Each page's text must fit on one
// page. Hyphenation is off, so that every word appears whole in the text a
// PDF reader extracts.
func Make(tb testing.TB, pages []string) []byte {
	tb.Helper()
	return MakeWith(tb, pages)
}

// MakeWith is Make with more ps2pdf options, such as
// -sUserPassword=secret for an encrypted PDF.
func MakeWith(tb testing.TB, pages []string, ps2pdfArgs ...string) []byte {
	tb.Helper()
	Available(tb)
	var src strings.Builder
	src.WriteString(".nh\n.ad l\n")
	for i, p := range pages {
		if i > 0 {
			src.WriteString(".bp\n")
		}
		for _, line := range strings.Split(p, "\n") {
			if strings.TrimSpace(line) == "" {
				src.WriteString(".sp\n")
				continue
			}
			// \& keeps a leading . or ' from being read as a request.
			src.WriteString(`\&` + strings.ReplaceAll(line, `\`, `\e`) + "\n")
		}
	}
	groff := exec.Command("groff", "-Kutf8", "-Tps")
	groff.Stdin = strings.NewReader(src.String())
	var ps, errb bytes.Buffer
	groff.Stdout, groff.Stderr = &ps, &errb
	if err := groff.Run(); err != nil {
		tb.Fatalf("groff: %v: %s", err, errb.String())
	}
	errb.Reset()
	ps2pdf := exec.Command("ps2pdf", append(ps2pdfArgs, "-", "-")...)
	ps2pdf.Stdin = &ps
	var pdf bytes.Buffer
	ps2pdf.Stdout, ps2pdf.Stderr = &pdf, &errb
	if err := ps2pdf.Run(); err != nil {
		tb.Fatalf("ps2pdf: %v: %s", err, errb.String())
	}
	return pdf.Bytes()
}
