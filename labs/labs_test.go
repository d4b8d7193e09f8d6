package labs_test

import (
	"context"
	"testing"

	"github.com/resilience-playground/playground/api"
	"github.com/resilience-playground/playground/internal/heavy"
	"github.com/resilience-playground/playground/labs"
)

// TestTours runs every step of every lab's tours as the API would: each is a valid,
// canonical scenario (the registry checks that when it is built) that runs within the default
// budget and gives results.
func TestTours(t *testing.T) {
	t.Parallel()  // beside the package's other heavy tests
	heavy.Test(t) // every tour step: minutes under the race detector
	reg := labs.Registry()
	n := 0
	for _, l := range reg.All() {
		for _, tour := range l.Tours {
			for i, s := range tour.Steps {
				res, err := api.RunURL(context.Background(), reg, s.URL, api.DefaultBudget, nil)
				if err != nil {
					t.Errorf("%s tour %s step %d (%s): %v", l.Name, tour.Name, i+1, s.URL, err)
					continue
				}
				if len(res.Series) == 0 {
					t.Errorf("%s tour %s step %d (%s): no series", l.Name, tour.Name, i+1, s.URL)
				}
				n++
			}
		}
	}
	if n == 0 {
		t.Fatal("no tour steps")
	}
}
