package loadbalance

import "testing"

// failFastScenario is a small service with one backend that answers every request at once with
// an error: 50 clients, 50 backends, subsets of 5 (so ten clients send to the failing one).
const failFastScenario = "clients=50&backends=50&subset=5&subsetting=deterministic&duration=30s&failing=1"

// TestFailFastPerPolicy pins, policy by policy, how much traffic a fail-fast backend draws
// compared with round robin, which is blind to errors and gives it its plain share. Each
// policy's expectation is what its documentation (and the lab's help) says it does.
func TestFailFastPerPolicy(t *testing.T) {
	const q = failFastScenario + "&policy=round_robin,least_loaded,weighted,random,p2c"
	plain := policies(t, mustRun(t, q))
	counted := policies(t, mustRun(t, q+"&count_errors=true"))
	rr := float64(plain["round_robin"].FailFast)
	if rr == 0 {
		t.Fatal("round robin sent nothing to the fail-fast backend")
	}
	within := func(x, lo, hi float64) bool { return x >= lo*rr && x <= hi*rr }
	for _, tc := range []struct {
		policy         string
		doc            string
		plain, counted func(x float64) bool
	}{
		{"round_robin", "blind to errors: its share, whether or not errors count",
			func(x float64) bool { return x == rr }, func(x float64) bool { return x == rr }},
		{"least_loaded", "sinkholes into it; counting errors as active requests sends it less than round robin",
			func(x float64) bool { return x > 1.4*rr }, func(x float64) bool { return x < 0.75*rr }},
		{"weighted", "its reported errors are a penalty: less than round robin (count_errors does not apply)",
			func(x float64) bool { return x < 0.75*rr }, func(x float64) bool { return x < 0.75*rr }},
		{"random", "blind to errors: its share, give or take chance (count_errors does not apply)",
			func(x float64) bool { return within(x, 0.85, 1.15) }, func(x float64) bool { return within(x, 0.85, 1.15) }},
		{"p2c", "sinkholes into it; counting errors as active requests sends it less than round robin",
			func(x float64) bool { return x > 1.2*rr }, func(x float64) bool { return x < 0.75*rr }},
	} {
		t.Run(tc.policy, func(t *testing.T) {
			p, c := float64(plain[tc.policy].FailFast), float64(counted[tc.policy].FailFast)
			t.Logf("%s: %.0f requests to the fail-fast backend (%.0f counting errors); round robin %.0f", tc.policy, p, c, rr)
			if !tc.plain(p) {
				t.Errorf("%.0f requests to the fail-fast backend, round robin %.0f: want %s", p, rr, tc.doc)
			}
			if !tc.counted(c) {
				t.Errorf("counting errors: %.0f requests to the fail-fast backend, round robin %.0f: want %s", c, rr, tc.doc)
			}
		})
	}
}

// TestSinkholeNeedsBusySubsets: least-loaded round robin sinkholes into a fail-fast backend
// when a client's requests in flight cover most of its subset (the tour's and the help's
// scenario: about 4 in flight over subsets of 5), and hardly at the default (the same 4 over
// subsets of 30, most of which look idle to the client anyway).
func TestSinkholeNeedsBusySubsets(t *testing.T) {
	small := policies(t, mustRun(t, failFastScenario+"&policy=round_robin,least_loaded"))
	def := policies(t, mustRun(t, "failing=1&policy=round_robin,least_loaded"))
	ratio := func(ps map[string]policySummary) float64 {
		return float64(ps["least_loaded"].FailFast) / float64(ps["round_robin"].FailFast)
	}
	t.Logf("least-loaded / round robin to the fail-fast backend: subsets of 5 %.2f (%.1f in flight per client), default %.2f (%.1f)",
		ratio(small), small["least_loaded"].ActivePerClient, ratio(def), def["least_loaded"].ActivePerClient)
	if ratio(small) < 1.4 {
		t.Errorf("subsets of 5: least-loaded sends the fail-fast backend %.2f× round robin's share, want a sinkhole", ratio(small))
	}
	if r := ratio(def); r > 1.1 || r < 0.9 {
		t.Errorf("default: least-loaded sends the fail-fast backend %.2f× round robin's share; the help says it hardly shows", r)
	}
	var step bool
	for _, tr := range tours {
		for _, s := range tr.Steps {
			step = step || s.URL == "/loadbalance?"+failFastScenario
		}
	}
	if !step {
		t.Errorf("no tour step shows the sinkhole's scenario /loadbalance?%s", failFastScenario)
	}
}
