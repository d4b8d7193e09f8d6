package loadtest

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/resilience-playground/playground/labs"
)

// attackConfig is a short attack on the seeded free lab of the server at url, every pattern
// aimed at it.
func attackConfig(url string) AttackConfig {
	return AttackConfig{
		Server: server(url), Conns: 2, Calm: 500 * time.Millisecond, Duration: 2 * time.Second,
		Viewer: "/free?steps=3", Pause: 20 * time.Millisecond, ScrapeEvery: 50 * time.Millisecond, Followers: 3,
		Targets: map[string]string{
			"heavy":     "/api/v1/free?steps=5&pause=20ms",
			"streams":   "/free?steps=5&pause=10ms",
			"memory":    "/api/v1/free?n=7",
			"refusals":  "/api/v1/free?n=999999999", // over the test server's budget
			"rooms":     "/free",
			"presenter": "/free?steps=2",
			"roomruns":  "/free?steps=5&pause=10ms",
			"idle":      "/free",
			"addresses": "/free?steps=5&pause=10ms",
		},
		Idle: 20,
	}
}

// TestAttack: every pattern runs and is answered; the default viewer is measured without and
// under attack; the server's memory is read from /proc with a PID; nothing breaks the
// protocol.
func TestAttack(t *testing.T) {
	cfg := attackConfig(mustServe(t, 1e8, seeded()))
	cfg.PID = os.Getpid() // the server is in this process
	rep, err := Attack(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if rep.ProtocolErrors != 0 {
		t.Errorf("%d protocol errors: %q", rep.ProtocolErrors, rep.ErrorSamples)
	}
	want := map[string]string{"heavy": "", "streams": "", "memory": "", "refusals": "400", "rooms": "201", "codes": "404", "presenter": "follower room messages",
		"roomruns": "room done", "idle": "held at most", "addresses": "done"}
	if len(rep.Patterns) != len(allPatterns) {
		t.Errorf("%d patterns ran, want %d", len(rep.Patterns), len(allPatterns))
	}
	for _, p := range rep.Patterns {
		var answered int64
		for _, n := range p.Outcomes {
			answered += n
		}
		if p.Sent == 0 || answered == 0 || want[p.Name] != "" && p.Outcomes[want[p.Name]] == 0 {
			t.Errorf("%s: sent %d, outcomes %v; want answers, %q among them", p.Name, p.Sent, p.Outcomes, want[p.Name])
		}
	}
	if refused := rep.Patterns[3]; len(refused.Samples) == 0 || !strings.Contains(refused.Samples[0], "400: this scenario needs about") {
		t.Errorf("refusals' samples %q, want the budget's message", refused.Samples)
	}
	if !rep.FreshAddresses || rep.FreshCalm.FirstFrame.N == 0 || rep.FreshAttacked.Visits == 0 {
		t.Errorf("fresh viewers from addresses of their own %v: calm %+v, attacked %+v", rep.FreshAddresses, rep.FreshCalm, rep.FreshAttacked)
	}
	for name, v := range map[string]VisitReport{"calm": rep.Calm, "attacked": rep.Attacked} {
		if v.Visits == 0 || v.FirstFrame.N+int(v.Unfinished+v.Refused+v.Cut) != v.Visits || v.Done.N != v.FirstFrame.N {
			t.Errorf("%s: default viewer %+v", name, v)
		}
	}
	if rep.Calm.FirstFrame.N == 0 {
		t.Errorf("no visit without attack reached its first frame: %+v", rep.Calm)
	}
	if rep.RSSBefore <= 0 || rep.RSSPeak < rep.RSSBefore || rep.RSSAfter <= 0 {
		t.Errorf("RSS before %v, peak %v, after %v", rep.RSSBefore, rep.RSSPeak, rep.RSSAfter)
	}
	if runtime.GOOS == "linux" && (rep.RSSFrom != fmt.Sprintf("/proc/%d/status", os.Getpid()) || rep.RSSHighWater <= 0) {
		t.Errorf("RSS from %q, high water %v, peak %v", rep.RSSFrom, rep.RSSHighWater, rep.RSSPeak)
	}
	var out bytes.Buffer
	rep.WriteText(&out)
	for _, w := range []string{"| pattern | sent | outcomes |", "| heavy | ", "| under attack | ", "| without attack | ",
		"| fresh viewers, under attack | ", "fresh viewers under attack (each from an address the server had never seen): first frame after",
		"slots held", "server memory (RSS, from /", "protocol errors: 0"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("report lacks %q:\n%s", w, out.String())
		}
	}
}

