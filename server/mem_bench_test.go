package server

import (
	"context"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/rlm-project/rlm/recursion"
)

const size40MB = 40 << 20

// pattern yields n bytes of JSON-safe text without holding them.
type pattern struct{ n int64 }

func (p *pattern) Read(b []byte) (int, error) {
	if p.n <= 0 {
		return 0, io.EOF
	}
	if int64(len(b)) > p.n {
		b = b[:p.n]
	}
	for i := range b {
		b[i] = 'a' + byte(i%26)
	}
	p.n -= int64(len(b))
	return len(b), nil
}

func statusKB(field string) int64 {
	b, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, field+":") {
			n, _ := strconv.ParseInt(strings.Fields(line)[1], 10, 64)
			return n
		}
	}
	return 0
}

// measurePeak runs f and reports how far the process's peak RSS rose above
// its RSS before, in MB and as a multiple of the 40 MB payload. The client
// streams its body, so the rise is the server's.
func measurePeak(b *testing.B, f func()) {
	if _, err := os.Stat("/proc/self/clear_refs"); err != nil {
		b.Skip("needs Linux /proc to measure peak RSS")
	}
	var worst int64
	for range b.N {
		debug.FreeOSMemory()
		os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
		before := statusKB("VmRSS")
		f()
		if d := statusKB("VmHWM") - before; d > worst {
			worst = d
		}
	}
	b.ReportMetric(float64(worst)/1024, "peak-rise-MB")
	b.ReportMetric(float64(worst*1024)/size40MB, "peak/payload")
}

// BenchmarkUpload40MB: peak memory of streaming a 40 MB upload to the disk store.
func BenchmarkUpload40MB(b *testing.B) {
	ts := startServerB(b, &fakeRunner{result: finalResult("x")})
	measurePeak(b, func() {
		pr, pw := io.Pipe()
		mw := multipart.NewWriter(pw)
		go func() {
			fw, _ := mw.CreateFormFile("file", "big.txt")
			io.Copy(fw, &pattern{n: size40MB})
			mw.WriteField("purpose", "user_data")
			pw.CloseWithError(mw.Close())
		}()
		req, _ := http.NewRequest("POST", ts.URL+"/v1/files", pr)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("upload: %d", resp.StatusCode)
		}
	})
}

// BenchmarkChatBody40MB: peak memory of a chat request whose message is
// 40 MB, up to the runner (a test double that returns at once), with a
// Content-Length (as SDKs send) and chunked.
func BenchmarkChatBody40MB(b *testing.B) {
	prefix, suffix := `{"model":"rlm","messages":[{"role":"user","content":"`, `"}]}`
	for _, sized := range []bool{true, false} {
		name := map[bool]string{true: "content-length", false: "chunked"}[sized]
		b.Run(name, func(b *testing.B) {
			ts := startServerB(b, &nullRunner{})
			measurePeak(b, func() {
				body := io.MultiReader(strings.NewReader(prefix), &pattern{n: size40MB}, strings.NewReader(suffix))
				req, _ := http.NewRequest("POST", ts.URL+"/v1/chat/completions", body)
				req.Header.Set("Content-Type", "application/json")
				if sized {
					req.ContentLength = int64(len(prefix)+len(suffix)) + size40MB
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					b.Fatalf("chat: %d", resp.StatusCode)
				}
			})
		})
	}
}

// nullRunner is a test double that answers at once and keeps nothing.
type nullRunner struct{}

func (nullRunner) Run(ctx context.Context, req recursion.Request) (recursion.Result, error) {
	return recursion.Result{Answer: "ok", StopReason: recursion.StopFinal}, nil
}

func startServerB(b *testing.B, r Runner) *testServer {
	return startServer(b, Config{}, nil, r)
}
