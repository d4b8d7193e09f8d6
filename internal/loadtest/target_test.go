package loadtest

import (
	"strings"
	"testing"
)

func TestLoopbackURL(t *testing.T) {
	ok := []string{
		"http://127.0.0.1:8080",
		"http://127.0.0.1",
		"http://127.1.2.3:9000/prefix",
		"https://localhost:8443",
		"http://LOCALHOST:8080",
		"http://localhost.:8080",
		"http://[::1]:8080",
		"ws://127.0.0.1:8080",
		"wss://[::1]",
		"http://[::ffff:127.0.0.1]:8080", // IPv4-mapped 127.0.0.1
	}
	for _, raw := range ok {
		if _, err := loopbackURL(raw); err != nil {
			t.Errorf("loopbackURL(%q) = %v, want accepted", raw, err)
		}
	}
	bad := []string{
		"http://10.0.0.1:8080",
		"http://128.0.0.1",
		"http://0.0.0.0:8080",
		"http://[::]:8080",
		"http://[::2]:8080",
		"http://[fe80::1%25lo]:8080",
		"http://example.com",
		"http://localhost.example.com",
		"http://foo.localhost",
		"http://127.0.0.1.nip.io",
		"http://2130706433", // 127.0.0.1 as a number: resolvers may accept it, we do not
		"http://user:pw@127.0.0.1:8080",
		"ftp://127.0.0.1",
		"127.0.0.1:8080",
		"http://",
		"http://127.0.0.1:99999",
		"://bad",
	}
	for _, raw := range bad {
		if _, err := loopbackURL(raw); err == nil {
			t.Errorf("loopbackURL(%q) accepted, want refused", raw)
		}
	}
	u, err := loopbackURL("ws://127.0.0.1:18080/?x=1#f")
	if err != nil || u.Scheme != "http" || u.RawQuery != "" || u.Fragment != "" {
		t.Errorf("loopbackURL(ws://...) = %v, %v; want http scheme without query or fragment", u, err)
	}
}

// TestTargetPaths: a server under a path prefix keeps it in every URL the tool makes.
func TestTargetPaths(t *testing.T) {
	tg, err := newTarget(Server{URL: "http://127.0.0.1:8080/pg/", Timeout: 1}, 1)
	if err != nil {
		t.Fatal(err)
	}
	for got, want := range map[string]string{
		tg.url(labStream("backoff")): "http://127.0.0.1:8080/pg/api/v1/backoff/stream",
		tg.url("/metrics"):           "http://127.0.0.1:8080/pg/metrics",
		tg.url(roomStream("ABCDEF")): "http://127.0.0.1:8080/pg/api/v1/rooms/ABCDEF/stream",
	} {
		if got != want {
			t.Errorf("url = %q, want %q", got, want)
		}
	}
	if _, err := newTarget(Server{URL: "http://192.0.2.1", Timeout: 1}, 1); err == nil || !strings.Contains(err.Error(), "not loopback") {
		t.Errorf("a remote server: %v, want refused as not loopback", err)
	}
}
