package inputfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
)

// ReadOffHeap is Read into memory outside the Go heap where it can (a
// regular file, on a system with anonymous mappings): release gives the
// memory and its address space back at once. The Go heap never returns
// address space to the system, so a 400 MB graph file read into it would
// count against an address-space cap (`ulimit -v`) for the rest of the
// run, however soon it is dropped. Nothing may read data, or anything that
// shares its memory (a string made with unsafe.String), after release;
// release may be called more than once. Elsewhere, and for what is not a
// regular file, it is Read, and release does nothing.
func ReadOffHeap(path string) (data []byte, release func(), err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	size := st.Size()
	var mem []byte
	var free func()
	ok := st.Mode().IsRegular() && size > 0 && size <= MaxBytes
	if ok {
		mem, free, ok = mapAnon(int(size) + 1)
	}
	if !ok {
		// A pipe or a device is read once, from what is open.
		data, err := readOpen(f, path, st)
		return data, func() {}, err
	}
	n, err := io.ReadFull(f, mem)
	switch {
	case err == nil:
		// It grew since Stat: Read bounds what it reads.
		free()
		data, err := Read(path)
		return data, func() {}, err
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return mem[:n:n], free, nil
	default:
		free()
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, nil, err
		}
		return nil, nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
}
