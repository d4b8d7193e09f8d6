package api_test

import (
	"context"
	"errors"
	"html"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/resilience-playground/playground/api"
	"github.com/resilience-playground/playground/param"
)

// TestRulesAcrossParams: a scenario that breaks a lab's rule across parameters — which used
// to run with one parameter silently adjusted — is refused on every path, with an error that
// names every parameter of the rule: the JSON API and CSV (400 with "params"), the stream and
// a room's presenter (an error reply with "params"), the CLI (exit status 2), compare; the
// page shows the message beside a working view.
func TestRulesAcrossParams(t *testing.T) {
	srv := MustOpenServer(t)
	const msg = "subset must be at most backends (300), got 400"
	want := `{"error":"` + msg + `","param":"subset","params":["subset","backends"]}` + "\n"
	for _, path := range []string{"/api/v1/loadbalance?subset=400", "/api/v1/loadbalance.csv?subset=400"} {
		resp, body := srv.Get(t, path)
		if resp.StatusCode != http.StatusBadRequest || string(body) != want {
			t.Errorf("%s: %d %s, want 400 %s", path, resp.StatusCode, body, want)
		}
	}
	resp, body := srv.Get(t, "/api/v1/backoff?cap=1ms")
	if want := `{"error":"cap must be at least base (5ms), got 1ms","param":"cap","params":["cap","base"]}` + "\n"; resp.StatusCode != http.StatusBadRequest || string(body) != want {
		t.Errorf("backoff cap=1ms: %d %s, want 400 %s", resp.StatusCode, body, want)
	}

	st := srv.MustDial(t, "loadbalance", nil)
	st.Send(3, "subset=400")
	if r := st.Await(3); r.Type != "error" || r.Error != msg || r.Param != "subset" || !slices.Equal(r.Params.Names, []string{"subset", "backends"}) {
		t.Errorf("stream: %+v, want an error naming subset and backends", r)
	}

	_, err := api.RunURL(context.Background(), srv.Labs, "/loadbalance?subset=400", api.DefaultBudget, nil)
	var pe *param.Error
	if !errors.As(err, &pe) || pe.Msg != msg || api.ExitCode(err) != 2 {
		t.Errorf("CLI: %v (exit %d), want the rule's error and exit status 2", err, api.ExitCode(err))
	}

	resp, body = srv.Get(t, "/compare?a="+url.QueryEscape("/loadbalance?subset=400")+"&b="+url.QueryEscape("/loadbalance"))
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(html.UnescapeString(string(body)), msg) {
		t.Errorf("compare: %d, want 400 with %q", resp.StatusCode, msg)
	}

	resp, body = srv.Get(t, "/loadbalance?subset=400")
	if resp.StatusCode != http.StatusOK || !strings.Contains(html.UnescapeString(string(body)), msg) {
		t.Errorf("page: %d, want 200 showing %q", resp.StatusCode, msg)
	}
	// The message stands at the control of every parameter the rule spans.
	for _, name := range []string{"subset", "backends"} {
		if !strings.Contains(html.UnescapeString(string(body)), `id="err-`+name+`" role="alert">`+msg) {
			t.Errorf("page: the control of %s does not show %q", name, msg)
		}
	}
}

// TestRoomRulesAcrossParams: a presenter's change that breaks a rule gets the rule's error,
// naming its parameters, and the room does not move.
func TestRoomRulesAcrossParams(t *testing.T) {
	srv := MustOpenServer(t)
	c := srv.MustCreateRoom(t, "/loadbalance?clients=2&backends=2&subset=2&duration=1s")
	key := strings.TrimPrefix(c.PresenterURL, c.JoinURL+"#key=")
	presenter := srv.MustJoin(t, c.Code)
	presenter.Send(map[string]any{"type": "present", "key": key})
	presenter.Until("the presenter's room", func(r RoomReply) bool { return r.Type == "room" && r.Room.Presenter })
	presenter.Send(map[string]any{"type": "params", "id": 5, "query": "clients=2&backends=2&subset=3&duration=1s"})
	r := presenter.Until("an error", func(r RoomReply) bool { return r.Type == "error" })
	if r.ID != 5 || r.Error != "subset must be at most backends (2), got 3" || !slices.Equal(r.Params.Names, []string{"subset", "backends"}) {
		t.Errorf("presenter: %+v, want the rule's error naming subset and backends", r)
	}
	if info := srv.MustRoomInfo(t, c.Code); info.Version != 0 {
		t.Errorf("the room moved to version %d", info.Version)
	}
}