// TestAttackAnswers: 429 and 503 with Retry-After are answers; a 500, or a 503 without
// Retry-After, is a protocol error, named.
func TestAttackAnswers(t *testing.T) {
	url := mustServeWith(t, func(w http.ResponseWriter, r *http.Request, next http.Handler) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method == http.MethodPost && r.URL.Path == "/api/v1/rooms":
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			fmt.Fprintln(w, `{"error":"too many rooms; retry in a second"}`)
		case strings.HasPrefix(r.URL.Path, "/api/v1/rooms/"):
			w.WriteHeader(http.StatusServiceUnavailable) // without Retry-After
			fmt.Fprintln(w, `{"error":"the room store is down"}`)
		case r.URL.Path == "/api/v1/free":
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprintln(w, `{"error":"internal error"}`)
		default:
			next.ServeHTTP(w, r)
		}
	}, 1e8, seeded())
	cfg := attackConfig(url)
	cfg.Patterns, cfg.Duration = []string{"rooms", "codes", "refusals"}, time.Second
	rep, err := Attack(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	refusals, rooms, codes := rep.Patterns[0], rep.Patterns[1], rep.Patterns[2] // in the order of Patterns
	if rooms.Name != "rooms" || rooms.Outcomes["429"] == 0 || rooms.Outcomes["429"]+rooms.Outcomes["cut"] != rooms.Sent || rooms.Samples[0] != "429: too many rooms; retry in a second" {
		t.Errorf("rooms: %+v; want 429s as answers", rooms)
	}
	if codes.Name != "codes" || codes.Outcomes["503"] == 0 || refusals.Name != "refusals" || refusals.Outcomes["500"] == 0 {
		t.Errorf("codes %+v, refusals %+v; want 503s and 500s counted", codes, refusals)
	}
	if rep.ProtocolErrors != codes.Outcomes["503"]+refusals.Outcomes["500"] {
		t.Errorf("%d protocol errors, want one per 503 without Retry-After and per 500 (%v, %v)", rep.ProtocolErrors, codes.Outcomes, refusals.Outcomes)
	}
	joined := strings.Join(rep.ErrorSamples, "\n")
	for _, w := range []string{"HTTP 503 without Retry-After", "GET /api/v1/free?n=999999999: unexpected HTTP 500"} {
		if !strings.Contains(joined, w) {
			t.Errorf("protocol errors lack %q:\n%s", w, joined)
		}
	}
	if rep.Calm.Visits == 0 || rep.Attacked.Visits == 0 {
		t.Errorf("default viewer: calm %+v, attacked %+v", rep.Calm, rep.Attacked)
	}
}

// TestAttackURLs: the patterns' default URLs are valid scenarios of the labs.
func TestAttackURLs(t *testing.T) {
	reg := labs.Registry()
	for _, p := range allPatterns {
		if p.Name == "codes" {
			continue
		}
		u := strings.TrimPrefix(p.URL, "/api/v1")
		lab, q, err := viewerQuery(u)
		if err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		l, ok := reg.Lookup(lab)
		if !ok {
			t.Fatalf("%s: no lab %q", p.Name, lab)
		}
		if _, err := l.Params.Parse(q); err != nil {
			t.Errorf("%s: %s: %v", p.Name, p.URL, err)
		}
	}
}
