// Package web holds the playground's browser side: templ pages (package templates) and the
// static files — ES modules, CSS and the vendored uPlot — embedded so that one binary serves
// everything offline.
package web

import (
	"embed"
	"io/fs"
)

//go:embed static
var static embed.FS

// Static is the static file tree served under /static/.
var Static, _ = fs.Sub(static, "static")
