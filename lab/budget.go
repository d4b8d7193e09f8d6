package lab

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/resilience-playground/playground/param"
)

// The budget. What runs is decided before it runs, by estimates that do not depend on the
// machine: a scenario runs when its estimated work fits the server's work budget and its
// estimated memory fits MaxRunMemory; the hub's limit on each run's CPU time is only a safety
// net under the estimates.
//
// A work unit is about the computing of one write attempt of the backoff lab, some 30–90 ns of
// CPU on the 2-core reference machine (12–100 ns across the three labs' heavy scenarios,
// measured by each lab's BenchmarkWorkUnit under load): every lab counts its work in those
// units as it runs, weighing what is heavier (a scan over a subset, a copy of a sliding log,
// an event that misses the CPU's caches), and estimates it within 2× of the count over its
// whole parameter space, extremes included (each lab's TestCostWithinTwice). So a budget of B
// units admits runs of at most about 2·B units, some 2·B·100 ns of CPU at worst, and measured
// here, at B = 2e8, up to ~15 CPU-s (docs/operating.md): the CPU limit should sit at least three
// times above what the budget admits (the defaults are api.DefaultBudget and
// api.DefaultMaxRunCPU).
//
// A refusal costs a few estimates: the value it suggests for a parameter comes from scaling
// it by how far the scenario is over (Cost grows at least about linearly with each cost
// parameter), then verifying the guess, and closing in when the value found fits well below
// one found over: at most FitEstimates estimates per parameter (TestCheckBudgetEstimates and
// the rate limiter's TestRefusalEstimates count them).
// Estimates run outside the hub's slots and CPU pacer, before any run: they are formulas or
// memoised pilots of a few milliseconds, except the rate limiter's pilot simulations (at most
// 2^20 units each, up to about a tenth of a second).

// MaxRunMemory is the most memory, in bytes, one run's estimate ([Lab.Memory]) may reach. With
// the hub's default of 8 runs at once (4 per CPU on 2 CPUs), runs hold at most 320 MiB
// between them, which keeps the server's peak resident memory under 512 MB whatever the
// requests, with the soft heap limit `playground serve` sets (measured: 404 MB after bursts of
// eight runs at the bound; docs/operating.md). A server allowed more runs at once needs a
// smaller bound per run, or more memory.
const MaxRunMemory = 40 << 20

// fitTries is the most estimates CheckBudget computes to find a value a parameter fits with,
// and fitCloser the most it computes more to close in on the largest.
const (
	fitTries  = 3
	fitCloser = 2
)

// FitEstimates is the most estimates a refusal computes for each parameter it tries.
const FitEstimates = fitTries + fitCloser

// CheckBudget returns a *param.Error when scenario v would need more than budget work units
// (budget ≤ 0: no limit on work) or more than MaxRunMemory bytes of memory. The error says
// which (both when both), and names the first cost (or memory) parameter that, lowered
// alone, would make the scenario fit both, with a value it would fit them with: a viewer who
// takes the suggestion is admitted, not sent from one refusal to the next.
func (l *Lab) CheckBudget(v param.Values, budget int64) error {
	if l.Cost == nil || budget <= 0 {
		budget = 0
	}
	var work, memory int64
	if budget > 0 && (l.CostBound == nil || l.CostBound(v) > budget) {
		work = l.Cost(v)
	}
	if l.Memory != nil {
		memory = l.Memory(v)
	}
	overWork, overMemory := budget > 0 && work > budget, memory > MaxRunMemory
	var msg string
	var names []string
	switch {
	case overWork:
		msg = fmt.Sprintf("this scenario needs about %.3g work units, more than the %.3g one run may use",
			float64(work), float64(budget))
		names = l.CostParams
		if overMemory {
			msg += fmt.Sprintf(", and about %s of memory, more than the %s one run may use",
				megabytes(memory), megabytes(MaxRunMemory))
			for _, name := range l.MemoryParams {
				if !slices.Contains(names, name) {
					names = append(slices.Clip(names), name)
				}
			}
		}
	case overMemory:
		msg = fmt.Sprintf("this scenario needs about %s of memory, more than the %s one run may use",
			megabytes(memory), megabytes(MaxRunMemory))
		names = l.MemoryParams
	default:
		return nil
	}
	// A candidate is weighed by its load: its estimate as a fraction of the limit, the larger
	// of the two fractions, so that the value suggested fits both.
	load := func(w param.Values) float64 {
		r := 0.0
		if l.Memory != nil {
			r = float64(l.Memory(w)) / MaxRunMemory
		}
		if r <= 1 && budget > 0 { // the work only when the memory fits: it is over anyway
			c := int64(-1)
			if l.CostBound != nil {
				if b := l.CostBound(w); b <= budget {
					c = b
				}
			}
			if c < 0 {
				c = l.Cost(w)
			}
			r = max(r, float64(c)/float64(budget))
		}
		return r
	}
	return l.refuse(v, names, load, max(float64(work)/float64(max(budget, 1)), float64(memory)/MaxRunMemory), msg+"; ")
}

