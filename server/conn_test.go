package server

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v5"
)

// These tests talk raw TCP to the server, as a slow or idle client does:
// net/http's client would not trickle on purpose.

func dial(t *testing.T, url string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// closedWithin reads c until the server closes it (EOF or reset) and fails
// the test if that takes longer than d. It returns what was read.
func closedWithin(t *testing.T, c net.Conn, d time.Duration) []byte {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(d))
	b, err := io.ReadAll(c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the server kept the connection open for %v (read %q)", d, b)
	}
	return b
}

// trickle writes s one byte every gap until it is written or stop closes.
func trickle(c net.Conn, s string, gap time.Duration, stop <-chan struct{}) {
	for i := 0; i < len(s); i++ {
		if _, err := c.Write([]byte{s[i]}); err != nil {
			return
		}
		select {
		case <-stop:
			return
		case <-time.After(gap):
		}
	}
}

// TestIdleKeepAliveClosed reproduces kept-alive connections that stayed
// open forever: after one request, an idle connection is closed after
// IdleTimeout.
func TestIdleKeepAliveClosed(t *testing.T) {
	ts := startServer(t, Config{IdleTimeout: 200 * time.Millisecond}, nil, nil)
	c := dial(t, ts.URL)
	fmt.Fprint(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Close {
		t.Fatalf("healthz: %d, close %v; want a kept-alive 200", resp.StatusCode, resp.Close)
	}
	start := time.Now()
	closedWithin(t, c, 5*time.Second)
	if d := time.Since(start); d < 150*time.Millisecond {
		t.Errorf("closed after %v, before the idle timeout", d)
	}
}

// TestTrickledHeadersCut: a client that sends its headers a byte at a time
// is cut at ReadHeaderTimeout, and a connection that sends nothing as well.
func TestTrickledHeadersCut(t *testing.T) {
	ts := startServer(t, Config{ReadHeaderTimeout: 300 * time.Millisecond}, nil, nil)
	stop := make(chan struct{})
	defer close(stop)
	c := dial(t, ts.URL)
	go trickle(c, "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: "+strings.Repeat("a", 1000)+"\r\n\r\n", 50*time.Millisecond, stop)
	closedWithin(t, c, 5*time.Second)

	silent := dial(t, ts.URL)
	closedWithin(t, silent, 5*time.Second)
}

// TestTrickledBodyCut reproduces bodies that could be trickled forever: a
// body that falls below MinBodyRate after the grace period is answered 408
// (OpenAI error JSON) and its connection closed, whatever the endpoint and
// framing.
func TestTrickledBodyCut(t *testing.T) {
	ts := startServer(t, Config{MinBodyRate: 1000, BodyRateGrace: 200 * time.Millisecond}, nil, nil)
	var mp bytes.Buffer
	mw := multipart.NewWriter(&mp)
	fw, _ := mw.CreateFormFile("file", "a.txt")
	fw.Write(bytes.Repeat([]byte("x"), 10000))
	mw.Close()
	chat := `{"model":"rlm","messages":[{"role":"user","content":"` + strings.Repeat("y", 10000) + `"}]}`
	tests := []struct {
		name, head, body string
	}{
		{"chat with Content-Length", "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
			fmt.Sprintf("Content-Length: %d\r\n\r\n", len(chat)), chat},
		{"chat chunked", "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
			fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(chat), chat)},
		{"upload", "POST /v1/files HTTP/1.1\r\nHost: x\r\nContent-Type: " + mw.FormDataContentType() + "\r\n" +
			fmt.Sprintf("Content-Length: %d\r\n\r\n", mp.Len()), mp.String()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stop := make(chan struct{})
			defer close(stop)
			c := dial(t, ts.URL)
			io.WriteString(c, tt.head)
			// 100 bytes at once, then 20 bytes/s: below the 1000 bytes/s asked for.
			io.WriteString(c, tt.body[:100])
			go trickle(c, tt.body[100:], 50*time.Millisecond, stop)
			start := time.Now()
			out := closedWithin(t, c, 10*time.Second)
			resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(out)), nil)
			if err != nil {
				t.Fatalf("no HTTP answer before the close (%v): %q", err, out)
			}
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(b), `"code":"request_timeout"`) {
				t.Errorf("got %d %s; want 408 request_timeout", resp.StatusCode, b)
			}
			t.Logf("cut after %v: %s", time.Since(start).Round(time.Millisecond), b)
		})
	}
}

