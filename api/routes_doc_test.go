package api

import (
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/resilience-playground/playground/hub"
	"github.com/resilience-playground/playground/lab"
)

// TestRoutesDocumented: the route list of the package documentation (doc.go, # Routes) is
// exactly the routes the server registers, so that it cannot drift from them again.
func TestRoutesDocumented(t *testing.T) {
	s := New(Config{Labs: lab.NewRegistry(), Hub: hub.New(hub.Config{MaxRuns: 1})})
	var registered []string
	err := chi.Walk(s.router, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		registered = append(registered, method+" "+route)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	documented := documentedRoutes(t)
	slices.Sort(registered)
	slices.Sort(documented)
	for _, r := range registered {
		if !slices.Contains(documented, r) {
			t.Errorf("route %s is registered but not in doc.go's route list", r)
		}
	}
	for _, r := range documented {
		if !slices.Contains(registered, r) {
			t.Errorf("doc.go lists %s, which the server does not register", r)
		}
	}
}

// documentedRoutes reads the routes of doc.go's # Routes section: "METHOD /path?{query}".
func documentedRoutes(t *testing.T) []string {
	b, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "// # Routes\n")
	if !ok {
		t.Fatal("doc.go has no # Routes section")
	}
	section, _, _ = strings.Cut(section, "// # ")
	var routes []string
	for line := range strings.SplitSeq(section, "\n") {
		f := strings.Fields(strings.TrimPrefix(line, "//\t"))
		if !strings.HasPrefix(line, "//\t") || len(f) < 2 {
			continue
		}
		path, _, _ := strings.Cut(f[1], "?")
		routes = append(routes, f[0]+" "+path)
	}
	if len(routes) == 0 {
		t.Fatal("doc.go's # Routes section lists no route")
	}
	return routes
}
