// Package labs lists the playground's labs. Adding a lab means writing its package and adding
// it here; nothing else refers to labs by name.
package labs

import (
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/labs/backoff"
	"github.com/resilience-playground/playground/labs/loadbalance"
	"github.com/resilience-playground/playground/labs/ratelimit"
	"github.com/resilience-playground/playground/labs/retrystorm"
)

// Registry returns a registry of every lab, in the order the site lists them, followed by
// extra (labs of tests).
func Registry(extra ...*lab.Lab) *lab.Registry {
	return lab.NewRegistry(append([]*lab.Lab{
		backoff.Lab(),
		ratelimit.Lab(),
		loadbalance.Lab(),
		retrystorm.Lab(),
	}, extra...)...)
}
