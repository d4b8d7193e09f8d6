package main

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestRunProgressOnTerminal: with a terminal (a pseudo-terminal) as standard error, `playground
// run` shows its progress.
func TestRunProgressOnTerminal(t *testing.T) {
	master, slave := openPTY(t)
	done := make(chan string)
	go func() {
		var b bytes.Buffer
		_, _ = io.Copy(&b, master) // until the slave is closed: EIO
		done <- b.String()
	}()
	var out bytes.Buffer
	code := run([]string{"run", "/backoff?clients=20&trials=4&sweep=10:30:10"}, &out, slave)
	slave.Close()
	got := <-done
	master.Close()
	if code != 0 || out.Len() == 0 {
		t.Fatalf("exit %d: %q", code, got)
	}
	if !strings.Contains(got, "simulating") {
		t.Errorf("the terminal got %q, want progress", got)
	}
}

// openPTY opens a pseudo-terminal pair.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	fd := int(master.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		master.Close()
		t.Skipf("cannot unlock the pseudo-terminal: %v", err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		master.Close()
		t.Skipf("no pseudo-terminal number: %v", err)
	}
	slave, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		t.Skipf("cannot open the pseudo-terminal: %v", err)
	}
	return master, slave
}
