// Package ratelimit holds rate limiters: objects that decide, call by call,
// whether a client may do one more thing now or must be refused because it
// has done too much recently. They are plain in-process Go values for
// ordinary server code, and they are the limiters the playground's
// rate-limiter lab will simulate side by side.
//
// # Algorithms
//
// The set of algorithms follows Jean-Baptiste Muscat, "Distributed
// Rate-Limiting Algorithms", Criteo R&D Blog, February 2022
// (https://medium.com/criteo-engineering/distributed-rate-limiting-algorithms-a35f7e24783),
// also available in a Japanese translation,
// "分散フロー制御アルゴリズムを5分で理解する". The post compares the
// sliding log (a list of call timestamps: exact, but its memory and cost
// grow with the traffic), the fixed window (one counter per calendar
// minute: cheap, but up to twice the limit can pass around a window
// boundary), the token bucket (a token count plus the time of the last
// refill: a good compromise between cost and accuracy, but it needs
// atomic read-modify-write), its variant the leaky bucket (calls queue and
// drain at a constant rate, smoothing the load), and the sliding window
// counter (the current fixed window plus the previous one weighted by how
// much of it still overlaps the last minute: close to the sliding log for
// the price of two counters).
//
// Today the package has the token bucket, [TokenBucket], in
// token_bucket.go; the server uses it to limit how often one websocket
// connection may change simulation parameters. The leaky bucket, fixed
// window, sliding log and sliding window counter will follow, one file
// each.
//
// The post is about sharing limits between many server instances through
// a store such as Redis or Memcached. The limiters here keep their state
// in memory and guard it with a mutex; the lab concerns itself with how the
// algorithms behave, not with distributing them.
//
// # Conventions
//
// The limiters follow golang.org/x/time/rate: every call that depends on
// the clock has a variant that takes the current time from the caller
// (AllowN, Tokens, Delay), so tests and simulations can run on virtual
// time, and the convenience methods (Allow) call it with [time.Now]. The
// limiters start no goroutines, use no timers, do not allocate per call,
// and are safe for concurrent use. Time that goes backwards between calls
// is treated as no time passing.
package ratelimit
