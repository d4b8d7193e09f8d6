package templates

import (
	"strconv"

	"github.com/resilience-playground/playground/lab"
)

// lessonPart is one tour of the front page's suggested lesson, with the minutes it takes a
// class (each step: a prediction, the reveal and a short discussion).
type lessonPart struct {
	Lab, Tour string
	Minutes   int
}

// lesson is the suggested 45-minute lesson: the tours in the order a class takes them, from
// retries (the simplest picture) to counting at a limit, to spreading load. Minutes add up to
// 43, leaving two for opening the room.
var lesson = []lessonPart{
	{"backoff", "jitter", 10},
	{"ratelimit", "criteo", 10},
	{"ratelimit", "distributed", 8},
	{"loadbalance", "policies", 8},
	{"loadbalance", "subsetting", 7},
}

// lessonStep is a part of the lesson as the front page lists it.
type lessonStep struct {
	Lab     *lab.Lab
	Tour    lab.Tour
	Minutes string // "0–10 min"
	Link    string // the tour's first step
}

// lessonOf resolves the lesson against the labs served; a part naming a lab or tour not served
// is left out (TestLessonNamesRealTours keeps the declaration true to the real labs).
func lessonOf(labs []*lab.Lab) []lessonStep {
	var out []lessonStep
	at := 2
	for _, p := range lesson {
		for _, l := range labs {
			if l.Name != p.Lab {
				continue
			}
			for _, t := range l.Tours {
				if t.Name == p.Tour && len(t.Steps) > 0 {
					out = append(out, lessonStep{Lab: l, Tour: t, Link: t.Steps[0].URL + "#tour=" + t.Name + "/1",
						Minutes: strconv.Itoa(at) + "–" + strconv.Itoa(at+p.Minutes) + " min"})
				}
			}
		}
		at += p.Minutes
	}
	return out
}
