package document

import (
	"context"
	"errors"
	"io"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
)

// htmlText writes the text of an HTML document to w, as a reader sees it:
// scripts, styles and other non-content elements are skipped, runs of white
// space collapse to one space (except inside <pre>), and block elements
// (paragraphs, headings, list items, table rows, <br>) end lines, so that
// the document's structure survives as line breaks; a table row's cells
// are parted by " | ", so that its columns survive too. The declared media type
// and <meta charset> choose the encoding; the text written is UTF-8.
func htmlText(ctx context.Context, w *strings.Builder, r io.Reader, mediaType string) error {
	r, err := charset.NewReader(r, mediaType)
	if err != nil {
		return &Error{Kind: Malformed, Msg: "the HTML's character set is not supported: " + err.Error(), Err: err}
	}
	z := html.NewTokenizer(r)
	out := textOut{b: w}
	skip, pre := 0, 0 // depths inside skipped elements and inside <pre>
	for n := 0; ; n++ {
		if n%1024 == 0 && ctx.Err() != nil {
			return timeoutError(ctx)
		}
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			if errors.Is(z.Err(), io.EOF) {
				return nil
			}
			return &Error{Kind: Malformed, Msg: "the HTML could not be read: " + z.Err().Error(), Err: z.Err()}
		case html.TextToken:
			if skip == 0 {
				out.text(string(z.Text()), pre > 0)
			}
		case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			if skipped[a] {
				switch {
				case tt == html.StartTagToken:
					skip++
				case tt == html.EndTagToken && skip > 0:
					skip--
				}
				continue
			}
			if skip > 0 {
				continue
			}
			switch {
			case a == atom.Br:
				out.lineBreak()
			case a == atom.Pre:
				if tt == html.StartTagToken {
					pre++
				} else if tt == html.EndTagToken && pre > 0 {
					pre--
				}
				out.boundary(2)
			case paragraphs[a]:
				out.boundary(2)
			case blocks[a]:
				out.boundary(1)
			case (a == atom.Td || a == atom.Th) && tt == html.EndTagToken:
				out.cell = true // cells of a row stay on its line, parted by " | "
			}
		}
	}
}

// textOut writes text with HTML's white-space rules. Spaces and line breaks
// are owed rather than written, so that none lead or trail the document and
// consecutive boundaries give one blank line at most.
type textOut struct {
	b      *strings.Builder
	breaks int  // line breaks owed before the next text
	space  bool // a space owed before the next text
	cell   bool // a table cell's end owed: " | " before the next text
}

func (o *textOut) text(s string, pre bool) {
	for len(s) > 0 {
		word := len(s) // in <pre>, everything is a word
		if !pre {
			start := 0
			for start < len(s) && isHTMLSpace(s[start]) {
				start++
			}
			if start > 0 {
				o.space = true
				s = s[start:]
			}
			for word = 0; word < len(s) && !isHTMLSpace(s[word]); word++ {
			}
			if word == 0 {
				return
			}
		}
		if o.b.Len() > 0 {
			switch {
			case o.breaks > 0:
				o.b.WriteString("\n\n"[:o.breaks])
			case o.cell:
				o.b.WriteString(" | ")
			case o.space:
				o.b.WriteByte(' ')
			}
		}
		o.breaks, o.space, o.cell = 0, false, false
		o.b.WriteString(s[:word])
		s = s[word:]
	}
}

// boundary ends a block: the next text starts n lines down (n is 1 or 2).
func (o *textOut) boundary(n int) {
	o.breaks = max(o.breaks, n)
	o.space, o.cell = false, false
}

// lineBreak is a <br>: unlike a block boundary, several add up.
func (o *textOut) lineBreak() {
	o.breaks = min(o.breaks+1, 2)
	o.space, o.cell = false, false
}

func isHTMLSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
}

// skipped elements hold no text a reader sees.
var skipped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Svg: true, atom.Iframe: true, atom.Object: true, atom.Canvas: true,
}

// paragraphs are set apart by a blank line.
var paragraphs = map[atom.Atom]bool{
	atom.P: true, atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true,
	atom.Blockquote: true, atom.Table: true, atom.Ul: true, atom.Ol: true, atom.Dl: true,
	atom.Hr: true, atom.Figure: true,
}

// blocks start and end lines.
var blocks = map[atom.Atom]bool{
	atom.Div: true, atom.Li: true, atom.Tr: true, atom.Dt: true, atom.Dd: true, atom.Section: true,
	atom.Article: true, atom.Header: true, atom.Footer: true, atom.Nav: true, atom.Aside: true, atom.Main: true,
	atom.Title: true, atom.Caption: true, atom.Figcaption: true, atom.Address: true, atom.Form: true,
	atom.Fieldset: true, atom.Legend: true, atom.Details: true, atom.Summary: true, atom.Body: true,
	atom.Option: true,
}
