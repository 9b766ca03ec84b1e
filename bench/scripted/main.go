// Command scripted is a scripted OpenAI-compatible upstream, a test double
// standing in for a capable model (it is not one), for running outside
// suites against `rlm serve`'s harness: the Open Responses compliance
// suite among them. Its root "model" writes the cells a capable model
// would for the usual shapes of request: it calls a client tool it is
// offered with arguments taken from the question, shows an image to the
// vision model, reads an offloaded document's title or first line, and
// otherwise answers at once; the vision "model" describes any image the
// same way. What it shows is the harness: tools, pauses and resumes,
// images, documents, the wire format; never a model's quality.
//
//	go run ./bench/scripted -listen 127.0.0.1:8900 &
//	rlm serve --upstream http://127.0.0.1:8900/v1 --root-model scripted --vision-model scripted-vision &
//	npx tsx bin/compliance-test.ts --base-url http://127.0.0.1:8080/v1 --api-key x --model rlm
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/rlm-project/rlm/internal/fakellm"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:8900", "address to listen on")
	flag.Parse()
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, "scripted:", err)
		os.Exit(1)
	}
	srv := fakellm.New(reply, fakellm.WithListener(ln))
	defer srv.Close()
	fmt.Printf("scripted upstream on %s (a test double, not a model)\n", srv.URL)
	select {}
}

var (
	toolLine   = regexp.MustCompile(`(?m)^- ([A-Za-z0-9_-]+)(?::.*?)?(?: Parameters \(JSON Schema\): (\{.*\}))?$`)
	resultLine = regexp.MustCompile(`(?m)^(tool returned|image shows|found): (.+)$`)
	subject    = regexp.MustCompile(`(?i)\b(?:in|for|of|about)\s+([A-Z][\w .,'-]*?)(?:[?.!]|$)`)
)

// reply is the script.
func reply(req fakellm.Request) fakellm.Reply {
	if strings.Contains(req.Model, "vision") {
		return fakellm.Reply{Content: "A small picture: a red shape on a light background."}
	}
	view := req.LastUser()
	if m := resultLine.FindStringSubmatch(view); m != nil {
		return fakellm.Reply{Content: "FINAL(" + strings.TrimSpace(m[2]) + ")"}
	}
	first := req.FirstUser()
	switch {
	case strings.Contains(first, "The client offers these tools") && !strings.Contains(first, "[the client's tool answered"):
		if m := toolLine.FindStringSubmatch(first[strings.Index(first, "The client offers these tools"):]); m != nil {
			return fakellm.Reply{Content: fakellm.Code(fmt.Sprintf("fmt.Println(\"tool returned:\", tool_call(%q, %s))", m[1], arguments(m[2], question(first))))}
		}
	case strings.Contains(first, "[the client's tool answered"):
		i := strings.LastIndex(first, "[the client's tool answered")
		out := first[i:]
		if j := strings.Index(out, ": "); j >= 0 {
			out = strings.TrimSuffix(strings.TrimSpace(out[j+2:]), "]")
		}
		return fakellm.Reply{Content: "FINAL(The tool says: " + oneLine(out) + ")"}
	case strings.Contains(first, "image(s), which you cannot see"):
		return fakellm.Reply{Content: fakellm.Code(`fmt.Println("image shows:", llm_query_image("Describe this image in one sentence.", 0))`)}
	case strings.Contains(first, "offloaded to the REPL"):
		return fakellm.Reply{Content: fakellm.Code(`line := ""
for _, l := range strings.Split(context, "\n") {
	if strings.TrimSpace(l) == "" { continue }
	if line == "" { line = l }
	if strings.Contains(strings.ToLower(l), "title") { line = l; break }
}
fmt.Println("found:", strings.TrimSpace(strings.TrimPrefix(line, "Title:")))`)}
	}
	return fakellm.Reply{Content: "FINAL(Hello! This is a scripted reply.)"}
}

// question is the request's question: the view's last line that asks.
func question(view string) string {
	lines := strings.Split(view, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); strings.HasSuffix(l, "?") || strings.HasSuffix(l, ".") && !strings.HasPrefix(l, "-") {
			return l
		}
	}
	return ""
}

// arguments fills a tool's string parameters with the question's subject.
func arguments(schema, q string) string {
	var s struct {
		Properties map[string]struct {
			Type string `json:"type"`
		} `json:"properties"`
	}
	json.Unmarshal([]byte(schema), &s)
	val := q
	if m := subject.FindStringSubmatch(q); m != nil {
		val = strings.TrimSpace(m[1])
	}
	var names []string
	for n, p := range s.Properties {
		if p.Type == "string" || p.Type == "" {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("map[string]any{")
	for _, n := range names {
		fmt.Fprintf(&b, "%q: %q, ", n, val)
	}
	b.WriteString("}")
	return b.String()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
