package loadtest

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

func TestMeasureRoom(t *testing.T) {
	for _, tc := range []struct {
		name     string
		vary     string
		compress bool
	}{{"new runs", "n", true}, {"cached runs", "", false}} {
		t.Run(tc.name, func(t *testing.T) {
			var progress bytes.Buffer
			srv := server(mustServe(t, 0, free()))
			srv.Compress, srv.Progress = tc.compress, &progress
			res, err := MeasureRoom(context.Background(), RoomConfig{
				Server: srv, Scenario: "/free?steps=4", Vary: tc.vary, Followers: 12, Changes: 4, Interval: time.Millisecond,
			})
			if err != nil {
				t.Fatal(err)
			}
			if res.Followers != 12 || res.Changes != 4 || res.Scenario != "/free?steps=4" || len(res.Code) == 0 {
				t.Errorf("result %+v", res)
			}
			for k := range numKinds {
				if res.Last[k].N != 4 || res.First[k].N != 4 || res.Each[k].N != 48 || res.Missing[k] != 0 {
					t.Errorf("%s: last %+v, first %+v, each %+v, %d missing; want a sample per change and per follower-change",
						k, res.Last[k], res.First[k], res.Each[k], res.Missing[k])
				}
				if l, e, f := res.Last[k], res.Each[k], res.First[k]; l.Max < l.P50 || f.P50 > l.P50 || e.Max != l.Max || l.P50 <= 0 {
					t.Errorf("%s: inconsistent: last %+v, first %+v, each %+v", k, l, f, e)
				}
			}
			if res.Last[msgDone].P50 < res.Last[msgStart].P50 {
				t.Errorf("the runs ended (%v) before they started (%v)", res.Last[msgDone].P50, res.Last[msgStart].P50)
			}
			var out bytes.Buffer
			res.WriteText(&out)
			for _, want := range []string{
				"12 followers, 4 changes of /free?steps=4",
				"| message | last follower p50 | p99 | max | each follower p50 | p99 | max | first follower p50 |",
				"\n| room | ", "\n| frame | ", "\n| done | ", "during the changes",
			} {
				if !strings.Contains(out.String(), want) {
					t.Errorf("report lacks %q:\n%s", want, out.String())
				}
			}
			if !strings.Contains(progress.String(), "change 4 of 4 reached every follower") {
				t.Errorf("progress:\n%s", progress.String())
			}
		})
	}
}

// TestMeasureRoomErrors: what goes wrong is said clearly.
func TestMeasureRoomErrors(t *testing.T) {
	srv := server(mustServe(t, 0, free()))
	for _, tc := range []struct {
		cfg  RoomConfig
		want string
	}{
		{RoomConfig{Scenario: "/nosuchlab"}, "creating the room: 400"},
		{RoomConfig{Scenario: "/free?steps=0"}, "steps must be"},
		{RoomConfig{Scenario: "/free", Vary: "nosuchparam"}, `is "nosuchparam" a parameter of the lab?`},
		{RoomConfig{Scenario: "free"}, "-scenario must be a lab URL"},
	} {
		tc.cfg.Server, tc.cfg.Followers, tc.cfg.Changes = srv, 3, 2
		_, err := MeasureRoom(context.Background(), tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one with %q", tc.cfg, err, tc.want)
		}
	}
	bad := RoomConfig{Server: server("ftp://127.0.0.1"), Scenario: "/free", Followers: 1, Changes: 1}
	if _, err := MeasureRoom(context.Background(), bad); err == nil {
		t.Error("an ftp base URL is accepted")
	}
}

// TestMeasureRoomAnswers: after its changes the room asks a question, every follower answers
// at once, and the presenter's tally counts every one of them.
func TestMeasureRoomAnswers(t *testing.T) {
	srv := server(mustServe(t, 0, free()))
	res, err := MeasureRoom(context.Background(), RoomConfig{
		Server: srv, Scenario: "/free?steps=4", Followers: 12, Changes: 1, Interval: time.Millisecond,
		AnswerStep: "intro/3", AnswerValues: []string{"two", "three"},
	})
	if err != nil {
		t.Fatal(err)
	}
	a := res.Answers
	if a == nil || a.Step != "intro/3" || a.Answered != 12 || a.Counted <= 0 || a.Tallies < 1 {
		t.Fatalf("answers %+v, want all 12 counted", a)
	}
	var out bytes.Buffer
	res.WriteText(&out)
	if !strings.Contains(out.String(), "answers to intro/3: 12 followers answered at once") || !strings.Contains(out.String(), "the presenter's tally counted all 12") {
		t.Errorf("report:\n%s", out.String())
	}
	if _, err := MeasureRoom(context.Background(), RoomConfig{Server: srv, Scenario: "/free", Followers: 1, Changes: 1, AnswerStep: "intro/3"}); err == nil || !strings.Contains(err.Error(), "-answer-values") {
		t.Errorf("an answer step without values: %v", err)
	}
}
