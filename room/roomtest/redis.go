// Package roomtest starts a real Redis server for tests of rooms shared between replicas, and
// of rooms when Redis fails: stopped, restarted empty, or paused.
package roomtest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Redis is a redis-server process the test controls.
type Redis struct {
	URL  string // redis://127.0.0.1:PORT/0
	tb   testing.TB
	bin  string
	port int
	dir  string

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{}
}

// MustStartRedis starts redis-server and returns its URL; see MustStartRedisServer.
func MustStartRedis(tb testing.TB) string {
	tb.Helper()
	return MustStartRedisServer(tb).URL
}

// MustStartRedisServer starts redis-server (Debian's redis-server package) on a free loopback
// port with persistence off; the server is stopped at cleanup. Without redis-server the test
// is skipped loudly, unless CI is set, when it fails.
func MustStartRedisServer(tb testing.TB) *Redis {
	tb.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") != "" {
			tb.Fatalf("tests of rooms across replicas need redis-server in CI (apt-get install redis-server): %v", err)
		}
		tb.Skipf("SKIPPING REDIS TEST — redis-server not found (apt-get install redis-server): %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	r := &Redis{URL: fmt.Sprintf("redis://127.0.0.1:%d/0", port), tb: tb, bin: bin, port: port, dir: tb.TempDir()}
	tb.Cleanup(r.Stop)
	r.Restart()
	return r
}

// Stop kills the server (if it runs) and waits for it to exit: a crash, or Redis going away.
// Its data are lost.
func (r *Redis) Stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cmd == nil {
		return
	}
	wake(r.cmd.Process) // a paused server dies too
	_ = r.cmd.Process.Kill()
	<-r.exited
	r.cmd = nil
}

// Restart starts the server again on the same port, empty (it first stops one that runs),
// and waits until it answers.
func (r *Redis) Restart() {
	r.tb.Helper()
	r.Stop()
	r.mu.Lock()
	defer r.mu.Unlock()
	cmd := exec.Command(r.bin, "--port", strconv.Itoa(r.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", r.dir)
	if err := cmd.Start(); err != nil {
		r.tb.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	r.cmd, r.exited = cmd, exited
	c := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", r.port)})
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			return
		}
		select {
		case <-exited:
			r.tb.Fatalf("redis-server exited: %v", cmd.ProcessState)
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			r.tb.Fatalf("redis-server on port %d did not answer: %v", r.port, err)
		}
	}
}
