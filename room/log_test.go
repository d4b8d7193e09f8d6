package room_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/resilience-playground/playground/room"
	"github.com/resilience-playground/playground/room/roomtest"
)

// syncBuffer is a bytes.Buffer safe for the concurrent writes of a logger.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// TestRedisLogsThroughSlog: what go-redis logs by itself — here, failing to reach a stopped
// server — comes out as structured records of the logger given, not as bare lines on
// standard error; and the store's errors while Redis is down are ErrUnavailable.
func TestRedisLogsThroughSlog(t *testing.T) {
	var buf syncBuffer
	room.LogRedisTo(slog.New(slog.NewJSONHandler(&buf, nil)))
	t.Cleanup(func() { room.LogRedisTo(slog.Default()) })
	rd := roomtest.MustStartRedisServer(t)
	s, err := room.NewRedis(context.Background(), rd.URL, room.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rd.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := s.Get(ctx, "ABCDEF"); !errors.Is(err, room.ErrUnavailable) {
		t.Fatalf("Get with Redis down: %v, want ErrUnavailable", err)
	}
	var rec struct {
		Level, Msg, Source string
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil || rec.Source != "go-redis" || rec.Level != "WARN" || !strings.Contains(rec.Msg, "dial") {
		t.Errorf("go-redis's log %q: %+v, %v; want a JSON record from go-redis about dialling", lines[0], rec, err)
	}
}
