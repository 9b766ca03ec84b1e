package hostile

import (
	"encoding/json"
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
