package main

import (
	"strings"
	"testing"
)

// TestRedisPasswordNeverPrinted: neither `serve -h` (which prints the flags' defaults) nor a
// -redis URL that is malformed or names no server prints the Redis password (issue 18).
func TestRedisPasswordNeverPrinted(t *testing.T) {
	const secret = "hunter2"
	t.Setenv("REDIS_URL", "redis://:"+secret+"@127.0.0.1:1/0")
	if code, out, errs := runCLI("serve", "-h"); code != 0 || strings.Contains(out+errs, secret) || !strings.Contains(errs, "$REDIS_URL") {
		t.Errorf("serve -h: exit %d, printed the password: %v, %q", code, strings.Contains(out+errs, secret), errs)
	}
	for _, url := range []string{
		"redis://:" + secret + "@localhost:port/0",
		"redis://user:" + secret + "@[::1:6379/0",
		"redis://us%zz:" + secret + "@localhost/0",
		"redis://:" + secret + "@127.0.0.1:1/0", // well formed, no server
		// A password holding a character the URL syntax reserves, or given as an option
		// (issue 33: net/url's error quoted the password's first part).
		"redis://:hun#ter2@127.0.0.1:6379/0",
		"redis://:hun/ter2@127.0.0.1:6379/0",
		"redis://:hun?ter2@127.0.0.1:6379/0",
		"redis://127.0.0.1:1/0?password=" + secret,
		"redis://:" + secret + "@127.0.0.1:1/0?dial_timeout=" + secret,
	} {
		code, out, errs := runCLI("serve", "-addr", "127.0.0.1:0", "-redis", url)
		if code != 1 || strings.Contains(out+errs, secret) || strings.Contains(out+errs, "hun") || !strings.Contains(errs, "-redis") {
			t.Errorf("serve -redis %q: exit %d, stderr %q; want exit 1 and a message without the password", url, code, errs)
		}
	}
}
