package lab_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
)

// TestViewCheck checks that View.Check catches each kind of mistake a view can make against
// its lab's parameters, and passes a good view.
func TestViewCheck(t *testing.T) {
	params := param.Set{
		{Name: "n", Label: "N", Kind: param.Int, Default: "1", Min: 1, Max: 10, Step: 1, Help: "n"},
		{Name: "mode", Label: "Mode", Kind: param.Enum, Default: "a", Options: []string{"a", "b"}, Help: "mode"},
		{Name: "sweep", Label: "Sweep", Kind: param.IntRange, Default: "off", Min: 1, Max: 10, MaxLen: 5, On: "1:9:2", Help: "sweep"},
		{Name: "sweep2", Label: "Sweep", Kind: param.IntRange, Default: "off", Min: 1, Max: 10, MaxLen: 5, On: "1:99:2", Help: "sweep"},
	}
	good := func() lab.View {
		return lab.View{
			Key:      "mode",
			Headline: []string{"c"},
			Charts:   []lab.Chart{{ID: "c", Title: "At N = {n}", Kind: lab.Bars, Mark: "n", XUnit: lab.Millis}},
			Tables: []lab.Table{{ID: "t", Title: "T", Key: "rows", Rows: lab.MapRows, Columns: []lab.Column{
				{Field: "", Label: "name"}, {Field: "ms", Label: "time", Unit: lab.Millis, Digits: 1}}}},
		}
	}
	if err := good().Check(params); err != nil {
		t.Fatalf("a good view: %v", err)
	}
	needs := good()
	needs.Charts[0].Needs = "sweep"
	if err := needs.Check(params); err != nil {
		t.Fatalf("a chart that needs a sweep with a valid on range: %v", err)
	}
	for _, c := range []struct {
		name, want string
		edit       func(*lab.View)
	}{
		{"duplicate chart", "id used twice", func(v *lab.View) { v.Charts = append(v.Charts, lab.Chart{ID: "c"}) }},
		{"chart without id", "no id", func(v *lab.View) { v.Charts[0].ID = ""; v.Headline = nil }},
		{"unknown kind", `unknown kind "pie"`, func(v *lab.View) { v.Charts[0].Kind = "pie" }},
		{"unknown unit", `unknown unit " ms"`, func(v *lab.View) { v.Charts[0].YUnit = " ms" }},
		{"mark of no parameter", `mark "clients"`, func(v *lab.View) { v.Charts[0].Mark = "clients" }},
		{"mark of an enum", `mark "mode"`, func(v *lab.View) { v.Charts[0].Mark = "mode" }},
		{"mark value without its label", `mark_value`, func(v *lab.View) { v.Charts[0].Mark, v.Charts[0].MarkValue = "", "load_pct" }},
		{"mark value beside a mark", `not both`, func(v *lab.View) {
			v.Charts[0].MarkValue, v.Charts[0].MarkLabel, v.Charts[0].Mark = "load_pct", "load", "n"
		}},
		{"needs no range", `needs "n", which is no range`, func(v *lab.View) { v.Charts[0].Needs = "n" }},
		{"needs a range without a valid on", `needs "sweep2", whose on range "1:99:2"`, func(v *lab.View) { v.Charts[0].Needs = "sweep2" }},
		{"key of no parameter", `key "strategies"`, func(v *lab.View) { v.Key = "strategies" }},
		{"key of a number", `key "n"`, func(v *lab.View) { v.Key = "n" }},
		{"chart key of a number", `chart 0 ("c"): key "n"`, func(v *lab.View) { v.Charts[0].Key = "n" }},
		{"headline of no chart", `headline "work"`, func(v *lab.View) { v.Headline = []string{"work"} }},
		{"title of no parameter", "{clients}", func(v *lab.View) { v.Charts[0].Title = "At N = {clients}" }},
		{"table title of no parameter", "{x}", func(v *lab.View) { v.Tables[0].Title = "{x}" }},
		{"table without key", "no summary key", func(v *lab.View) { v.Tables[0].Key = "" }},
		{"unknown rows", `rows "grid"`, func(v *lab.View) { v.Tables[0].Rows = "grid" }},
		{"table without columns", "no columns", func(v *lab.View) { v.Tables[0].Columns = nil }},
		{"name column in a list", "first column", func(v *lab.View) { v.Tables[0].Rows = lab.ListRows }},
		{"field twice", `field "ms" shown twice`, func(v *lab.View) {
			v.Tables[0].Columns = append(v.Tables[0].Columns, lab.Column{Field: "ms", Label: "again"})
		}},
		{"column unit", `unknown unit "%%"`, func(v *lab.View) { v.Tables[0].Columns[1].Unit = "%%" }},
		{"duplicate table", "id used twice", func(v *lab.View) { v.Tables = append(v.Tables, v.Tables[0]) }},
	} {
		v := good()
		c.edit(&v)
		err := v.Check(params)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Check = %v, want an error saying %q", c.name, err, c.want)
		}
	}
}

// TestPlaces: the view key's options take the first places, each other chart key's options
// the places after, once per parameter whatever the charts naming it.
func TestPlaces(t *testing.T) {
	params := param.Set{
		{Name: "policy", Label: "P", Kind: param.EnumList, Default: "a", Options: []string{"a", "b", "random"}},
		{Name: "subsetting", Label: "S", Kind: param.Enum, Default: "random", Options: []string{"random", "det"}},
	}
	v := lab.View{Key: "policy", Charts: []lab.Chart{{ID: "x", Key: "subsetting"}, {ID: "y"}, {ID: "z", Key: "subsetting"}}}
	got := v.Places(params)
	want := map[string]map[string]int{"policy": {"a": 0, "b": 1, "random": 2}, "subsetting": {"random": 3, "det": 4}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Places = %v, want %v", got, want)
	}
}

// TestRegistryChecksViews: a lab whose view names a chart it lacks is refused at start-up.
func TestRegistryChecksViews(t *testing.T) {
	l := &lab.Lab{Name: "x", Params: param.Set{{Name: "n", Label: "N", Kind: param.Int, Default: "1", Min: 1, Max: 2, Step: 1}},
		View: lab.View{Headline: []string{"missing"}}}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), `headline "missing"`) {
			t.Errorf("NewRegistry: recovered %v, want a panic naming the headline", r)
		}
	}()
	lab.NewRegistry(l)
}

// TestFillTitle fills a title's parameters and leaves the rest of it alone.
func TestFillTitle(t *testing.T) {
	got := lab.FillTitle("At N = {clients}, {base} {x", func(name string) string { return "<" + name + ">" })
	if want := "At N = <clients>, <base> {x"; got != want {
		t.Errorf("FillTitle = %q, want %q", got, want)
	}
}
