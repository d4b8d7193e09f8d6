package lab

// Option is one choice of a lab's enum parameter: its name, as URLs write it, paired with
// what makes it (a strategy's policy, a policy's picker, an algorithm's simulation).
type Option[C any] struct {
	Name string
	New  C
}

// Options is a lab's table of the choices of one parameter, in canonical order: the one place
// a choice is declared. The parameter's Options are its [Options.Names], and the lab makes a
// choice with [Options.Make], so no choice can be offered without a constructor, nor built
// without being offered.
type Options[C any] []Option[C]

// Names returns the choices' names, in order: a param.Spec's Options.
func (o Options[C]) Names() []string {
	names := make([]string, len(o))
	for i, opt := range o {
		names[i] = opt.Name
	}
	return names
}

// Make returns the constructor of the named choice. It panics if there is none: names come
// from scenarios the parameter's declaration has already checked.
func (o Options[C]) Make(name string) C {
	for _, opt := range o {
		if opt.Name == name {
			return opt.New
		}
	}
	panic("lab: unknown option " + name)
}
