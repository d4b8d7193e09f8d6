package lab_test

import (
	"slices"
	"testing"

	"github.com/resilience-playground/playground/lab"
)

// TestOptions: a table's names are its parameter's options, in order, and each makes its own
// constructor; an unknown name panics rather than building something else.
func TestOptions(t *testing.T) {
	o := lab.Options[func() int]{{Name: "one", New: func() int { return 1 }}, {Name: "two", New: func() int { return 2 }}}
	if got := o.Names(); !slices.Equal(got, []string{"one", "two"}) {
		t.Errorf("Names = %v", got)
	}
	if o.Make("two")() != 2 || o.Make("one")() != 1 {
		t.Error("Make returned another option's constructor")
	}
	defer func() {
		if recover() == nil {
			t.Error("Make(unknown) did not panic")
		}
	}()
	o.Make("three")
}
