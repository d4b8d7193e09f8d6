package api_test

import (
	"testing"
	"time"

	"github.com/resilience-playground/playground/api"
)

// TestIdleStreamCloses checks a stream that sends no request for the idle timeout is closed
// with 4000, while one that keeps sending stays open.
func TestIdleStreamCloses(t *testing.T) {
	srv := MustOpenServer(t, WithConfig(func(c *api.Config) { c.IdleTimeout = 300 * time.Millisecond }))
	idle := srv.MustDial(t, "backoff", nil)
	busy := srv.MustDial(t, "backoff", nil)
	for i := range int64(10) { // 10 × 60ms: well past the idle timeout
		busy.Send(i+1, "clients=10&trials=2&sweep=off")
		busy.Await(i + 1)
		time.Sleep(60 * time.Millisecond)
	}
	code, reason := idle.MustClosed()
	if code != api.StatusIdle || reason != "idle" {
		t.Errorf("idle stream closed with %d %q, want %d \"idle\"", code, reason, api.StatusIdle)
	}
	busy.Send(99, "clients=11&trials=2&sweep=off")
	if r := busy.Await(99); r.Type != "start" {
		t.Errorf("active stream: %s reply, want start", r.Type)
	}
}
