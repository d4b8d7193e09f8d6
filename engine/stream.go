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

// Source is a SplitMix64 generator (Steele, Lea and Flood, "Fast Splittable Pseudorandom Number
// Generators", OOPSLA 2014): 64 bits of state, one addition and a mixing function per draw. It
// passes BigCrush, and it is several times cheaper than math/rand/v2's PCG, which matters when a
// simulation draws four network delays per attempt. It implements math/rand/v2's Source.
type Source struct{ state uint64 }

// Uint64 returns the next 64 random bits.
func (s *Source) Uint64() uint64 {
	s.state += golden
	return mix0(s.state)
}

const golden = 0x9e3779b97f4a7c15

// Seed sets p to the start of the stream for (seed, concern, a, b): a and b are the world's keys,
// typically the trial and the actor. It does not allocate, so a world can keep one Source per
// actor and reseed it at the start of every trial. Streams of different keys start at unrelated
// points of SplitMix64's period of 2⁶⁴.
func Seed(p *Source, seed uint64, c Concern, a, b uint64) {
	p.state = mix(mix(mix(seed)^uint64(c)) ^ mix(mix(a)^mix(b+0x632be59bd9b4e019)))
}

// A Seeder positions sources at the starts of the streams for (seed, concern, a, b) of one
// seed, concern and a, for any b: a world seeds one stream per actor at the start of every
// trial, and a Seeder does the mixing its fixed keys need once, so that each source costs three
// mixing steps rather than [Seed]'s seven. Its streams are exactly Seed's.
type Seeder struct{ prefix, a uint64 }

// NewSeeder returns the Seeder of (seed, concern, a).
func NewSeeder(seed uint64, c Concern, a uint64) Seeder {
	return Seeder{prefix: mix(mix(seed) ^ uint64(c)), a: mix(a)}
}

// Seed sets p to the start of the stream for (seed, concern, a, b), as [Seed] does.
func (s Seeder) Seed(p *Source, b uint64) {
	p.state = mix(s.prefix ^ mix(s.a^mix(b+0x632be59bd9b4e019)))
}

// NewStream returns a generator positioned at the start of the stream for (seed, concern, a, b).
func NewStream(seed uint64, c Concern, a, b uint64) *rand.Rand {
	p := new(Source)
	Seed(p, seed, c, a, b)
	return rand.New(p)
}

// mix is one SplitMix64 step: a bijection that spreads nearby inputs far apart.
func mix(z uint64) uint64 { return mix0(z + golden) }

// mix0 is SplitMix64's finaliser.
func mix0(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
