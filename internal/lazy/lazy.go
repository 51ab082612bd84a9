// Package lazy holds package-level values computed on first use, laid out
// statically by the compiler: a package-level lazy value costs nothing while
// its package initialises, where a sync.OnceValue is built then (closures
// allocated by package initialisation, in every process:
// BenchmarkCLIRunNoStdlib). The zero values of the types are not usable:
// each is a composite literal naming its function or expression. Every
// method is safe for concurrent use; a value must not be copied after its
// first use.
package lazy

import (
	"regexp"
	"sync"
)

// A Value is the result of F, called once, on the first Get.
type Value[T any] struct {
	F    func() T
	once sync.Once
	v    T
}

// Get returns F's result, calling F on the first call.
func (l *Value[T]) Get() T {
	l.once.Do(func() { l.v = l.F() })
	return l.v
}

// Values is Value for a function that also returns an error.
type Values[T any] struct {
	F    func() (T, error)
	once sync.Once
	v    T
	err  error
}

// Get returns F's results, calling F on the first call.
func (l *Values[T]) Get() (T, error) {
	l.once.Do(func() { l.v, l.err = l.F() })
	return l.v, l.err
}

// A Regexp is the regular expression Expr, a constant of the program,
// compiled on the first Get.
type Regexp struct {
	Expr string
	once sync.Once
	re   *regexp.Regexp
}

// Get returns the compiled expression. It panics, as regexp.MustCompile
// does, when Expr does not compile: a bug of the program, which its tests
// find.
func (r *Regexp) Get() *regexp.Regexp {
	r.once.Do(func() { r.re = regexp.MustCompile(r.Expr) })
	return r.re
}
