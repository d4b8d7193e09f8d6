package loadbalance

import "fmt"

// loadRow is summary.load: the offered load against the backends' capacity, and whether the
// scenario is overloaded. It is a one-row table on the page.
type loadRow struct {
	// OfferedPct is the CPU the requests need, on average, as a share of what the backends
	// have: clients × rate × mean cost over backends × cores, at mean machine speed.
	OfferedPct float64 `json:"offered_pct"`
	Overloaded bool    `json:"overloaded"`
	Verdict    string  `json:"verdict"`
}

// loadOf is the offered load of scenario s. At 100% and above the scenario is overloaded:
// the backends together cannot serve the requests however a policy spreads them, so queues
// grow until backends shed, and every policy fails requests (TestOverload: 4 to 8% of them in
// 10 s at 150%).
func loadOf(s scenario) loadRow {
	l := loadRow{OfferedPct: loadPct(s)}
	l.Overloaded = l.OfferedPct >= 100
	if l.Overloaded {
		l.Verdict = fmt.Sprintf("Overloaded: the requests need %.0f%% of the CPU the backends have. "+
			"No policy can fix that: queues grow for as long as it lasts, and once they are full backends refuse requests whichever policy spreads them; "+
			"lower the rate or the clients, or add backends.", l.OfferedPct)
	} else {
		l.Verdict = fmt.Sprintf("Within capacity: the requests need %.0f%% of the CPU the backends have, "+
			"so how evenly a policy spreads them decides how busy the busiest backend gets.", l.OfferedPct)
	}
	return l
}