// TestSteadyUploadPasses: a body well above MinBodyRate goes through
// however long it takes, pauses included, as long as its average holds.
func TestSteadyUploadPasses(t *testing.T) {
	ts := startServer(t, Config{MinBodyRate: 256 << 10, BodyRateGrace: 100 * time.Millisecond}, nil, nil)
	const size = 1 << 20
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		fw, _ := mw.CreateFormFile("file", "steady.bin")
		chunk := bytes.Repeat([]byte("z"), 64<<10)
		for i := 0; i < size/len(chunk); i++ {
			fw.Write(chunk) // about 1.3 MB/s, five times the minimum
			time.Sleep(50 * time.Millisecond)
			if i == 8 {
				time.Sleep(200 * time.Millisecond) // a hiccup the average absorbs
			}
		}
		mw.Close()
		pw.Close()
	}()
	req, _ := http.NewRequest("POST", ts.URL+"/v1/files", pr)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.Contains(string(b), fmt.Sprintf(`"bytes":%d`, size)) {
		t.Fatalf("steady upload: %d %s", resp.StatusCode, b)
	}
}

// TestRunOutlivesBodyDeadline: the body deadline ends with the body. A run
// that takes longer than the grace period is not mistaken for a client
// that hung up (the server reads the idle connection in the background
// to notice those), with either framing.
func TestRunOutlivesBodyDeadline(t *testing.T) {
	for _, chunked := range []bool{false, true} {
		t.Run(fmt.Sprintf("chunked=%v", chunked), func(t *testing.T) {
			fr := &fakeRunner{result: finalResult("late"), block: make(chan struct{})}
			ts := startServer(t, Config{MinBodyRate: 1 << 20, BodyRateGrace: 50 * time.Millisecond}, nil, fr)
			time.AfterFunc(500*time.Millisecond, func() { close(fr.block) })
			var body io.Reader = chatBody("")
			if chunked {
				body = io.MultiReader(body) // no length: sent chunked
			}
			r := do(t, "POST", ts.URL+"/v1/chat/completions", "", body)
			if r.Status != 200 || !strings.Contains(string(r.Body), `"late"`) {
				t.Fatalf("got %d %s; want the run's answer", r.Status, r.Body)
			}
		})
	}
}

