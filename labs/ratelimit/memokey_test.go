package ratelimit

import (
	"strings"
	"testing"

	"github.com/resilience-playground/playground/lab/labtest"
	"github.com/resilience-playground/playground/param"
)

// TestMemoKey: moving any parameter changes the key of every algorithm's memoised result and
// of the cost estimate, and equal scenarios written differently share them.
func TestMemoKey(t *testing.T) {
	labtest.CheckMemoKey(t, Lab(), func(v param.Values) string {
		var keys []string
		for _, a := range v.List("algorithms") {
			keys = append(keys, memoKey(v, a))
		}
		return strings.Join(keys, " ")
	})
}
