package server

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rlm-project/rlm/api"
	"github.com/rlm-project/rlm/internal/testpdf"
	"github.com/rlm-project/rlm/recursion"
	"github.com/rlm-project/rlm/store"
)

// squash drops white space: groff's PostScript encodes some word gaps as
// character spacing, which PDF text extractors do not turn back into
// spaces (see document's tests).
func squash(s string) string { return strings.Join(strings.Fields(s), "") }

// documentText returns each contexts piece a run would get from doc, given
// the whole file the fake runner read.
func documentPieces(doc recursion.Document, file string) []string {
	if len(doc.Parts) == 0 {
		return []string{file}
	}
	var out []string
	for _, p := range doc.Parts {
		out = append(out, file[p.Start:p.End])
	}
	return out
}

// TestDocuments sends files as people have them, uploaded and inline,
// through the HTTP server: a PDF reaches the run as one piece per page, an
// HTML page as its text, and binary content is refused with a 400 that
// names the file part, leaving nothing stored and no temporary file.
func TestDocuments(t *testing.T) {
	pages := []string{"Lighthouses guard the northern coast.", "Tides rise twice daily here.", "Keepers logged every storm."}
	pdf := testpdf.Make(t, pages)
	rng := rand.New(rand.NewPCG(5, 6))
	random := make([]byte, 8192)
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	elf := append([]byte("\x7fELF\x02\x01\x01\x00"), random[:2000]...)
	html := `<html><head><script>alert("no")</script></head><body><h1>Title</h1><p>Para <i>one</i>.</p><ul><li>a</li><li>b</li></ul></body></html>`
	dataURL := func(mt string, b []byte) string {
		return "data:" + mt + ";base64," + base64.StdEncoding.EncodeToString(b)
	}

	tests := []struct {
		name     string
		upload   []byte // uploaded under filename, then referenced by id; or
		inline   string // a file_data data URL
		filename string
		status   int
		pieces   []string // what the run gets, compared without white space
		code     string   // of a refusal
		param    string
		msg      string
		chats    int // requests using the document; 1 when 0
	}{
		{name: "uploaded PDF", upload: pdf, filename: "coast.pdf", status: 200, pieces: pages},
		{name: "inline PDF", inline: dataURL("application/pdf", pdf), filename: "coast.pdf", status: 200, pieces: pages},
		{name: "uploaded HTML", upload: []byte(html), filename: "page.html", status: 200, pieces: []string{"Title\n\nPara one.\n\na\nb"}},
		{name: "inline HTML by type", inline: dataURL("text/html", []byte(html)), filename: "page", status: 200, pieces: []string{"Title\n\nPara one.\n\na\nb"}},
		{name: "uploaded text", upload: []byte("plain notes\n"), filename: "notes.txt", status: 200, pieces: []string{"plain notes\n"}},
		{name: "uploaded ELF", upload: elf, filename: "notes.txt", status: 400, code: "unsupported_file_type", param: "file", msg: "ELF executable"},
		{name: "uploaded random bytes", upload: random, filename: "data.bin", status: 400, code: "unsupported_file_type", param: "file", msg: "binary data"},
		{name: "inline ELF", inline: dataURL("application/octet-stream", elf), filename: "a.out", status: 400, code: "unsupported_file_type",
			param: "messages[0].content[1].file", msg: "ELF executable"},
		{name: "inline truncated PDF", inline: dataURL("application/pdf", pdf[:len(pdf)/2]), filename: "cut.pdf", status: 400,
			code: "malformed_document", param: "messages[0].content[1].file", msg: "could not be read"},
		{name: "uploaded truncated PDF", upload: pdf[:len(pdf)/2], filename: "cut.pdf", status: 400, code: "malformed_document",
			param: "file", msg: "could not be read"},
		{name: "uploaded PDF again", upload: pdf, filename: "coast.pdf", status: 200, pieces: pages, chats: 2},
		{name: "inline garbage PDF", inline: dataURL("application/pdf", append([]byte("%PDF-1.7\n"), random...)), filename: "junk.pdf", status: 400,
			code: "malformed_document", param: "messages[0].content[1].file", msg: "could not be read"},
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	fr := &fakeRunner{result: finalResult("ok")}
	ts := startServer(t, Config{}, nil, fr)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runs := len(fr.requests())
			file := map[string]string{"filename": tt.filename, "file_data": tt.inline}
			if tt.upload != nil {
				resp := upload(t, ts.URL, "", tt.filename, bytes.NewReader(tt.upload))
				if resp.Status != 200 {
					if resp.Status != tt.status {
						t.Fatalf("upload: %d %s", resp.Status, resp.Body)
					}
					checkErrorBody(t, resp, "invalid_request_error", tt.param, tt.msg)
					if code, _ := resp.json(t)["error"].(map[string]any)["code"].(string); code != tt.code {
						t.Errorf("code %q, want %q", code, tt.code)
					}
					if list := do(t, "GET", ts.URL+"/v1/files", "", nil).json(t); len(list["data"].([]any)) != 0 {
						t.Errorf("a refused upload was stored: %v", list)
					}
					return
				}
				var f api.File
				json.Unmarshal(resp.Body, &f)
				file = map[string]string{"file_id": f.ID}
				defer do(t, "DELETE", ts.URL+"/v1/files/"+f.ID, "", nil)
			}
			part, _ := json.Marshal(map[string]any{"type": "file", "file": file})
			body := fmt.Sprintf(`{"model":"rlm","messages":[{"role":"user","content":[{"type":"text","text":"what is on page 2?"},%s]}]}`, part)
			var resp response
			for range max(tt.chats, 1) {
				resp = do(t, "POST", ts.URL+"/v1/chat/completions", "", strings.NewReader(body))
				if resp.Status != tt.status {
					t.Fatalf("chat: %d, want %d: %s", resp.Status, tt.status, resp.Body)
				}
			}
			if left, _ := filepath.Glob(filepath.Join(tmp, "rlm-*")); len(left) != 0 {
				t.Errorf("temporary files left: %q", left)
			}
			reqs := fr.requests()
			if tt.status != 200 {
				checkErrorBody(t, resp, "invalid_request_error", tt.param, tt.msg)
				if code, _ := resp.json(t)["error"].(map[string]any)["code"].(string); code != tt.code {
					t.Errorf("code %q, want %q", code, tt.code)
				}
				if len(reqs) != runs {
					t.Error("a refused document started a run")
				}
				return
			}
			doc := reqs[len(reqs)-1].Documents[0]
			fr.mu.Lock()
			got := documentPieces(doc, fr.docs[len(fr.docs)-1])
			fr.mu.Unlock()
			if len(got) != len(tt.pieces) {
				t.Fatalf("%d pieces %q, want %d", len(got), got, len(tt.pieces))
			}
			for i := range got {
				if squash(got[i]) != squash(tt.pieces[i]) || tt.upload != nil && !strings.HasSuffix(tt.filename, ".pdf") && got[i] != tt.pieces[i] {
					t.Errorf("piece %d = %q, want %q", i, got[i], tt.pieces[i])
				}
				if len(doc.Parts) > 0 && doc.Parts[i].Label != fmt.Sprintf("page %d", i+1) {
					t.Errorf("part %d is labelled %q", i, doc.Parts[i].Label)
				}
			}
			if doc.Name != tt.filename {
				t.Errorf("document name %q, want %q", doc.Name, tt.filename)
			}
		})
	}
	// Each PDF was read once: the uploaded ones when they came (not again
	// for each of the three requests that used them), the inline one in
	// its request. The refusals are counted by code.
	metrics := string(do(t, "GET", ts.URL+"/metrics", "", nil).Body)
	for _, want := range []string{`rlm_documents_read_total{result="PDF"} 3`, `rlm_documents_read_total{result="HTML"} 2`,
		`rlm_documents_read_total{result="malformed_document"} 3`, `rlm_documents_read_total{result="unsupported_file_type"} 3`,
		`rlm_documents_read_total{result="text"} 1`} {
		if !strings.Contains(metrics, want+"\n") {
			t.Errorf("metrics lack %q", want)
		}
	}
}

