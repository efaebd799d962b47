//go:build unix

package memlimit

import "syscall"

// addressSpaceCap returns the soft RLIMIT_AS, when one is set.
func addressSpaceCap() (uint64, bool) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &r); err != nil || r.Cur == ^uint64(0) || r.Cur == 0 {
		return 0, false
	}
	return r.Cur, true
}
