package api

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/resilience-playground/playground/lab"
)

// TestFanOutSlowFollower: followers are written the very same messages in the same order, and
// one whose writes are stuck delays none of the others nor the producer: the others are sent
// the whole run while it waits. Once it writes again it is sent the run so far as one frame —
// the same picture the others folded from every frame — then the run's end, never a queue.
func TestFanOutSlowFollower(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		b := newBroadcast()
		b.setRoom(reply{Type: "room", Room: &roomState{Code: "ABCDEF", URL: "/x"}})
		b.publish(reply{Type: "start", ID: 1, URL: "/x"})

		var mu sync.Mutex
		got := make([][]*wire, 4)
		record := func(i int) func([]*wire) error {
			return func(msgs []*wire) error {
				mu.Lock()
				defer mu.Unlock()
				got[i] = append(got[i], msgs...)
				return nil
			}
		}
		gate := make(chan struct{})
		var wg sync.WaitGroup
		for i := range 3 {
			wg.Go(func() { b.follow(ctx, record(i), nil) })
		}
		slow := record(3)
		wg.Go(func() {
			b.follow(ctx, func(msgs []*wire) error {
				<-gate // stuck on its first write, the room message and the start
				return slow(msgs)
			}, nil)
		})
		synctest.Wait()

		const frames = maxBehind + 5
		for k := range frames {
			b.publish(reply{Type: "frame", ID: 1, Series: []lab.Series{
				{Name: "s", Chart: "c", X: []float64{float64(k)}, Y: []float64{float64(k * k)}, Append: k > 0},
			}})
			synctest.Wait()
		}
		b.publish(reply{Type: "done", ID: 1})
		synctest.Wait() // the producer and the fast followers are done: none waits for the slow one

		mu.Lock()
		for i := range 3 {
			if len(got[i]) != frames+3 {
				t.Fatalf("follower %d was written %d messages while another was stuck, want room, start, %d frames and done", i, len(got[i]), frames)
			}
			if !slices.Equal(got[i], got[0]) {
				t.Errorf("follower %d was written other messages than follower 0, or in another order", i)
			}
		}
		fast := fold(t, got[0])
		mu.Unlock()

		close(gate)
		synctest.Wait()
		mu.Lock()
		defer mu.Unlock()
		types := kinds(t, got[3])
		if want := []string{"room", "start", "frame", "done"}; !slices.Equal(types, want) {
			t.Fatalf("the slow follower was written %v, want %v (the run so far as one frame)", types, want)
		}
		if slowFold := fold(t, got[3]); !slowFold.equal(fast) {
			t.Errorf("the slow follower's picture %+v differs from the others' %+v", slowFold, fast)
		}
		cancel()
		wg.Wait()
	})
}

// picture is what a follower's frames fold to.
type picture struct {
	x, y []float64
}

func (p picture) equal(q picture) bool { return slices.Equal(p.x, q.x) && slices.Equal(p.y, q.y) }

// fold folds the frames of msgs (one series, appended to).
func fold(t *testing.T, msgs []*wire) picture {
	t.Helper()
	var u lab.Update
	for _, m := range msgs {
		var r reply
		if err := json.Unmarshal(m.b, &r); err != nil {
			t.Fatal(err)
		}
		if r.Type == "frame" {
			u.Merge(lab.Update{Series: r.Series})
		}
	}
	if len(u.Series) != 1 {
		t.Fatalf("%d series, want 1", len(u.Series))
	}
	return picture{u.Series[0].X, u.Series[0].Y}
}

// kinds lists the types of msgs.
func kinds(t *testing.T, msgs []*wire) []string {
	t.Helper()
	var out []string
	for _, m := range msgs {
		var r reply
		if err := json.Unmarshal(m.b, &r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r.Type)
	}
	return out
}
