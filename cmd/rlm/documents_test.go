package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/rlm-project/rlm/internal/fakellm"
	"github.com/rlm-project/rlm/internal/testpdf"
)

// TestServePDFInChatMessage sends a PDF as a file part of a chat message to
// the real gateway, engine and REPL. The upstream is fakellm, a scripted
// test double, not a model: its "root model" writes Go that looks for a
// phrase in each page (contexts[i]) and answers with the page it found.
func TestServePDFInChatMessage(t *testing.T) {
	pages := []string{"Lighthouses guard the northern coast.", "Tides rise twice daily here.", "Keepers logged every storm."}
	pdf := testpdf.Make(t, pages)
	found := regexp.MustCompile(`found on page (\d+) of (\d+)`)
	up := fakellm.New(func(req fakellm.Request) fakellm.Reply {
		if m := found.FindStringSubmatch(req.LastUser()); m != nil {
			return fakellm.Reply{Content: fmt.Sprintf("FINAL(page %s of %s)", m[1], m[2])}
		}
		if req.Turn() > 1 {
			return fakellm.Reply{Content: "FINAL(not found)"}
		}
		return fakellm.Reply{Content: fakellm.Code(`import (
	"fmt"
	"strings"
)
for i, page := range contexts {
	// Word gaps in this PDF are positions, not spaces: compare without them.
	if strings.Contains(strings.Join(strings.Fields(page), ""), "Tidesrise") {
		fmt.Printf("found on page %d of %d\n", i+1, len(contexts))
	}
}`)}
	})
	defer up.Close()
	s := startServe(t, upstreamArgs(up.URL)...)
	file := map[string]any{"type": "file", "file": map[string]string{
		"filename": "coast.pdf", "file_data": "data:application/pdf;base64," + base64.StdEncoding.EncodeToString(pdf)}}
	body, _ := json.Marshal(map[string]any{"model": "rlm", "messages": []any{map[string]any{"role": "user",
		"content": []any{map[string]string{"type": "text", "text": "Which page talks about tides?"}, file}}}})
	resp, err := http.Post(s.URL+"/v1/chat/completions", "application/json", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var comp struct {
		Choices []struct {
			Message struct{ Content string }
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&comp); err != nil || resp.StatusCode != 200 || len(comp.Choices) != 1 {
		t.Fatalf("status %d, %v, %+v", resp.StatusCode, err, comp)
	}
	if got := comp.Choices[0].Message.Content; got != "page 2 of 3" {
		t.Errorf("answer %q, want \"page 2 of 3\"", got)
	}
	// The root saw one placeholder for the three pages (the head of the
	// first, the tail of the last), not the pages themselves.
	first := up.Requests()[0].LastUser()
	if !strings.Contains(first, `contexts[0..2], document "coast.pdf", 3 parts (page 1 to page 3)`) || strings.Contains(first, "Tides") {
		t.Errorf("the root's view of the document:\n%s", first)
	}
}