// Fitted returns scenario v taken within the work budget and the memory bound: while l refuses
// it (CheckBudget) with a value that fits, v with that value — the largest admitted of the
// parameter the refusal names. From a scenario at the top of a parameter's range it gives the
// heaviest admitted along it (tests and reports of what admitted runs really use). It
// returns the last refusal when no suggested value brings v within the bounds.
func (l *Lab) Fitted(v param.Values, budget int64) (param.Values, error) {
	var err error
	for range 8 {
		if err = l.CheckBudget(v, budget); err == nil {
			return v, nil
		}
		var pe *param.Error
		if !errors.As(err, &pe) || pe.Fit == "" {
			return v, err
		}
		w, werr := v.With(pe.Param, pe.Fit)
		if werr != nil {
			return v, err
		}
		v = w
	}
	return v, err
}

// Stopped returns the error of scenario v, admitted but stopped by the hub's CPU safety net
// after share (0 to 1) of its work, msg saying so: like a refusal, it names the first cost
// parameter that, lowered alone, brings v's estimated work ([Lab.Cost]) to nine tenths of
// share of its own — what the CPU limit let it compute, with a margin — its memory within
// MaxRunMemory and the lab's rules kept, with the value that does; or, without an estimate
// to scale, the cost parameters to lower. So a safety-net stop says the same kind of thing,
// checked the same way, as a refusal before the run.
func (l *Lab) Stopped(v param.Values, share float64, msg string) error {
	msg += "; "
	if l.Cost == nil || share <= 0 || share >= 1 {
		return l.refuse(v, l.CostParams, nil, 0, msg)
	}
	allowed := 0.9 * share * float64(max(l.Cost(v), 1))
	load := func(w param.Values) float64 {
		r := 0.0
		if l.Memory != nil {
			r = float64(l.Memory(w)) / MaxRunMemory
		}
		return max(r, float64(l.Cost(w))/allowed)
	}
	return l.refuse(v, l.CostParams, load, 1/(0.9*share), msg)
}

// megabytes formats b bytes for a refusal: in MB, or GB or TB when there are thousands of them
// ("144 TB", not "1.44e+08 MB").
func megabytes(b int64) string {
	x, unit := float64(b)/1e6, "MB"
	for _, u := range []string{"GB", "TB"} {
		if x < 1000 {
			break
		}
		x, unit = x/1000, u
	}
	return fmt.Sprintf("%.3g %s", x, unit)
}

// refuse returns the error for scenario v, whose load c (its estimates as fractions of their
// limits, the larger) is over 1, msg saying by how much: it names the first of names that,
// lowered alone, brings the load to 1 or under, with the value that does, or (always, without
// a load) all of them; those already at their least are left out while any other remains.
// Parameters the scenario moved from their defaults come first (a viewer who moved the
// duration to a week is told what duration fits), then the others, each in the lab's order.
func (l *Lab) refuse(v param.Values, names []string, load func(param.Values) float64, c float64, msg string) error {
	def := l.Params.Defaults()
	moved := func(name string) bool {
		_, ok := l.Params.Lookup(name)
		return ok && v.Format(name) != def.Format(name)
	}
	names = slices.Clone(names)
	if can := slices.DeleteFunc(slices.Clone(names), func(n string) bool { return !l.lowerable(v, n) }); len(can) > 0 {
		names = can // not "or lower clients" where clients is at its minimum
	}
	slices.SortStableFunc(names, func(a, b string) int {
		switch ma, mb := moved(a), moved(b); {
		case ma && !mb:
			return -1
		case mb && !ma:
			return 1
		}
		return 0
	})
	for i, name := range names {
		if load == nil {
			break
		}
		if fit, less, ok := l.fit(v, name, load, c); ok {
			others := slices.Delete(slices.Clone(names), i, i+1)
			msg += fmt.Sprintf("lower %s to %s", name, fit)
			if less {
				msg += " or less"
			}
			if len(others) > 0 {
				msg += " (or lower " + orList(others) + ")"
			}
			return &param.Error{Param: name, Msg: msg, Fit: fit}
		}
	}
	name := ""
	if len(names) > 0 {
		name = names[0]
	}
	return &param.Error{Param: name, Msg: msg + "lower " + orList(names)}
}

// lowerable reports whether parameter name of v can be lowered: a number above its minimum, a
// list of more than one choice, a sweep that is on; a parameter of any other kind can be.
func (l *Lab) lowerable(v param.Values, name string) bool {
	sp, ok := l.Params.Lookup(name)
	if !ok {
		return false
	}
	switch sp.Kind {
	case param.Int:
		return float64(v.Int(name)) > sp.Min
	case param.Float:
		return v.Float(name) > sp.Min
	case param.Duration:
		return float64(v.Duration(name))/1e6 > sp.Min
	case param.EnumList:
		return len(v.List(name)) > 1
	case param.IntRange:
		return !v.Range(name).Off
	}
	return true
}

