package backoff

import "github.com/resilience-playground/playground/lab"

var view = lab.View{
	Key:      "strategies",
	Headline: []string{"work", "timeline"},
	Charts: []lab.Chart{
		{ID: "timeline", Title: "Writes over time at N = {clients}", XLabel: "time", YLabel: "writes", Kind: lab.Bars, Split: true, XUnit: lab.Millis,
			Help: "Write calls per time bin at the chosen N, mean over trials, from the same seed. Without jitter the calls arrive in clusters with silence between them."},
		{ID: "work", Band: "Shaded: the 95% interval of the mean over the trials.", Title: "Work vs clients", XLabel: "clients", YLabel: "write calls", Mark: "clients", IntX: true, Needs: "sweep",
			Help: "Mean write calls until every client succeeds. Without jitter it grows about as N²."},
		{ID: "completion", Band: "Shaded: the 95% interval of the mean over the trials.", Title: "Completion time vs clients", XLabel: "clients", YLabel: "time", Mark: "clients", IntX: true, LogY: true, YUnit: lab.Millis, Needs: "sweep",
			Help: "Mean simulated time until the last client succeeds."},
		{ID: "schedule", Title: "Retry schedule: sleep before retry n", XLabel: "retry n", YLabel: "sleep", LogY: true, IntX: true, YUnit: lab.Millis,
			Help: "The Qiita post's convention, retry 1 sleeping the base: exponential t_n = min(cap, a·r^(n−1)) beside linear t_n = min(cap, a·n). The simulated exponential strategy sleeps one step ahead, min(cap, a·r^n) (the table's last column)."},
		{ID: "relation", Title: "Next sleep vs elapsed time", XLabel: "elapsed T_n", YLabel: "next sleep t_(n+1)", XUnit: lab.Millis, YUnit: lab.Millis,
			Help: "Uncapped, t_(n+1) = a + (r−1)·T_n: the next interval is about (r−1)·100% of the time already spent."},
	},
	Tables: []lab.Table{
		{ID: "summary", Title: "At N = {clients}", Key: "strategies", Rows: lab.MapRows, Columns: []lab.Column{
			{Field: "", Label: "strategy"},
			{Field: "writes", Label: "writes", Digits: 1},
			{Field: "completion_ms", Label: "completion", Digits: 0, Unit: lab.Millis},
			{Field: "writes_change_pct", Label: "writes vs exponential", Digits: 0, Unit: lab.Percent},
			{Field: "completion_change_pct", Label: "time vs exponential", Digits: 0, Unit: lab.Percent},
		}},
		{ID: "schedule", Title: "Retry schedule", Key: "schedule", Rows: lab.ListRows, Bottom: true, Columns: []lab.Column{
			{Field: "retry", Label: "retry n"},
			{Field: "sleep_ms", Label: "sleep t_n", Digits: 3, Unit: lab.Millis},
			{Field: "elapsed_ms", Label: "elapsed T_n", Digits: 3, Unit: lab.Millis},
			{Field: "next_sleep_from_elapsed_ms", Label: "a + (r−1)·T_n", Digits: 3, Unit: lab.Millis},
			{Field: "linear_sleep_ms", Label: "linear t_n", Digits: 3, Unit: lab.Millis},
			{Field: "linear_elapsed_ms", Label: "linear T_n", Digits: 3, Unit: lab.Millis},
			{Field: "simulated_sleep_ms", Label: "simulated exponential", Digits: 3, Unit: lab.Millis},
		}, Help: "t_n and T_n count as the Qiita post does: retry 1 sleeps a. The simulated strategies count as Brooker's simulator does, the first retry being attempt 1: the last column is the simulated exponential strategy's sleep before retry n, min(cap, a·r^n), r times t_n until the cap."},
	},
	Notes: []string{
		"Two conventions for counting retries meet here, and the base a means the same in both. The simulated strategies keep Brooker's reference simulator's: the first retry already uses attempt 1, so the exponential strategy's first sleep is min(cap, a·r) (full and equal jitter draw up to it). The retry schedule follows the Qiita post “Exponential backoff における経過時間とリトライ間隔の関係”: the sleep before retry n is t_n = min(cap, a·r^(n−1)), so its first sleep is the base. The schedule table's last column shows the simulated strategy's sleep beside it.",
		"The inverse: to make the next interval about X% of the time already spent, choose r = 1 + X/100 (r = 1.1 for 10%).",
		"Work counts write calls only, as in the post; completion is the simulated time until the last client succeeds. Both are means over trials.",
	},
}
