package traceapi

import (
	"embed"
	"io/fs"
	"net/http"

	"github.com/labstack/echo/v5"
)

//go:embed ui
var uiFiles embed.FS

// UIHandler serves the web viewer's assets (HTML, JS, CSS: all embedded, no
// CDN) for mounting at /ui/: mux.Handle("/ui/", traceapi.UIHandler()); it
// redirects /ui and / to /ui/. The
// viewer calls the trace API at ../v1/ relative to itself, with the API key
// the user types in (kept in the browser's localStorage).
func UIHandler() http.Handler {
	sub, err := fs.Sub(uiFiles, "ui")
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	files := http.StripPrefix("/ui/", http.FileServerFS(sub))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ui":
			http.Redirect(w, r, "/ui/", http.StatusMovedPermanently)
			return
		case "/":
			// Not permanent: the gateway may serve a page of its own one day.
			http.Redirect(w, r, "/ui/", http.StatusFound)
			return
		}
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; style-src 'self'; img-src 'self' data:")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
	})
}

// RegisterUI mounts the viewer on e as rlm serve does: /ui/ and its assets,
// and / and /ui redirecting to /ui/, since the gateway has no page of its
// own and a person who opens its address wants the viewer.
func RegisterUI(e *echo.Echo) {
	ui := echo.WrapHandler(UIHandler())
	e.GET("/", ui)
	e.GET("/ui", ui)
	e.GET("/ui/*", ui)
}