// fit returns a value of numeric parameter name, below its value in v, with which the load of
// v (c, over 1) comes to 1 or under, in its URL form, and whether smaller values than it (it
// is not the minimum) fit too; or false. The load is taken to grow with
// the parameter, at least about linearly: the first guess scales the value down by how far v
// is over, and each load computed refines the growth's exponent from the two latest points,
// at most fitTries loads in all, then up to fitCloser more between the largest value found to
// fit and the least found over. It returns the largest value found to fit, or the
// parameter's minimum when the guesses did not fit and the minimum does, which the last try
// checks; a value the lab's rules across parameters refuse (backends below the subset size)
// ends the search.
func (l *Lab) fit(v param.Values, name string, load func(param.Values) float64, c float64) (value string, less, ok bool) {
	sp, ok := l.Params.Lookup(name)
	if !ok {
		return "", false, false
	}
	var x float64 // the value, in the parameter's unit
	switch sp.Kind {
	case param.Int:
		x = float64(v.Int(name))
	case param.Float:
		x = v.Float(name)
	case param.Duration:
		x = float64(v.Duration(name)) / 1e6
	default:
		return "", false, false
	}
	top := x
	exp := 1.0
	best, bestRaw := math.Inf(-1), ""
	over, overLoad, bestLoad := top, c, 0.0 // the least value found over, and the loads
	// try computes the load at y and keeps y as the largest value found to fit or the least
	// found over; it returns the load, or false when y is no value of the parameter or breaks
	// the lab's rules (no suggestion, then).
	try := func(y float64) (float64, bool) {
		raw := formatParam(sp, y)
		w, err := v.With(name, raw)
		if err != nil || l.check(w) != nil {
			return 0, false
		}
		cy := load(w)
		if cy <= 1 {
			best, bestRaw, bestLoad = y, raw, cy
		} else if y < over {
			over, overLoad = y, cy
		}
		return cy, true
	}
	for i := range fitTries {
		aim := 1.0
		if i > 0 && c > 1 {
			aim = 0.95 // a guess was over: aim a little below
		}
		y := x * math.Pow(aim/c, 1/exp)
		if i == fitTries-1 && bestRaw == "" {
			y = sp.Min // the last try: does anything fit?
		}
		y = max(floorToStep(sp, min(y, top)), sp.Min)
		if y >= top || y <= best {
			break
		}
		cy, ok := try(y)
		if !ok {
			break
		}
		if cy > 0 && c > 0 && y != x {
			exp = min(max(math.Log(c/cy)/math.Log(x/y), 0.25), 4)
		}
		x, c = y, cy
	}
	// Closing in: "lower clients to 16 or less" must not be said where 44 fits. While the
	// value found is more than a tenth under the least found over (the load grew unlike a
	// power of the parameter, a part of it not scaling with it), aim between them where the
	// power through their two loads reaches 0.97 (or, when that falls outside, at their
	// geometric mean).
	for range fitCloser {
		if bestRaw == "" || over <= best*1.1 || bestLoad <= 0 {
			break
		}
		y := best * math.Pow(0.97/bestLoad, math.Log(over/best)/math.Log(overLoad/bestLoad))
		if y = floorToStep(sp, y); !(y > best && y < over) {
			y = floorToStep(sp, math.Sqrt(best*over))
		}
		if y <= best || y >= over {
			break
		}
		if _, ok := try(y); !ok {
			break
		}
	}
	if bestRaw == "" {
		return "", false, false
	}
	return bestRaw, best > sp.Min, true
}

// floorToStep rounds y down to the parameter's grid: whole numbers for Int, multiples of Step
// above Min otherwise (whole milliseconds for a Duration without one).
func floorToStep(sp param.Spec, y float64) float64 {
	switch {
	case sp.Kind == param.Int:
		return math.Floor(y * (1 + 1e-9))
	case sp.Step > 0:
		return sp.Min + math.Floor((y-sp.Min)/sp.Step*(1+1e-9))*sp.Step
	case sp.Kind == param.Duration:
		return math.Floor(y * (1 + 1e-9))
	}
	return y
}

// formatParam writes value y of parameter sp in URL form.
func formatParam(sp param.Spec, y float64) string {
	switch sp.Kind {
	case param.Int:
		return strconv.FormatInt(int64(y), 10)
	case param.Duration:
		return param.FormatDuration(time.Duration(math.Round(y * 1e6)))
	}
	decimals := 0
	if sp.Step > 0 && sp.Step < 1 {
		decimals = int(math.Ceil(-math.Log10(sp.Step) - 1e-9))
	}
	return strconv.FormatFloat(y, 'f', decimals, 64)
}

func orList(names []string) string {
	switch len(names) {
	case 0:
		return "the parameters"
	case 1:
		return names[0]
	}
	s := ""
	for i, n := range names {
		switch {
		case i == 0:
		case i == len(names)-1:
			s += " or "
		default:
			s += ", "
		}
		s += n
	}
	return s
}
