//go:build unix

package inputfile

import (
	"sync"
	"syscall"
)

// mapAnon maps n bytes of zeroed memory outside the Go heap, and returns a
// function that unmaps them (once, however often called).
func mapAnon(n int) (mem []byte, free func(), ok bool) {
	mem, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil, nil, false
	}
	var once sync.Once
	return mem, func() { once.Do(func() { syscall.Munmap(mem) }) }, true
}
