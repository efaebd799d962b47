// Package dlbind binds the entry points of a shared library opened at run
// time (purego, no cgo) to Go function variables: the one loop the CUDA
// driver (runtime/cuda), cuBLASLt (runtime/cublaslt) and NCCL
// (runtime/nccl) bindings share.
package dlbind

import (
	"fmt"

	"github.com/ebitengine/purego"
)

// Symbol is one entry point: the names tried in order (the newest version
// first), the address of the Go function variable it fills, and whether
// the library may lack it (the variable then stays nil).
type Symbol struct {
	Names    []string
	Fptr     any
	Optional bool
}

// Bind fills each symbol's variable with the address lookup finds under
// its first name that has one. A required symbol found under none is the
// error missing makes of its first name and lookup's last error.
func Bind(lookup func(name string) (uintptr, error), syms []Symbol, missing func(name string, err error) error) error {
	for _, s := range syms {
		var addr uintptr
		var lastErr error
		for _, n := range s.Names {
			p, err := lookup(n)
			if err == nil && p != 0 {
				addr = p
				break
			}
			lastErr = err
		}
		if addr == 0 {
			if s.Optional {
				continue
			}
			return missing(s.Names[0], lastErr)
		}
		if err := register(s.Fptr, addr, s.Names[0]); err != nil {
			return err
		}
	}
	return nil
}

// register is purego.RegisterFunc with its panics (a Go signature it
// cannot call) turned into errors.
func register(fptr any, addr uintptr, name string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("binding %s: %v", name, r)
		}
	}()
	purego.RegisterFunc(fptr, addr)
	return nil
}
