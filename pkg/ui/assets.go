package ui

import (
	"embed"
	"io/fs"
	"net/http"
)

// web holds the page: index.html, style.css and the ES modules under js/,
// embedded in the binary so the view works offline, with no CDN and no
// build step. The JavaScript is written to be read.
//
//go:embed web
var web embed.FS

// assetHandler serves the embedded page.
func assetHandler() http.Handler {
	root, err := fs.Sub(web, "web")
	if err != nil {
		panic(err) // the embedded tree always has web/
	}
	files := http.FileServerFS(root)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The page is small and changes with the binary: never serve a
		// stale module next to a new one.
		w.Header().Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
	})
}
