package lab_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/resilience-playground/playground/lab"
)

// TestOptionsLabels: a table's labels are its parameter's OptionLabels, in order.
func TestOptionsLabels(t *testing.T) {
	o := lab.Options[struct{}]{{Name: "fixed_window", Label: "Fixed window"}, {Name: "p2c", Label: "Power of two choices"}}
	if got := o.Labels(); !slices.Equal(got, []string{"Fixed window", "Power of two choices"}) {
		t.Errorf("Labels = %v", got)
	}
}

// TestCheckLabels: the registry refuses to start with an enum option that has no label of its
// own — missing, blank, or the same as another option's — so the page never shows a raw name.
func TestCheckLabels(t *testing.T) {
	for _, tc := range []struct {
		name   string
		labels []string
		want   string // "" for valid
	}{
		{"labelled", []string{"A", "B C"}, ""},
		{"none", nil, "mode has 2 options and 0 labels"},
		{"one short", []string{"A"}, "mode has 2 options and 1 labels"},
		{"blank", []string{"A", " "}, "mode=b c has no label"},
		{"shared", []string{"A", "A"}, `mode=a and mode=b c share the label "A"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := testLab("t")
			l.Params[2].OptionLabels = tc.labels
			err := l.CheckLabels()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("CheckLabels = %v", err)
				}
				lab.NewRegistry(l)
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("CheckLabels = %v, want an error containing %q", err, tc.want)
			}
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), tc.want) {
					t.Errorf("NewRegistry panicked with %v, want %q", r, tc.want)
				}
			}()
			lab.NewRegistry(l)
		})
	}
}
