package loadbalance

import (
	"encoding/json"
	"testing"
)

// TestChurnFailureIsNotResize: at the default scenario (300 clients, 300 backends, random
// subsets of 30) a backend failure moves only the connections to the failed backend and their
// replacements, as the chapter says of random subsetting, while a resize of the backend job
// reshuffles nearly every subset; the table shows both, under names that say which is which.
func TestChurnFailureIsNotResize(t *testing.T) {
	r := mustRun(t, noTraffic[1:])
	rows, ok := r.Summary["subsettings"].([]comparisonRow)
	if !ok {
		t.Fatalf("summary.subsettings is %T", r.Summary["subsettings"])
	}
	b, _ := json.Marshal(rows)
	t.Logf("subsettings: %s", b)
	var random comparisonRow
	for _, row := range rows {
		if row.Subsetting == "random" {
			random = row
		}
	}
	if random.FailBackend == nil || random.RemoveBackend == nil {
		t.Fatalf("random: churn on a failure %v, on a resize %v: want both measured", random.FailBackend, random.RemoveBackend)
	}
	fail, resize := *random.FailBackend, *random.RemoveBackend
	if fail > 100 || fail < 30 {
		t.Errorf("random: a failure churns %d connections, want about 2 × 30 (the failed backend's clients, each taking one replacement)", fail)
	}
	if resize < 50*fail {
		t.Errorf("random: a resize churns %d, a failure %d: want the resize far larger", resize, fail)
	}
	labels := map[string]string{}
	for _, tb := range view.Tables {
		for _, c := range tb.Columns {
			labels[c.Field] = c.Label
		}
	}
	if labels["churn_fail_backend"] == "" {
		t.Errorf("the subsettings table has no column for a backend failure")
	}
	for _, f := range []string{"churn_add_backend", "churn_remove_backend"} {
		if l := labels[f]; l == "+backend" || l == "−backend" {
			t.Errorf("column %s is labelled %q, which reads like a failure or a restart; it is a resize of the backend job", f, l)
		}
	}
}
