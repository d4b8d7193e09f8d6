//go:build !unix

package roomtest

import "os"

func wake(*os.Process) {}
