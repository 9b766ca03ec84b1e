package fakellm

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

func post(t *testing.T, url, body string) (*http.Response, map[string]any) {
	t.Helper()
	resp, err := http.Post(url+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return resp, out
}

func TestServer(t *testing.T) {
	tests := []struct {
		name       string
		opts       []Option
		script     Script
		wantStatus []int
		wantText   string
	}{
		{"scripted reply from the request", nil, func(r Request) Reply {
			return Reply{Content: r.Model + ":" + r.LastUser() + ":" + r.System()}
		}, []int{200}, "m:hello:sys"},
		{"injected 429 with Retry-After, then the script", []Option{WithFailures(1, 429, "2")}, func(r Request) Reply {
			return Reply{Content: "ok"}
		}, []int{429, 200}, "ok"},
		{"scripted 500", nil, func(r Request) Reply { return Reply{Status: 500} }, []int{500}, ""},
	}
	body := `{"model":"m","messages":[{"role":"system","content":"sys"},{"role":"user","content":"hello"}],"temperature":0}`
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(tt.script, tt.opts...)
			defer s.Close()
			var last map[string]any
			for i, want := range tt.wantStatus {
				resp, out := post(t, s.URL, body)
				if resp.StatusCode != want {
					t.Fatalf("request %d: status %d, want %d", i, resp.StatusCode, want)
				}
				if want == 429 && resp.Header.Get("Retry-After") != "2" {
					t.Errorf("Retry-After %q", resp.Header.Get("Retry-After"))
				}
				last = out
			}
			if tt.wantText != "" {
				msg := last["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)["content"]
				if msg != tt.wantText {
					t.Errorf("content %v, want %q", msg, tt.wantText)
				}
				if last["usage"].(map[string]any)["total_tokens"].(float64) <= 0 {
					t.Error("no usage")
				}
			}
			reqs := s.Requests()
			if len(reqs) != len(tt.wantStatus) || !bytes.Equal(reqs[0].Body, []byte(body)) || string(reqs[0].Fields["temperature"]) != "0" {
				t.Errorf("recording %+v", reqs)
			}
		})
	}
}

func TestLatencyAndTurn(t *testing.T) {
	s := New(func(r Request) Reply { return Reply{Content: strings.Repeat("x", r.Turn())} }, WithLatency(50*time.Millisecond))
	defer s.Close()
	start := time.Now()
	_, out := post(t, s.URL, `{"model":"m","messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"user","content":"c"}]}`)
	if time.Since(start) < 50*time.Millisecond {
		t.Error("latency not applied")
	}
	if got := out["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)["content"]; got != "xx" {
		t.Errorf("turn content %v", got)
	}
	if s.MaxInFlight() != 1 {
		t.Errorf("max in flight %d", s.MaxInFlight())
	}
}
