package lab

import "fmt"

// Registry is the ordered set of labs a server offers.
type Registry struct {
	labs []*Lab
}

// NewRegistry returns a registry of labs in the given order. It panics on a duplicate name, a
// lab whose parameter defaults are invalid or break its rules across parameters, a view that
// names what does not exist ([View.Check]), or a tour step that is not a valid scenario, which
// are programming errors.
func NewRegistry(labs ...*Lab) *Registry {
	r := &Registry{}
	for _, l := range labs {
		if _, ok := r.Lookup(l.Name); ok {
			panic(fmt.Sprintf("lab: %q registered twice", l.Name))
		}
		if err := l.check(l.Params.Defaults()); err != nil {
			panic(fmt.Sprintf("lab %s: the defaults break a rule: %v", l.Name, err))
		}
		if err := l.View.Check(l.Params); err != nil {
			panic(fmt.Sprintf("lab %s: view: %v", l.Name, err))
		}
		if err := l.CheckTours(); err != nil {
			panic(err.Error())
		}
		r.labs = append(r.labs, l)
	}
	return r
}

// Lookup returns the lab named name.
func (r *Registry) Lookup(name string) (*Lab, bool) {
	for _, l := range r.labs {
		if l.Name == name {
			return l, true
		}
	}
	return nil, false
}

// All returns the labs in order.
func (r *Registry) All() []*Lab { return r.labs }
