package retrystorm

import "github.com/resilience-playground/playground/lab"

// tours walk through Marc Brooker's "Fixing retries with token buckets and circuit breakers"
// and his simulators, the SRE book's chapters 21 and 22, and metastable failures.
var tours = []lab.Tour{}
