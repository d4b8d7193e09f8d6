package lab

// Option is one choice of a lab's enum parameter: its name, as URLs write it, what people read
// for it (its label, shown wherever the page names the choice), and what makes it (a
// strategy's policy, a policy's picker, an algorithm's simulation; struct{} for a choice that
// a lab reads by name).
type Option[C any] struct {
	Name  string // in URLs, JSON and CSV: fixed_window
	Label string // on the page: Fixed window
	New   C
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

// Labels returns the choices' labels, in order: a param.Spec's OptionLabels.
func (o Options[C]) Labels() []string {
	labels := make([]string, len(o))
	for i, opt := range o {
		labels[i] = opt.Label
	}
	return labels
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
