// Package memlimit sets the Go runtime's soft memory limit from the
// process's address-space cap (RLIMIT_AS, `ulimit -v`), so that the garbage
// collector works harder as the heap nears the cap instead of letting the
// heap grow until an allocation's mmap fails ("fatal error: out of
// memory").
package memlimit

import (
	"os"
	"runtime/debug"
)

// Fraction of the address-space cap given to the Go heap: the rest is the
// binary, goroutine stacks, the runtime's own reservations and arena
// metadata, and the heap's growth between two collections.
const num, den = 1, 2

// Init sets debug.SetMemoryLimit to half of RLIMIT_AS when the cap is set
// and GOMEMLIMIT is not (the user's own limit wins). It returns the limit
// it set, or 0.
func Init() int64 {
	if _, ok := os.LookupEnv("GOMEMLIMIT"); ok {
		return 0
	}
	cap, ok := addressSpaceCap()
	if !ok {
		return 0
	}
	return LimitFor(cap, true)
}

// LimitFor returns the soft memory limit for an address-space cap of cap
// bytes, and sets it when set is true.
func LimitFor(cap uint64, set bool) int64 {
	lim := int64(cap / den * num)
	if lim <= 0 {
		return 0
	}
	if set {
		debug.SetMemoryLimit(lim)
	}
	return lim
}
