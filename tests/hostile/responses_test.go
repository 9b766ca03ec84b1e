package hostile

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rlm-project/rlm/internal/fakellm"
	"github.com/rlm-project/rlm/store/storetest"
)

// TestBackgroundResponseAcrossReplicas runs two real `rlm serve` processes
// on one real Redis: a background response started on A is polled and
// streamed on B; A is killed (SIGKILL) mid-run, and B records the
// response failed (server_stopped) within the lease, ending the stream it
// serves; A restarted changes nothing (no second terminal event, no lost
// or repeated event). A response that completes is read on the other
// replica too.
func TestBackgroundResponseAcrossReplicas(t *testing.T) {
	up := fakellm.New(func(req fakellm.Request) fakellm.Reply {
		if strings.Contains(req.LastUser(), "hang") {
			return hangingUpstream(req)
		}
		return fakellm.Reply{Content: "FINAL(quick)"}
	})
	defer up.Close()
	const lease = time.Second
	redis := []string{"--store", "redis", "--redis-url", storetest.StartRedis(t), "--run-lease", lease.String(), "--response-poll", "50ms"}
	a := startServer(t, up.URL, redis...)
	b := startServer(t, up.URL, redis...)

	quick := createResponse(t, a, `{"model":"rlm","input":"quick one","background":true}`)
	if got := waitResponse(t, b, quick, "completed", 10*time.Second); answerOf(got) != "quick" {
		t.Errorf("the completed response reads %+v on the other replica", got)
	}

	id := createResponse(t, a, `{"model":"rlm","input":"hang on","background":true}`)
	waitResponse(t, b, id, "in_progress", 10*time.Second)
	streamed := make(chan []string, 1)
	go func() { streamed <- streamTypes(t, b, id, "") }()
	time.Sleep(200 * time.Millisecond)
	a.kill(t)
	killed := time.Now()
	got := waitResponse(t, b, id, "failed", 4*lease+5*time.Second)
	t.Logf("failed on the other replica %v after the kill (lease %v)", time.Since(killed).Round(time.Millisecond), lease)
	if got.Error == nil || got.Error.Code != "server_stopped" {
		t.Errorf("error %+v, want server_stopped", got.Error)
	}
	types := <-streamed
	if len(types) == 0 || types[len(types)-1] != "response.failed" {
		t.Errorf("the stream B served ends with %v", types)
	}

	// A comes back: the failed response stays as it is, its events once.
	a2 := startServer(t, up.URL, redis...)
	time.Sleep(2 * lease) // a few sweeps of both
	for _, s := range []*server{a2, b} {
		if r := waitResponse(t, s, id, "failed", time.Second); r.Error == nil || r.Error.Code != "server_stopped" {
			t.Errorf("after the restart: %+v", r)
		}
		all := streamTypes(t, s, id, "")
		if strings.Join(all, " ") != "response.created response.in_progress response.failed" {
			t.Errorf("events after the restart: %v", all)
		}
	}
}

type responseView struct {
	ID     string
	Status string
	Error  *struct{ Code, Message string }
	Output []struct {
		Content []struct{ Text string }
	}
}