// TestMaxConns: at most MaxConns connections are open at once. When every
// one is inside a request, the next waits in the backlog until one closes
// or ends its request; when some are idle (or still sending headers), the
// next takes the place of the oldest of those at once.
func TestMaxConns(t *testing.T) {
	fr := &fakeRunner{result: finalResult("x"), block: make(chan struct{}), started: make(chan struct{}, 4)}
	ts := startServer(t, Config{MaxConns: 2}, nil, fr)
	running := make(chan response, 2)
	for range 2 {
		go func() { running <- do(t, "POST", ts.URL+"/v1/chat/completions", "", chatBody("")) }()
		<-fr.started
	}
	third := dial(t, ts.URL)
	fmt.Fprint(third, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
	third.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	if n, err := third.Read(make([]byte, 1)); n > 0 || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a third connection was served while two were inside requests (read %d, %v)", n, err)
	}
	close(fr.block)
	for range 2 {
		if r := <-running; r.Status != 200 {
			t.Errorf("a request inside its run was cut: %d %s", r.Status, r.Body)
		}
	}
	third.SetReadDeadline(time.Now().Add(5 * time.Second))
	br := bufio.NewReader(third)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("the waiting connection was not served once one closed: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("status %d", resp.StatusCode)
	}

	// third is now idle, kept alive, as is the client's pooled one: two
	// open. A new connection is served at once, and the oldest idle one
	// is closed for it.
	http.DefaultClient.CloseIdleConnections()
	second := dial(t, ts.URL)
	fmt.Fprint(second, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
	if resp, err := http.ReadResponse(bufio.NewReader(second), nil); err != nil || resp.StatusCode != 200 {
		t.Fatalf("second: %v %v", resp, err)
	}
	fourth := dial(t, ts.URL)
	fmt.Fprint(fourth, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
	fourth.SetReadDeadline(time.Now().Add(2 * time.Second))
	if resp, err := http.ReadResponse(bufio.NewReader(fourth), nil); err != nil || resp.StatusCode != 200 {
		t.Fatalf("a new connection was not served in place of an idle one: %v %v", resp, err)
	}
	if b := closedWithin(t, third, 5*time.Second); len(b) > 0 { // generous: a loaded CI machine
		t.Errorf("the evicted connection read %q", b)
	}
}

// TestTricklersEvicted reproduces issue 24's slowloris: connections that
// trickle their headers held every slot until ReadHeaderTimeout, so a
// health probe waited for it. Now a new connection takes the place of the
// oldest trickler at once, whatever address the tricklers come from.
func TestTricklersEvicted(t *testing.T) {
	ts := startServer(t, Config{MaxConns: 8, MaxConnsPerClient: -1, ReadHeaderTimeout: 10 * time.Second}, nil, nil)
	stop := make(chan struct{})
	defer close(stop)
	var tricklers []net.Conn
	for range 8 {
		c := dial(t, ts.URL)
		go trickle(c, "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: "+strings.Repeat("a", 1000)+"\r\n\r\n", 50*time.Millisecond, stop)
		tricklers = append(tricklers, c)
		time.Sleep(5 * time.Millisecond) // an order of age
	}
	time.Sleep(100 * time.Millisecond)
	for i := range 3 {
		start := time.Now()
		resp, err := (&http.Client{Timeout: 5 * time.Second}).Get(ts.URL + "/healthz")
		if err != nil {
			t.Fatalf("probe %d: %v", i, err)
		}
		resp.Body.Close()
		if d := time.Since(start); d > time.Second {
			t.Errorf("probe %d waited %v behind the tricklers", i, d)
		}
	}
	// The oldest trickler went first.
	closedWithin(t, tricklers[0], 2*time.Second)
	metrics := do(t, "GET", ts.URL+"/metrics", "", nil)
	if !bytes.Contains(metrics.Body, []byte(`rlm_http_connections_dropped_total{reason="evicted"}`)) {
		t.Errorf("evictions not counted:\n%s", grepLines(metrics.Body, "connections_dropped"))
	}
}

// TestConnsPerClient: one address may hold MaxConnsPerClient connections;
// one more is answered 429 (OpenAI's error JSON) and closed, while other
// addresses are served, and a closed connection gives its place back.
func TestConnsPerClient(t *testing.T) {
	ts := startServer(t, Config{MaxConnsPerClient: 3, RetryAfter: 2 * time.Second}, nil, nil)
	var held []net.Conn
	for range 3 {
		held = append(held, dial(t, ts.URL))
	}
	time.Sleep(50 * time.Millisecond) // accepted
	over := dial(t, ts.URL)
	fmt.Fprint(over, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
	over.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(over), nil)
	if err != nil {
		t.Fatalf("no answer to the connection over the limit: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "2" || !strings.Contains(string(b), `"code":"rate_limit_exceeded"`) ||
		!strings.Contains(string(b), "at most 3") {
		t.Errorf("over the limit: %d %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), b)
	}
	closedWithin(t, over, 2*time.Second)

	// Another address is its own client.
	other := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}}).DialContext}}
	if resp, err := other.Get(ts.URL + "/healthz"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("another address: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}

	held[0].Close()
	time.Sleep(50 * time.Millisecond) // the server sees the close
	again := dial(t, ts.URL)
	fmt.Fprint(again, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
	again.SetReadDeadline(time.Now().Add(5 * time.Second))
	if resp, err := http.ReadResponse(bufio.NewReader(again), nil); err != nil || resp.StatusCode != 200 {
		t.Fatalf("after one closed: %v %v", resp, err)
	}
}

func TestClientOf(t *testing.T) {
	for _, tt := range []struct{ addr, want string }{
		{"192.0.2.7:443", "192.0.2.7/32"},
		{"[::ffff:192.0.2.7]:443", "192.0.2.7/32"},
		{"[2001:db8:1:2:3:4:5:6]:443", "2001:db8:1:2::/64"},
		{"[2001:db8:1:2:ffff::1]:80", "2001:db8:1:2::/64"},
	} {
		a, err := net.ResolveTCPAddr("tcp", tt.addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := clientOf(a).String(); got != tt.want {
			t.Errorf("clientOf(%s) = %s, want %s", tt.addr, got, tt.want)
		}
	}
	if p := clientOf(&net.UnixAddr{Name: "/run/rlm.sock", Net: "unix"}); p.IsValid() {
		t.Errorf("a Unix socket's client is %v, want none", p)
	}
}

// TestBodyDeadlineNotRearmedAfterLastByte: a handler that reads exactly
// Content-Length bytes and then works for longer than the body's grace
// period must not see its request cancelled. net/http starts its
// background read (which clears the connection's deadline) as the last
// byte is read; the body's deadline must not be set again after that.
func TestBodyDeadlineNotRearmedAfterLastByte(t *testing.T) {
	cancelled := make(chan bool, 1)
	cfg := Config{MinBodyRate: 1 << 20, BodyRateGrace: 50 * time.Millisecond,
		Extend: func(e *echo.Echo, v1 *echo.Group, owner func(*echo.Context) string) {
			e.POST("/exact", func(c *echo.Context) error {
				req := c.Request()
				io.ReadFull(req.Body, make([]byte, req.ContentLength))
				select {
				case <-req.Context().Done():
					cancelled <- true
				case <-time.After(400 * time.Millisecond):
					cancelled <- false
				}
				return c.String(http.StatusOK, "done")
			})
		}}
	ts := startServer(t, cfg, nil, nil)
	r := do(t, "POST", ts.URL+"/exact", "", strings.NewReader(strings.Repeat("b", 5000)))
	if <-cancelled {
		t.Fatalf("the request was cancelled after its body was read whole (response %d %s)", r.Status, r.Body)
	}
}
