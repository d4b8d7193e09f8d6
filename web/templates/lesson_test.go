package templates

import (
	"testing"

	"github.com/resilience-playground/playground/labs"
)

// TestLessonNamesRealTours: every part of the front page's suggested lesson names a tour of a
// real lab, and the lesson fits in 45 minutes.
func TestLessonNamesRealTours(t *testing.T) {
	all := labs.Registry().All()
	got := lessonOf(all)
	if len(got) != len(lesson) {
		t.Errorf("the lesson resolves %d of its %d parts against the real labs", len(got), len(lesson))
	}
	total := 2
	for _, p := range lesson {
		total += p.Minutes
	}
	if total > 45 {
		t.Errorf("the lesson takes %d minutes, more than 45", total)
	}
}
