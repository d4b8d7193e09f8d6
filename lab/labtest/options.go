package labtest

import (
	"reflect"
	"slices"
	"testing"

	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
)

// CheckOptions checks that the parameter name of l offers exactly the choices of table, in its
// order, and that every choice has a constructor.
func CheckOptions[C any](t *testing.T, l *lab.Lab, name string, table lab.Options[C]) {
	t.Helper()
	sp, ok := l.Params.Lookup(name)
	if !ok {
		t.Fatalf("%s has no parameter %s", l.Name, name)
	}
	if sp.Kind != param.Enum && sp.Kind != param.EnumList {
		t.Errorf("%s: %s is a %s, not an enum", l.Name, name, sp.Kind)
	}
	if !slices.Equal(sp.Options, table.Names()) {
		t.Errorf("%s: %s offers %v; its table has %v", l.Name, name, sp.Options, table.Names())
	}
	if !slices.Equal(sp.OptionLabels, table.Labels()) {
		t.Errorf("%s: %s shows the labels %q; its table has %q", l.Name, name, sp.OptionLabels, table.Labels())
	}
	for _, opt := range table {
		if v := reflect.ValueOf(opt.New); !v.IsValid() || v.Kind() == reflect.Func && v.IsNil() {
			t.Errorf("%s: %s=%s has no constructor", l.Name, name, opt.Name)
		}
	}
}
