package backoff

import "time"

// Prepared is a policy made ready for many sleeps, for a simulator that computes millions of
// them: the same durations as the policy's own Sleep, bit for bit, without an interface call
// per sleep, and with each attempt's growth (base·r^attempt, a power) computed once, for the
// first [preparedAttempts] attempts, rather than per sleep. A jittered policy's one draw is
// made by the caller and passed in (see [Prepared.Draws]), so the caller's random stream is
// consumed exactly as the policy's Sleep would consume it.
//
// A Prepared is not safe for concurrent use with [Prepared.Reset]; Sleep only reads it.
type Prepared struct {
	kind   preparedKind
	policy Policy        // the policy prepared
	cap    time.Duration // Cap of the jittered policies
	base   float64       // Decorrelated: float64(nonNeg(Base))
	fixed  []time.Duration
	ceil   []float64 // FullJitter: v; EqualJitter: v/2 (see their Sleep)
	full   FullJitter
	equal  EqualJitter
}

type preparedKind uint8

const (
	preparedOther preparedKind = iota // not one of this package's policies: its Sleep, through the interface
	preparedFixed                     // no draw, no prev: the sleep of attempt a is fixed[a]
	preparedFull
	preparedEqual
	preparedDecorrelated
)

// preparedAttempts is how many attempts' growth a Prepared computes ahead; later attempts
// compute it per sleep, as the policy does.
const preparedAttempts = 64

// Reset prepares p, reusing the tables' memory (and the tables themselves when p is the
// policy already prepared). It returns false when p is not one of this package's policies:
// Sleep then calls p's own Sleep.
func (pp *Prepared) Reset(p Policy) bool {
	kind := preparedOther
	switch p.(type) {
	case None, Constant, Linear, Exponential:
		kind = preparedFixed
	case FullJitter:
		kind = preparedFull
	case EqualJitter:
		kind = preparedEqual
	case Decorrelated:
		kind = preparedDecorrelated
	}
	if kind == preparedOther {
		pp.kind, pp.policy = kind, p
		return false
	}
	if pp.kind == kind && pp.policy == p { // comparable: one of this package's value types
		return true
	}
	pp.kind, pp.policy, pp.fixed, pp.ceil = kind, p, pp.fixed[:0], pp.ceil[:0]
	switch p := p.(type) {
	case FullJitter:
		pp.cap, pp.full = p.Cap, p
		for a := range preparedAttempts {
			pp.ceil = append(pp.ceil, p.ceiling(a))
		}
	case EqualJitter:
		pp.cap, pp.equal = p.Cap, p
		for a := range preparedAttempts {
			pp.ceil = append(pp.ceil, p.half(a))
		}
	case Decorrelated:
		pp.cap, pp.base = p.Cap, float64(nonNeg(p.Base))
	default:
		for a := range preparedAttempts {
			pp.fixed = append(pp.fixed, p.Sleep(a, 0, nil))
		}
	}
	return true
}

// Policy returns the policy last prepared.
func (pp *Prepared) Policy() Policy { return pp.policy }

// Draws reports whether the policy's Sleep draws one [Rand.Float64]: then the caller draws it
// and passes it to Sleep as u.
func (pp *Prepared) Draws() bool {
	return pp.kind == preparedFull || pp.kind == preparedEqual || pp.kind == preparedDecorrelated
}

// Sleep returns the prepared policy's Sleep(attempt, prev, r) where r's next Float64 is u (u
// is ignored when the policy does not draw). A policy Reset did not recognise is called with a
// Rand whose every draw is u, which allocates; its caller had better call it directly.
func (pp *Prepared) Sleep(attempt int, prev time.Duration, u float64) time.Duration {
	switch pp.kind {
	case preparedFixed:
		if uint(attempt) < uint(len(pp.fixed)) {
			return pp.fixed[attempt]
		}
		return pp.policy.Sleep(attempt, prev, nil)
	case preparedFull:
		return fullSleep(pp.growth(attempt), pp.cap, u)
	case preparedEqual:
		return equalSleep(pp.growth(attempt), pp.cap, u)
	case preparedDecorrelated:
		return decorrelatedSleep(pp.base, prev, pp.cap, u)
	}
	return pp.policy.Sleep(attempt, prev, fixedRand(u))
}

// growth returns a jittered policy's growth at attempt: FullJitter's v, EqualJitter's v/2.
func (pp *Prepared) growth(attempt int) float64 {
	if uint(attempt) < uint(len(pp.ceil)) {
		return pp.ceil[attempt]
	}
	return pp.grown(attempt)
}

// grown is growth beyond the prepared attempts.
func (pp *Prepared) grown(attempt int) float64 {
	if pp.kind == preparedFull {
		return pp.full.ceiling(attempt)
	}
	return pp.equal.half(attempt)
}

// fixedRand is a Rand whose every draw is the same number.
type fixedRand float64

func (u fixedRand) Float64() float64 { return float64(u) }
