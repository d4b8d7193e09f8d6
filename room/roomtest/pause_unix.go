//go:build unix

package roomtest

import (
	"os"
	"syscall"
)

// Pause stops the server's process (SIGSTOP) without closing its connections: a stall, as of
// a server swapping or a long fork. Resume lets it go on.
func (r *Redis) Pause() { r.signal(syscall.SIGSTOP) }

// Resume continues a paused server (SIGCONT).
func (r *Redis) Resume() { r.signal(syscall.SIGCONT) }

func (r *Redis) signal(sig syscall.Signal) {
	r.tb.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cmd == nil {
		r.tb.Fatalf("redis-server is not running")
	}
	if err := r.cmd.Process.Signal(sig); err != nil {
		r.tb.Fatal(err)
	}
}

func wake(p *os.Process) { _ = p.Signal(syscall.SIGCONT) }
