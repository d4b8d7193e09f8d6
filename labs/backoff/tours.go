package backoff

import "github.com/resilience-playground/playground/lab"

// tours walk through the figures of Marc Brooker's "Exponential Backoff and Jitter".
var tours = []lab.Tour{{
	Name:  "jitter",
	Title: "Why backoff needs jitter",
	Steps: []lab.Step{{
		Title: "Backoff alone",
		URL:   "/backoff?strategies=none,exponential",
		Focus: "timeline", Controls: []string{"strategies", "clients"},
		Question: "Clients race to write one row; each that loses waits before it tries again, longer after each failure " +
			"(exponential backoff, no jitter). Will their retries spread out over time?",
		Gives: []string{"they spread out", "lockstep", "come back together", "in clusters", "keep colliding"},
		Explanation: "No. Clients that collided back off by the same doubling schedule, so they come back together: " +
			"the writes over time arrive in clusters at the same moments, with silence between them. Backing off lowers how often " +
			"each client tries, not how many try at once.",
		Answer: &lab.Answer{Options: []lab.Choice{{ID: "spread", Label: "They spread out over time"}, {ID: "cluster", Label: "They come back in clusters"}}, Truth: "cluster"},
	}, {
		Title: "Full jitter",
		URL:   "/backoff?strategies=exponential,full",
		Focus: "timeline", Controls: []string{"strategies", "cap"},
		Text: "Full jitter sleeps a random time between zero and the exponential backoff. The clusters " +
			"dissolve into a steady trickle, and far fewer writes collide: the next step counts them.",
	}, {
		Title: "Work as clients grow",
		URL:   "/backoff",
		Focus: "work", Controls: []string{"strategies", "clients"},
		Question: "The post's headline figure counts the writes needed until every client succeeds, against the number of " +
			"contending clients. Which strategy needs the fewest writes in all: full, equal or decorrelated jitter?",
		Gives: []string{"need the least", "work falls", "work climbs"},
		Explanation: "Full and equal jitter need the least (795 and 811 writes at 100 clients), decorrelated jitter a little " +
			"more (1,004), plain exponential backoff 1,855 and no backoff 2,421. Without jitter the work climbs steeply as the " +
			"clients grow.",
		Answer: &lab.Answer{Options: []lab.Choice{{ID: "full", Label: "Full jitter"}, {ID: "equal", Label: "Equal jitter"}, {ID: "decorrelated", Label: "Decorrelated jitter"}}, Truth: "full"},
	}, {
		Title: "Time to finish",
		URL:   "/backoff?strategies=exponential,full,equal,decorrelated",
		Focus: "completion", Controls: []string{"strategies", "cap"},
		Text: "Completion time is when the last client succeeds. Plain exponential backoff takes by far " +
			"the longest, 63.3 s (its sleeps grow unchecked until the cap); among the jittered strategies equal " +
			"jitter is the slowest (6.71 s), and full jitter (4.84 s) takes a little longer than decorrelated (4.52 s).",
	}, {
		Title: "More clients",
		URL:   "/backoff?strategies=exponential,full&clients=500&sweep=50:950:50",
		Focus: "work", Controls: []string{"clients", "sweep"},
		Text: "With five times as many clients the gap widens: at 500 clients full jitter needs 6,277 writes against plain " +
			"exponential backoff's 24,391, where at 100 clients it needed 795 against 1,855. Every extra " +
			"client adds collisions, and only jitter keeps them apart. Drag the clients slider to see where each strategy bends.",
	}},
}}
