package main

import (
	"context"
	"testing"
)

// TestHogStops: the busy loops end when their context does.
func TestHogStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	go cancel()
	hog(ctx, 4) // returns, or the test times out
}
