package api_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/coder/websocket"

	"github.com/resilience-playground/playground/api"
)

// Do sends a request with the given method, Host and headers and returns the response (body
// closed) and its body.
func (s *Server) Do(tb testing.TB, method, host, path string, header http.Header) (*http.Response, []byte) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, s.URL+path, nil)
	if err != nil {
		tb.Fatalf("%s %.80s: %v", method, path, err)
	}
	if host != "" {
		req.Host = host
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := s.Client().Do(req)
	if err != nil {
		tb.Fatalf("%s %.80s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatalf("%s %.80s: reading body: %v", method, path, err)
	}
	return resp, b
}

// TestBadRequests extends the bad-input table beyond parameters: foreign Host headers (DNS
// rebinding), methods a route does not serve, and paths under /static that name no file.
// Every one gets a clear status and, under /api/, the JSON error shape.
func TestBadRequests(t *testing.T) {
	srv := MustOpenServer(t, WithConfig(func(c *api.Config) { c.AllowedHosts = []string{"play.example.org", "*.class.example"} }))
	const (
		jsonBody = "json"
		htmlBody = "html"
	)
	for _, tc := range []struct {
		name, method, host, path string
		code                     int
		body                     string // jsonBody, htmlBody or "" (any)
		allow                    string // want this Allow header
	}{
		// Host.
		{"foreign host, API", "GET", "evil.example:8080", "/api/v1/free?n=1", http.StatusMisdirectedRequest, jsonBody, ""},
		{"foreign host, page", "GET", "evil.example", "/backoff", http.StatusMisdirectedRequest, htmlBody, ""},
		{"foreign host, static", "GET", "evil.example", "/static/app.js", http.StatusMisdirectedRequest, htmlBody, ""},
		{"foreign host, metrics", "GET", "evil.example", "/metrics", http.StatusMisdirectedRequest, jsonBody, ""},
		{"host that ends like an allowed one", "GET", "evilplay.example.org", "/api/v1/free?n=1", http.StatusMisdirectedRequest, jsonBody, ""},
		{"allowed host suffix as a prefix", "GET", "play.example.org.evil.example", "/", http.StatusMisdirectedRequest, htmlBody, ""},
		{"empty-looking host", "GET", ":8080", "/", http.StatusMisdirectedRequest, htmlBody, ""},
		{"allowed host", "GET", "play.example.org:8080", "/api/v1/free?n=1", http.StatusOK, jsonBody, ""},
		{"allowed host, any case, trailing dot", "GET", "PLAY.Example.org.", "/", http.StatusOK, htmlBody, ""},
		{"allowed pattern", "GET", "room4.class.example", "/backoff", http.StatusOK, htmlBody, ""},
		{"loopback name", "GET", "localhost:9999", "/", http.StatusOK, htmlBody, ""},
		{"IPv4 address", "GET", "192.0.2.7:8080", "/api/v1/free?n=1", http.StatusOK, jsonBody, ""},
		{"IPv6 address", "GET", "[2001:db8::1]:8080", "/api/v1/free?n=1", http.StatusOK, jsonBody, ""},
		{"health check, any host", "GET", "lb.internal", "/healthz", http.StatusOK, jsonBody, ""},
		// Methods.
		{"HEAD healthz", "HEAD", "", "/healthz", http.StatusOK, "", ""},
		{"HEAD readyz", "HEAD", "", "/readyz", http.StatusOK, "", ""},
		{"HEAD page", "HEAD", "", "/backoff", http.StatusOK, "", ""},
		{"HEAD metrics", "HEAD", "", "/metrics", http.StatusOK, "", ""},
		{"HEAD static", "HEAD", "", "/static/app.js", http.StatusOK, "", ""},
		{"POST metrics", "POST", "", "/metrics", http.StatusMethodNotAllowed, htmlBody, "GET, HEAD"},
		{"PUT metrics", "PUT", "", "/metrics", http.StatusMethodNotAllowed, htmlBody, "GET, HEAD"},
		{"DELETE metrics", "DELETE", "", "/metrics", http.StatusMethodNotAllowed, htmlBody, "GET, HEAD"},
		{"POST API", "POST", "", "/api/v1/free?n=1", http.StatusMethodNotAllowed, jsonBody, "GET, HEAD"},
		{"DELETE API", "DELETE", "", "/api/v1/backoff", http.StatusMethodNotAllowed, jsonBody, "GET, HEAD"},
		{"PATCH stream", "PATCH", "", "/api/v1/backoff/stream", http.StatusMethodNotAllowed, jsonBody, "GET, HEAD"},
		{"OPTIONS page", "OPTIONS", "", "/backoff", http.StatusMethodNotAllowed, htmlBody, "GET, HEAD"},
		{"POST index", "POST", "", "/", http.StatusMethodNotAllowed, htmlBody, "GET, HEAD"},
		{"unknown method", "BREW", "", "/api/v1/backoff", http.StatusMethodNotAllowed, jsonBody, ""},
		// Static paths.
		{"static root", "GET", "", "/static/", http.StatusNotFound, htmlBody, ""},
		{"static directory", "GET", "", "/static/vendor/", http.StatusNotFound, htmlBody, ""},
		{"static directory without slash", "GET", "", "/static/vendor", http.StatusNotFound, htmlBody, ""},
		{"static invalid UTF-8", "GET", "", "/static/%ff", http.StatusNotFound, htmlBody, ""},
		{"static invalid UTF-8 in a directory", "GET", "", "/static/vendor/%c3", http.StatusNotFound, htmlBody, ""},
		{"static NUL", "GET", "", "/static/app.js%00", http.StatusNotFound, htmlBody, ""},
		{"static dot-dot", "GET", "", "/static/vendor/..%2fapp.js", http.StatusNotFound, htmlBody, ""},
		{"static no such file", "GET", "", "/static/nosuch.js", http.StatusNotFound, htmlBody, ""},
		{"API path invalid UTF-8", "GET", "", "/api/v1/%ff", http.StatusNotFound, jsonBody, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := srv.Do(t, tc.method, tc.host, tc.path, nil)
			if resp.StatusCode != tc.code {
				t.Fatalf("%s %s (Host %q): %d %.200s, want %d", tc.method, tc.path, tc.host, resp.StatusCode, body, tc.code)
			}
			if tc.allow != "" && resp.Header.Get("Allow") != tc.allow {
				t.Errorf("Allow %q, want %q", resp.Header.Get("Allow"), tc.allow)
			}
			if tc.code == http.StatusMethodNotAllowed && resp.Header.Get("Allow") == "" && tc.method != "BREW" {
				t.Errorf("405 without Allow")
			}
			switch tc.body {
			case jsonBody:
				if tc.code != http.StatusOK {
					MustDecodeError(t, resp, body)
				} else if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
					t.Errorf("Content-Type %q, want JSON", ct)
				}
			case htmlBody:
				if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") || !bytes.Contains(body, []byte("</html>")) {
					t.Errorf("Content-Type %q, body %.100q: want an HTML page", ct, body)
				}
			}
			if tc.method == "HEAD" && len(body) != 0 {
				t.Errorf("HEAD answered with a %d-byte body", len(body))
			}
			if tc.code == http.StatusMisdirectedRequest && !bytes.Contains(body, []byte("allow-host")) {
				t.Errorf("421 body %.200q does not say how to allow the host", body)
			}
		})
	}

	// A stream from a rebinding domain: the page's origin matches its Host, and neither is ours.
	c, resp, err := srv.Dial("free", &websocket.DialOptions{Host: "evil.example:8080",
		HTTPHeader: http.Header{"Origin": {"http://evil.example:8080"}}})
	if err == nil {
		c.CloseNow()
		t.Errorf("a stream for Host evil.example was accepted")
	} else if resp == nil || resp.StatusCode != http.StatusMisdirectedRequest {
		t.Errorf("stream for a foreign host refused with %v, %v; want 421", err, resp)
	}
}

