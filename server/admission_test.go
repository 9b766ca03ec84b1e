package server

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rlm-project/rlm/api"
)

// manyMessages is a chat body of n tiny messages.
func manyMessages(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"model":"rlm","messages":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"role":"user","content":"m%d"}`, i)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// TestRequestCaps: messages, content parts (all messages together), stop
// sequences and metadata keys past their caps are refused with a 400 in
// OpenAI's words naming the parameter; at the cap they pass.
func TestRequestCaps(t *testing.T) {
	ts := startServer(t, Config{MaxMessages: 3, MaxContentParts: 4}, nil, nil)
	parts := func(n int) string {
		p := make([]string, n)
		for i := range p {
			p[i] = `{"type":"text","text":"p"}`
		}
		return "[" + strings.Join(p, ",") + "]"
	}
	meta := func(n int) string {
		kv := make([]string, n)
		for i := range kv {
			kv[i] = fmt.Sprintf(`"k%d":"v"`, i)
		}
		return "{" + strings.Join(kv, ",") + "}"
	}
	for _, tt := range []struct {
		name, body, param, code, msg string
	}{
		{"3 messages", string(manyMessages(3)), "", "", ""},
		{"4 messages", string(manyMessages(4)), "messages", "array_above_max_length", "Invalid 'messages': array too long. This server takes at most 3 messages in one request."},
		{"4 parts in 2 messages", `{"model":"rlm","messages":[{"role":"user","content":` + parts(2) + `},{"role":"user","content":` + parts(2) + `}]}`, "", "", ""},
		{"5 parts in 2 messages", `{"model":"rlm","messages":[{"role":"user","content":` + parts(2) + `},{"role":"user","content":` + parts(3) + `}]}`,
			"messages[1].content", "array_above_max_length", "at most 4 content parts in all messages together"},
		{"4 stop sequences", `{"model":"rlm","messages":[{"role":"user","content":"x"}],"stop":["a","b","c","d"]}`, "", "", ""},
		{"5 stop sequences", `{"model":"rlm","messages":[{"role":"user","content":"x"}],"stop":["a","b","c","d","e"]}`, "stop", "array_above_max_length", "at most 4 stop sequences"},
		{"16 metadata keys", `{"model":"rlm","store":true,"messages":[{"role":"user","content":"x"}],"metadata":` + meta(16) + `}`, "", "", ""},
		{"17 metadata keys", `{"model":"rlm","messages":[{"role":"user","content":"x"}],"metadata":` + meta(17) + `}`, "metadata", "object_above_max_properties", "but got an object with 17 properties"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp := do(t, "POST", ts.URL+"/v1/chat/completions", "", strings.NewReader(tt.body))
			if tt.param == "" {
				if resp.Status != 200 {
					t.Fatalf("%d %s", resp.Status, resp.Body)
				}
				return
			}
			if resp.Status != 400 {
				t.Fatalf("%d %s, want 400", resp.Status, resp.Body)
			}
			e := resp.json(t)["error"].(map[string]any)
			if e["param"] != tt.param || e["code"] != tt.code || e["type"] != "invalid_request_error" || !strings.Contains(e["message"].(string), tt.msg) {
				t.Errorf("error %v; want param %s, code %s, a message with %q", e, tt.param, tt.code, tt.msg)
			}
		})
	}
}

// TestTinyMessagesRefusedWhileDecoding: a body of 1.25 million tiny
// messages is refused at the cap's first message past it. Decoding it
// whole built a message object (and later a transcript line) per message:
// the audit's 58 MB body took the server to 1 GB. What the decoder
// allocates now is the body's buffer and the capped messages, nothing per
// refused message.
func TestTinyMessagesRefusedWhileDecoding(t *testing.T) {
	body := manyMessages(1_250_000)
	cfg := Config{}.withDefaults()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := decodeChatRequestSized(bytes.NewReader(body), int64(len(body)), cfg)
	runtime.ReadMemStats(&after)
	ae, ok := err.(*api.Error)
	if !ok || ae.Status != 400 || ae.Param != "messages" || ae.Code != "array_above_max_length" {
		t.Fatalf("err %v, want 400 array_above_max_length on messages", err)
	}
	allocated := after.TotalAlloc - before.TotalAlloc
	if limit := uint64(len(body)) + 4<<20; allocated > limit {
		t.Errorf("decoding a %d-byte body allocated %d MiB, over %d MiB", len(body), allocated>>20, limit>>20)
	}
	t.Logf("%d-byte body: refused after allocating %d MiB", len(body), allocated>>20)
}

// TestAdmissionBeforeDocuments: a request that finds every run slot busy
// is turned away before its inline file is decoded, written and read: it
// used to be, and only then did it wait for a slot and get 429.
func TestAdmissionBeforeDocuments(t *testing.T) {
	fr := &fakeRunner{result: finalResult("x"), block: make(chan struct{}), started: make(chan struct{}, 4)}
	ts := startServer(t, Config{MaxConcurrent: 1, QueueWait: 100 * time.Millisecond}, nil, fr)
	running := make(chan response, 1)
	go func() { running <- do(t, "POST", ts.URL+"/v1/chat/completions", "", chatBody("")) }()
	<-fr.started
	data := base64.StdEncoding.EncodeToString([]byte("the attached text"))
	body := `{"model":"rlm","messages":[{"role":"user","content":[{"type":"text","text":"read it"},` +
		`{"type":"file","file":{"filename":"a.txt","file_data":"` + data + `"}}]}]}`
	resp := do(t, "POST", ts.URL+"/v1/chat/completions", "", strings.NewReader(body))
	if resp.Status != 429 {
		t.Fatalf("%d %s; want 429", resp.Status, resp.Body)
	}
	metrics := do(t, "GET", ts.URL+"/metrics", "", nil)
	if bytes.Contains(metrics.Body, []byte("rlm_documents_read_total{")) {
		t.Errorf("the refused request's file was read:\n%s", grepLines(metrics.Body, "rlm_documents_read_total"))
	}
	close(fr.block)
	if r := <-running; r.Status != 200 {
		t.Fatalf("running: %d", r.Status)
	}
	// With a slot free, the same request reads its file and runs.
	if resp := do(t, "POST", ts.URL+"/v1/chat/completions", "", strings.NewReader(body)); resp.Status != 200 {
		t.Fatalf("%d %s", resp.Status, resp.Body)
	}
	if docs := fr.docs; len(docs) != 1 || docs[0] != "the attached text" {
		t.Errorf("documents %q", docs)
	}
	// Bad base64 is still a 400 naming the part, now found after
	// admission: a bad character, or data cut short.
	for _, b64 := range []string{"!!!not-base64", data[:len(data)-3]} {
		bad := strings.Replace(body, data, b64, 1)
		resp = do(t, "POST", ts.URL+"/v1/chat/completions", "", strings.NewReader(bad))
		if resp.Status != 400 || !bytes.Contains(resp.Body, []byte(`"messages[0].content[1].file.file_data"`)) {
			t.Errorf("bad base64 %q: %d %s", b64, resp.Status, resp.Body)
		}
	}
}

func grepLines(b []byte, s string) string {
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, s) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestFullServerRefusesBeforeBody: with every run slot busy and the queue
// full, a chat request is answered 429 from its headers: the server does
// not first wait for (and hold) a body it would refuse.
func TestFullServerRefusesBeforeBody(t *testing.T) {
	fr := &fakeRunner{result: finalResult("x"), block: make(chan struct{}), started: make(chan struct{}, 4)}
	ts := startServer(t, Config{MaxConcurrent: 1, MaxQueued: 1, QueueWait: 10 * time.Second}, nil, fr)
	running, queued := fillSlotAndQueue(t, ts, fr)
	// Headers announce a body that never comes.
	c := dial(t, ts.URL)
	fmt.Fprint(c, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n")
	c.SetReadDeadline(time.Now().Add(3 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer before the body: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 429 || !bytes.Contains(b, []byte("rate_limit_exceeded")) {
		t.Errorf("%d %s; want 429", resp.StatusCode, b)
	}
	close(fr.block)
	<-running
	<-queued
}
