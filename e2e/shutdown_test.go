package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// TestShutdownPastDrainDeadline signals the real binary while 50 streams watch runs that never
// finish on their own (the gated lab's hold) and 10 more wait on a full server: at the drain
// deadline the runs must be cancelled and every stream must still receive its 1001 close
// frame — not a bare EOF — before the process exits, within the server's short grace after
// the deadline (its log says so when the grace runs out). How long the exit took is logged;
// the test waits for it up to a bound on hangs, not on speed.
func TestShutdownPastDrainDeadline(t *testing.T) {
	raceToo(t)
	const drain = 1 * time.Second
	bin := buildBinary(t)
	addr := freeAddr(t)
	// Every stream comes from this one address: fair slots off, so that it may fill them all;
	// no previews drawn at start-up, which would hold a slot (the gated lab's for good).
	srv := startServer(t, bin, addr, drain, "-max-runs", "50", "-share", "-1", "-warm-previews=false")

	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	var conns []*websocket.Conn
	for i := range 60 {
		c, _, err := websocket.Dial(ctx, "ws://"+addr+"/api/v1/gated/stream", nil)
		if err != nil {
			t.Fatalf("dial %d: %v", i, err)
		}
		defer c.CloseNow()
		// Each cancelled run takes half a second to stop, as a simulation may between checks.
		msg := fmt.Sprintf(`{"type":"params","id":1,"query":"n=%d&hold=true&linger=500ms"}`, i)
		if err := c.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
			t.Fatal(err)
		}
		want := "start"
		if i >= 50 {
			want = "busy" // every slot holds a run
		}
		if got := firstReply(ctx, t, c); got != want {
			t.Fatalf("stream %d: first reply %q, want %q", i, got, want)
		}
		conns = append(conns, c)
	}

	signalled := time.Now()
	if err := srv.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var (
		mu     sync.Mutex
		closes = map[string]int{}
		wg     sync.WaitGroup
	)
	for _, c := range conns {
		wg.Go(func() {
			code := "EOF"
			for {
				_, _, err := c.Read(ctx)
				if err == nil {
					continue
				}
				var ce websocket.CloseError
				if errors.As(err, &ce) {
					code = fmt.Sprint(int(ce.Code))
				}
				break
			}
			mu.Lock()
			closes[code]++
			mu.Unlock()
		})
	}
	wg.Wait()
	select {
	case <-srv.exited:
	case <-time.After(drain + slow*60*time.Second):
		t.Fatalf("server still running %v after SIGTERM with -drain %v\n%s", time.Since(signalled), drain, srv.log())
	}
	took := time.Since(signalled)
	t.Logf("closes %v; exited %v after SIGTERM (-drain %v)", closes, took.Round(time.Millisecond), drain)
	if closes["1001"] != len(conns) {
		t.Errorf("closes %v: want all %d streams closed with 1001\n%s", closes, len(conns), srv.log())
	}
	if code := srv.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit status %d, want 0", code)
	}
	if took < drain {
		t.Errorf("exited after %v, before the drain deadline %v, though runs were in flight", took, drain)
	}
	if log := srv.log(); strings.Contains(log, "after the grace period") {
		t.Errorf("streams were still open when the grace after the drain deadline ran out:\n%s", log)
	}
}

// firstReply reads a stream's first reply and returns its type.
func firstReply(ctx context.Context, t *testing.T, c *websocket.Conn) string {
	t.Helper()
	_, b, err := c.Read(ctx)
	if err != nil {
		t.Fatalf("reading the first reply: %v", err)
	}
	var m struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m.Type
}
