//go:build e2e

package main

import "github.com/resilience-playground/playground/lab/labtest"

// Built with -tags e2e (by the e2e tests only), the binary also serves /gated: a lab whose runs
// can hold until they are cancelled, so shutdown is tested with runs that outlast the drain
// deadline.
func init() { extraLabs = append(extraLabs, labtest.NewGated("gated", false).Lab) }
