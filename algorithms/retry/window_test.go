package retry

import (
	"testing"
	"time"
)

// A count made in slice k is forgotten when slice k+n begins; slices are aligned to multiples
// of the width from time zero, negative times included; an earlier time counts as the latest.
func TestWindow(t *testing.T) {
	w := newWindow(10*time.Second, 10) // 1 s slices
	if w.width != int64(time.Second) {
		t.Fatalf("width %d", w.width)
	}
	s := int64(time.Second)
	w.add(2*s+s/2, 3, 1) // slice 2
	w.add(5*s, 4, 0)     // slice 5
	tests := []struct {
		now  int64
		a, b int64
	}{
		{5 * s, 7, 1},
		{12*s - 1, 7, 1}, // slice 11: slice 2 still counted (slices 2..11)
		{12 * s, 4, 0},   // slice 12: slice 2 forgotten
		{15*s - 1, 4, 0},
		{15 * s, 0, 0},
		{100 * s, 0, 0}, // a jump beyond the window clears everything
	}
	for _, tc := range tests {
		if a, b := w.sums(tc.now); a != tc.a || b != tc.b {
			t.Errorf("at %v: sums %d, %d; want %d, %d", time.Duration(tc.now), a, b, tc.a, tc.b)
		}
	}
	// Time going backwards: counts land in the current slice and nothing expires.
	w.add(50*s, 1, 1) // current slice is 100
	if a, b := w.sums(100 * s); a != 1 || b != 1 {
		t.Errorf("after an earlier time: sums %d, %d; want 1, 1", a, b)
	}
	if a, _ := w.sums(110 * s); a != 0 {
		t.Errorf("the count made at an earlier time did not expire with the current slice")
	}

	// Negative times: slice floor(t/w).
	v := newWindow(3, 3) // 1ns slices
	v.add(-5, 1, 0)      // slice -5
	if a, _ := v.sums(-3); a != 1 {
		t.Errorf("slice -5 forgotten at -3")
	}
	if a, _ := v.sums(-2); a != 0 {
		t.Errorf("slice -5 still counted at -2")
	}
	// Width rounds up and is at least 1ns.
	for _, tc := range []struct {
		span time.Duration
		n    int
		w    int64
	}{{10, 3, 4}, {0, 5, 1}, {-7, 2, 1}, {2 * time.Minute, 120, int64(time.Second)}} {
		if got := newWindow(tc.span, tc.n).width; got != tc.w {
			t.Errorf("newWindow(%d, %d).width = %d, want %d", tc.span, tc.n, got, tc.w)
		}
	}
}