func answerOf(r responseView) string {
	var b strings.Builder
	for _, o := range r.Output {
		for _, c := range o.Content {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

func createResponse(t *testing.T, s *server, body string) string {
	t.Helper()
	status, out := s.do(t, "POST", "/v1/responses", keyA, []byte(body))
	var r responseView
	if err := json.Unmarshal(out, &r); status != 200 || err != nil || r.ID == "" {
		t.Fatalf("POST /v1/responses: %d %s", status, out)
	}
	return r.ID
}

// waitResponse polls a response through s until it reads want.
func waitResponse(t *testing.T, s *server, id, want string, within time.Duration) responseView {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		status, out := s.do(t, "GET", "/v1/responses/"+id, keyA, nil)
		var r responseView
		json.Unmarshal(out, &r)
		if status == 200 && r.Status == want {
			return r
		}
		if ended := r.Status == "completed" || r.Status == "failed" || r.Status == "cancelled" || r.Status == "incomplete"; ended && want != "in_progress" {
			t.Fatalf("%s reads %q, want %q: %s", id, r.Status, want, out)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s reads %d %q after %v, want %q", id, status, r.Status, within, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// streamTypes reads a background response's event stream through s to its
// end and returns the events' types but rlm.progress, checking their sequence numbers run
// on without a gap or a repeat.
func streamTypes(t *testing.T, s *server, id, after string) []string {
	req, _ := http.NewRequest("GET", s.url+"/v1/responses/"+id+"?stream=true"+after, nil)
	req.Header.Set("Authorization", "Bearer "+keyA)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Errorf("stream %s: %v", id, err)
		return nil
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var types []string
	last := -1
	for _, line := range strings.Split(string(body), "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Type string `json:"type"`
			Seq  int    `json:"sequence_number"`
		}
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Errorf("event is not JSON: %s", data)
			continue
		}
		if ev.Seq != last+1 {
			t.Errorf("event %s has sequence number %d after %d", ev.Type, ev.Seq, last)
		}
		last = ev.Seq
		if ev.Type != "rlm.progress" { // the engine's progress, as many as it made
			types = append(types, ev.Type)
		}
	}
	return types
}

// TestBackgroundResponsesUnderLoad sends 200 background responses at once,
// half to each of two replicas on one Redis, each a two-turn run with a
// REPL cell against a scripted upstream (a test double), and reads each
// back on the other replica: all complete, none is lost. The same 200 on
// one replica alone are the baseline. It logs the times and each replica's
// peak memory (BENCHMARKS.md, "Background responses").
func TestBackgroundResponsesUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("400 runs through three servers")
	}
	up := fakellm.New(func(req fakellm.Request) fakellm.Reply {
		if req.Turn() == 1 {
			return fakellm.Reply{Content: "```go\nn := len(query)\nfmt.Println(n)\n```"}
		}
		return fakellm.Reply{Content: "FINAL(done)"}
	})
	defer up.Close()
	// 200 clients from one address: no per-client connection cap.
	args := []string{"--store", "redis", "--redis-url", storetest.StartRedis(t), "--response-poll", "50ms", "--max-conns-per-client", "0"}
	alone := startServer(t, up.URL, args...)
	base := backgroundLoad(t, []*server{alone}, 200)
	pair := []*server{startServer(t, up.URL, args...), startServer(t, up.URL, args...)}
	took := backgroundLoad(t, pair, 200)
	t.Logf("200 background responses: one replica %v (%.0f/s, server peak RSS %d MiB); two replicas %v (%.0f/s, %.2fx; peak RSS %d MiB and %d MiB)",
		base.Round(time.Millisecond), 200/base.Seconds(), alone.peakRSS(t)>>20, took.Round(time.Millisecond), 200/took.Seconds(),
		base.Seconds()/took.Seconds(), pair[0].peakRSS(t)>>20, pair[1].peakRSS(t)>>20)
}

// backgroundLoad posts n background responses at once across replicas,
// reads each back on the next replica until completed, checks a sample's
// event streams, and returns the time until all completed.
func backgroundLoad(t *testing.T, replicas []*server, n int) time.Duration {
	start := time.Now()
	ids := make([]string, n)
	errs := make(chan error, n)
	for i := range n {
		go func() {
			s := replicas[i%len(replicas)]
			status, out := s.do(t, "POST", "/v1/responses", keyA, []byte(`{"model":"rlm","background":true,"input":"question `+itoa(i)+`"}`))
			var r responseView
			if err := json.Unmarshal(out, &r); status != 200 || err != nil {
				errs <- fmt.Errorf("POST %d: %d %s", i, status, out)
				return
			}
			ids[i] = r.ID
			errs <- nil
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	completed := 0
	for i, id := range ids {
		if r := waitResponse(t, replicas[(i+1)%len(replicas)], id, "completed", 2*time.Minute); answerOf(r) == "done" {
			completed++
		}
	}
	took := time.Since(start)
	if completed != n {
		t.Errorf("%d of %d background responses completed with their answer", completed, n)
	}
	for i, id := range ids[:10] { // a sample: whole event streams
		if types := streamTypes(t, replicas[(i+1)%len(replicas)], id, ""); len(types) == 0 || types[len(types)-1] != "response.completed" {
			t.Errorf("%s: stream ends with %v", id, types)
		}
	}
	return took
}