// testStoredDocuments: an uploaded PDF's text and pages are kept in the
// store beside the file, serve every request that uses it, and go with the
// file when it is deleted.
func testStoredDocuments(t *testing.T, st store.Store) {
	pages := []string{"First page of the stored PDF.", "Second page of it."}
	pdf := testpdf.Make(t, pages)
	fr := &fakeRunner{result: finalResult("ok")}
	ts := startServer(t, Config{}, st, fr)
	resp := upload(t, ts.URL, "", "stored.pdf", bytes.NewReader(pdf))
	if resp.Status != 200 {
		t.Fatalf("upload: %d %s", resp.Status, resp.Body)
	}
	var f api.File
	json.Unmarshal(resp.Body, &f)
	body := fmt.Sprintf(`{"model":"rlm","messages":[{"role":"user","content":[{"type":"file","file":{"file_id":%q}}]}]}`, f.ID)
	if got := do(t, "POST", ts.URL+"/v1/chat/completions", "", strings.NewReader(body)); got.Status != 200 {
		t.Fatalf("chat: %d %s", got.Status, got.Body)
	}
	doc := fr.requests()[0].Documents[0]
	got := documentPieces(doc, fr.docs[0])
	if len(got) != 2 || squash(got[0]) != squash(pages[0]) || squash(got[1]) != squash(pages[1]) {
		t.Fatalf("pieces %q", got)
	}
	ctx := t.Context()
	for _, coll := range []string{collFiles, collFileText, collFilePages} {
		if keys, _ := st.List(ctx, coll, ""); len(keys) != 1 {
			t.Errorf("%s holds %q, want the upload", coll, keys)
		}
	}
	if got := do(t, "GET", ts.URL+"/v1/files/"+f.ID+"/content", "", nil); !bytes.Equal(got.Body, pdf) {
		t.Error("the file's content is not the PDF as uploaded")
	}
	do(t, "DELETE", ts.URL+"/v1/files/"+f.ID, "", nil)
	for _, coll := range []string{collFiles, collFileText, collFilePages, collFileMeta} {
		if keys, _ := st.List(ctx, coll, ""); len(keys) != 0 {
			t.Errorf("after delete, %s holds %q", coll, keys)
		}
	}
}
