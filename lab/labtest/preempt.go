package labtest

import (
	"context"
	"errors"
	"maps"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/resilience-playground/playground/engine"
	"github.com/resilience-playground/playground/internal/heavy"
	"github.com/resilience-playground/playground/lab"
)

// cutPacer is a Pacer that cancels its run as the run's cut-th piece of paced work begins and
// admits that piece: the cancellation arrives in the middle of whatever stage the piece
// belongs to. It counts the pieces asked for and the run's work when it cancelled. Counting
// a piece and cancelling are one step (mu): a piece asked for concurrently with the cut-th is
// either before it or sees the cancellation, never counted after it while the run's context
// is still live.
type cutPacer struct {
	mu      sync.Mutex
	cut     int64
	cancel  context.CancelFunc
	work    func() int64
	pieces  atomic.Int64
	atCut   atomic.Int64
	afterIn atomic.Int64 // pieces admitted after the cut: none may be
}

func (p *cutPacer) Acquire(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := p.pieces.Add(1)
	if n == p.cut {
		p.atCut.Store(p.work())
		p.cancel()
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if p.cut > 0 && n > p.cut {
		p.afterIn.Add(1)
	}
	return nil
}

func (p *cutPacer) Release(time.Duration) {}

// CheckPreempted asserts that a run of scenario query is abandoned promptly whatever stage it
// is in when its viewer moves on: cancelled as its k-th piece of paced work begins, for k
// across every piece a whole run asks for (cuts of them, evenly spread, the first ones
// included), it returns ctx's error (or, cut late, finishes), asks for no more work, and does at most slack of the
// whole run's work after the cancellation. A stage that computes much without pacing (or
// in one long piece) fails it. fresh returns a lab with nothing memoised and the count of its
// work so far. Under the race detector (heavy.Light) it makes four cuts — the first three
// pieces and the last — which exercise the same goroutines as more.
func CheckPreempted(t *testing.T, query string, cuts int, slack float64, fresh func() (*lab.Lab, func() int64)) {
	t.Helper()
	if heavy.Light() {
		cuts = min(cuts, 4)
	}
	run := func(cut int64) (*cutPacer, int64, error) {
		l, work := fresh()
		v, err := l.Parse(query)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		p := &cutPacer{cut: cut, cancel: cancel, work: work}
		err = l.Run(engine.WithPacer(ctx, p), v, func(lab.Update) {})
		return p, work(), err
	}
	whole, total, err := run(0)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	pieces := whole.pieces.Load()
	if pieces < 2 {
		t.Fatalf("%s: a run asked for %d pieces of paced work; want several", query, pieces)
	}
	seen := map[int64]bool{}
	for i := range cuts {
		cut := 1 + int64(i)*(pieces-1)/int64(max(cuts-1, 1))
		if i < 3 {
			cut = int64(i + 1) // the setup's first pieces
		}
		if seen[cut] || cut > pieces {
			continue
		}
		seen[cut] = true
		p, done, err := run(cut)
		if p.pieces.Load() < cut {
			continue // this run asked for fewer pieces (workers share trials as they come)
		}
		if err == nil && cut < pieces/2 || err != nil && !errors.Is(err, context.Canceled) { // a run cut in its last pieces may finish
			t.Errorf("%s: cancelled at piece %d of %d, the run returned %v; want context.Canceled", query, cut, pieces, err)
			continue
		}
		if n := p.afterIn.Load(); n > 0 {
			t.Errorf("%s: cancelled at piece %d of %d, the run was admitted %d more pieces", query, cut, pieces, n)
		}
		if after := done - p.atCut.Load(); float64(after) > slack*float64(total) {
			t.Errorf("%s: cancelled at piece %d of %d, the run did %d more work units (of %d in a whole run); want at most %.0f%%",
				query, cut, pieces, after, total, 100*slack)
		}
	}
}

// CheckCoarseFirst asserts that a run of scenario query shows a coarse picture with every
// series of its result before its final one: when the run first reports a refinement short
// of the whole (Update.Refine.Done < Total), the updates so far hold every series the result
// holds.
func CheckCoarseFirst(t *testing.T, l *lab.Lab, query string) {
	t.Helper()
	v, err := l.Parse(query)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var coarse map[string]bool
	res, err := l.Execute(context.Background(), v, func(u lab.Update) {
		for _, s := range u.Series {
			seen[s.Name] = true
		}
		if coarse == nil && u.Refine != nil && u.Refine.Done < u.Refine.Total {
			coarse = maps.Clone(seen)
		}
	})
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	if coarse == nil {
		t.Fatalf("%s: no coarse picture before the final one", query)
	}
	for _, s := range res.Series {
		if !coarse[s.Name] {
			t.Errorf("%s: the first coarse picture lacks series %q", query, s.Name)
		}
	}
}
