//go:build unix

package main

import "syscall"

// descriptorLimit returns the process's limit on open descriptors (its soft RLIMIT_NOFILE,
// which the Go runtime raises to the hard limit at start-up), or 0 when it cannot be read.
func descriptorLimit() uint64 {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return 0
	}
	return l.Cur
}
