package engine

import "math/rand/v2"

// Concern names what a random stream is used for. Each concern gets its own stream so that,
// for example, changing a jitter policy does not change the network delays a trial sees.
type Concern uint64

// The concerns the labs draw from. New labs add their own values; existing values never change,
// since shared URLs must keep reproducing the same numbers.
const (
	Network  Concern = 1 // network delays
	Jitter   Concern = 2 // jitter in retry policies
	Arrivals Concern = 3 // request arrival times
	Costs    Concern = 4 // query costs
	Choices  Concern = 5 // random choices made by algorithms (subsets, picks)
)

// Seed sets p to the start of the stream for (seed, concern, a, b): a and b are the world's keys,
// typically the trial and the actor. It does not allocate, so a world can keep one PCG per
// actor and reseed it at the start of every trial.
func Seed(p *rand.PCG, seed uint64, c Concern, a, b uint64) {
	p.Seed(mix(mix(seed)^uint64(c)), mix(mix(a)^mix(b+0x632be59bd9b4e019)))
}

// NewStream returns a generator positioned at the start of the stream for (seed, concern, a, b).
func NewStream(seed uint64, c Concern, a, b uint64) *rand.Rand {
	p := new(rand.PCG)
	Seed(p, seed, c, a, b)
	return rand.New(p)
}

// mix is SplitMix64's finaliser: a bijection that spreads nearby inputs far apart.
func mix(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