// TestStaticCaching: static files carry a strong ETag and revalidate (304 on a match), come
// gzip-compressed to browsers that accept it, and HTML pages are revalidated.
func TestStaticCaching(t *testing.T) {
	srv := MustOpenServer(t)
	plain, body := srv.Do(t, "GET", "", "/static/app.js", nil)
	if plain.StatusCode != http.StatusOK || plain.Header.Get("Content-Encoding") != "" {
		t.Fatalf("GET app.js: %d, Content-Encoding %q", plain.StatusCode, plain.Header.Get("Content-Encoding"))
	}
	etag := plain.Header.Get("ETag")
	if !strings.HasPrefix(etag, `"`) || plain.Header.Get("Cache-Control") != "no-cache" {
		t.Errorf("ETag %q, Cache-Control %q: want a strong validator and no-cache", etag, plain.Header.Get("Cache-Control"))
	}
	if !strings.HasPrefix(plain.Header.Get("Content-Type"), "text/javascript") {
		t.Errorf("Content-Type %q", plain.Header.Get("Content-Type"))
	}

	zipped, zbody := srv.Do(t, "GET", "", "/static/app.js", http.Header{"Accept-Encoding": {"br;q=1, gzip;q=0.8"}})
	if zipped.Header.Get("Content-Encoding") != "gzip" || !strings.Contains(zipped.Header.Get("Vary"), "Accept-Encoding") {
		t.Fatalf("gzip: Content-Encoding %q, Vary %q", zipped.Header.Get("Content-Encoding"), zipped.Header.Get("Vary"))
	}
	zr, err := gzip.NewReader(bytes.NewReader(zbody))
	if err != nil {
		t.Fatal(err)
	}
	unzipped, err := io.ReadAll(zr)
	if err != nil || !bytes.Equal(unzipped, body) {
		t.Errorf("gzip body does not decompress to the file (%v)", err)
	}
	t.Logf("app.js: %d bytes, %d gzipped", len(body), len(zbody))
	if len(zbody) >= len(body)/2 {
		t.Errorf("gzip saves too little: %d of %d bytes", len(zbody), len(body))
	}
	if zipped.Header.Get("ETag") == etag {
		t.Errorf("the gzip copy has the plain file's ETag %s", etag)
	}

	for _, tc := range []struct {
		name   string
		header http.Header
		code   int
	}{
		{"matching ETag", http.Header{"If-None-Match": {etag}}, http.StatusNotModified},
		{"matching gzip ETag", http.Header{"If-None-Match": {zipped.Header.Get("ETag")}, "Accept-Encoding": {"gzip"}}, http.StatusNotModified},
		{"one of several", http.Header{"If-None-Match": {`"old", ` + etag}}, http.StatusNotModified},
		{"stale ETag", http.Header{"If-None-Match": {`"old"`}}, http.StatusOK},
		{"gzip refused", http.Header{"Accept-Encoding": {"gzip;q=0, identity"}}, http.StatusOK},
	} {
		resp, b := srv.Do(t, "GET", "", "/static/app.js", tc.header)
		if resp.StatusCode != tc.code {
			t.Errorf("%s: %d, want %d", tc.name, resp.StatusCode, tc.code)
		}
		if tc.code == http.StatusNotModified && len(b) != 0 {
			t.Errorf("%s: 304 with a %d-byte body", tc.name, len(b))
		}
		if tc.name == "gzip refused" && resp.Header.Get("Content-Encoding") != "" {
			t.Errorf("gzip sent although refused")
		}
	}

	page, _ := srv.Do(t, "GET", "", "/backoff", http.Header{"Accept-Encoding": {"gzip"}})
	if page.Header.Get("Cache-Control") != "no-cache" || page.Header.Get("Content-Encoding") != "gzip" {
		t.Errorf("page: Cache-Control %q, Content-Encoding %q; want revalidated and gzipped",
			page.Header.Get("Cache-Control"), page.Header.Get("Content-Encoding"))
	}
}
