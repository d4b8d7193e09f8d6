package api

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"time"
)

// staticFiles serves the embedded static tree: files only (no directory listings), each with a
// strong ETag so that browsers revalidate with a conditional request and get 304, and a gzip
// copy, made once at start, for browsers that accept it.
type staticFiles struct {
	files map[string]*staticFile // by path relative to the tree's root
}

type staticFile struct {
	ctype      string
	body, gz   []byte // gz is nil when compression does not pay
	etag, etgz string
}

// minGzip is the smallest file worth compressing.
const minGzip = 512

// newStaticFiles reads every regular file of fsys.
func newStaticFiles(fsys fs.FS) (*staticFiles, error) {
	sf := &staticFiles{files: map[string]*staticFile{}}
	err := fs.WalkDir(fsys, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return err
		}
		f := &staticFile{ctype: mime.TypeByExtension(path.Ext(name)), body: body}
		if f.ctype == "" {
			f.ctype = http.DetectContentType(body)
		}
		sum := sha256.Sum256(body)
		tag := base64.RawURLEncoding.EncodeToString(sum[:12])
		f.etag = `"` + tag + `"`
		if len(body) >= minGzip {
			var b bytes.Buffer
			zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
			zw.Write(body)
			zw.Close()
			if b.Len() < len(body)*9/10 {
				f.gz, f.etgz = b.Bytes(), `"`+tag+`-gz"`
			}
		}
		sf.files[name] = f
		return nil
	})
	return sf, err
}

// serve writes the file the request's path names below prefix. Anything else — a directory,
// a path that is not valid UTF-8 or not clean — is not found.
func (sf *staticFiles) serve(w http.ResponseWriter, r *http.Request, prefix string, notFound http.HandlerFunc) {
	name, ok := strings.CutPrefix(r.URL.Path, prefix)
	f := sf.files[name]
	if !ok || f == nil || !fs.ValidPath(name) {
		notFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Type", f.ctype)
	// Revalidate every time: the page's modules import each other by fixed names, so a
	// long max-age could mix old and new files after an upgrade. A repeat visit costs one
	// 304 per file.
	h.Set("Cache-Control", "no-cache")
	body, etag := f.body, f.etag
	if f.gz != nil {
		h.Add("Vary", "Accept-Encoding")
		if acceptsGzip(r.Header.Get("Accept-Encoding")) {
			body, etag = f.gz, f.etgz
			h.Set("Content-Encoding", "gzip")
		}
	}
	h.Set("ETag", etag)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(body))
}

// acceptsGzip reports whether an Accept-Encoding header value accepts gzip (RFC 9110,
// section 12.5.3): listed, or covered by "*", without q=0.
func acceptsGzip(header string) bool {
	ok := false
	for part := range strings.SplitSeq(header, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		coding = strings.ToLower(strings.TrimSpace(coding))
		if coding != "gzip" && coding != "x-gzip" && coding != "*" {
			continue
		}
		zero := false
		for p := range strings.SplitSeq(params, ";") {
			k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
			if strings.EqualFold(strings.TrimSpace(k), "q") {
				v = strings.TrimRight(strings.TrimSpace(v), "0")
				zero = v == "" || v == "0." || v == "0"
			}
		}
		if coding == "*" {
			ok = ok || !zero
			continue
		}
		return !zero
	}
	return ok
}
