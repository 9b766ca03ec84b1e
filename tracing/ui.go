package tracing

import (
	"embed"
	"io/fs"
	"net/http"
)

//go:embed ui
var uiFiles embed.FS

// UIHandler serves the web viewer's assets (HTML, JS, CSS: all embedded, no
// CDN) for mounting at /ui/: mux.Handle("/ui/", tracing.UIHandler()). The
// viewer calls the trace API at ../v1/ relative to itself, with the API key
// the user types in (kept in the browser's localStorage).
func UIHandler() http.Handler {
	sub, err := fs.Sub(uiFiles, "ui")
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	files := http.StripPrefix("/ui/", http.FileServerFS(sub))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/ui" {
			http.Redirect(w, r, "/ui/", http.StatusMovedPermanently)
			return
		}
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; style-src 'self'; img-src 'self' data:")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
	})
}
