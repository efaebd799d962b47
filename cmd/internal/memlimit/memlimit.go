// Package memlimit sets the Go runtime's soft memory limit from the
// process's address-space cap (RLIMIT_AS, `ulimit -v`), so that the garbage
// collector works harder as the heap nears the cap instead of letting the
// heap grow until an allocation's mmap fails ("fatal error: out of
// memory").
package memlimit

import (
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// Fraction of the address space left under the cap, once the runtime's own
// reservations are made, that is given to the Go heap: the rest is for
// goroutine stacks, the collector's metadata, and the heap's growth and
// fragmentation between collections. The Go heap never gives address space
// back (it returns the pages, not the range), so a heap that once grew
// near the cap stays there: the limit must leave room for that. A 64-bit
// Go program reserves about 1.2 to 1.5 GB of address space when it starts
// (the page allocator's summaries, mapped without access), which counts
// against RLIMIT_AS as much as the heap does.
const num, den = 3, 5

// Init sets debug.SetMemoryLimit from RLIMIT_AS when the cap is set and
// GOMEMLIMIT is not (the user's own limit wins). It returns the limit it
// set, or 0.
func Init() int64 {
	if _, ok := os.LookupEnv("GOMEMLIMIT"); ok {
		return 0
	}
	cap, ok := addressSpaceCap()
	if !ok {
		return 0
	}
	return LimitFor(cap, mappedNow(), true)
}

// LimitFor returns the soft memory limit for an address-space cap of cap
// bytes in a process that has base bytes of address space mapped (0 when
// unknown: half the cap is taken), and sets it when set is true.
func LimitFor(cap, base uint64, set bool) int64 {
	var lim int64
	switch {
	case base == 0:
		lim = int64(cap / 2)
	case base < cap:
		lim = int64((cap - base) / den * num)
	}
	if lim <= 0 {
		return 0
	}
	if set {
		debug.SetMemoryLimit(lim)
	}
	return lim
}

// mappedNow returns the process's mapped address space (VmSize), or 0
// where it cannot be read.
func mappedNow() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	return vmSize(string(b))
}

// vmSize reads VmSize from the text of /proc/self/status (0 when absent).
func vmSize(status string) uint64 {
	for _, l := range strings.Split(status, "\n") {
		if rest, ok := strings.CutPrefix(l, "VmSize:"); ok {
			f := strings.Fields(rest)
			if len(f) == 2 && f[1] == "kB" {
				if kb, err := strconv.ParseUint(f[0], 10, 64); err == nil {
					return kb << 10
				}
			}
		}
	}
	return 0
}
