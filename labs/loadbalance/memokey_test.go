package loadbalance

import (
	"strings"
	"testing"

	"github.com/resilience-playground/playground/lab/labtest"
	"github.com/resilience-playground/playground/param"
)

// TestMemoKey: moving any parameter changes the key of every policy's memoised outcome, and
// equal scenarios written differently share it.
func TestMemoKey(t *testing.T) {
	labtest.CheckMemoKey(t, Lab(), func(v param.Values) string {
		var keys []string
		for _, p := range v.List("policy") {
			keys = append(keys, memoKey(v, p))
		}
		return strings.Join(keys, " ")
	})
}
