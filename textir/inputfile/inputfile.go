// Package inputfile reads the files recom's tools and libraries take as
// input (textual IR, GraphDefs and SavedModels, .npz feeds and tables, model
// specs) with a bound on their size. A file larger than MaxBytes, or a
// stream that does not end (/dev/zero, /dev/urandom, a pipe), is refused
// with an error that names it, the limit and how to raise it, after reading
// at most MaxBytes+1 bytes, instead of running the process out of memory.
//
// MaxBytes is read from RECOM_MAX_INPUT_BYTES when the program starts
// (docs/LIMITS.md lists every limit); a program may also set it before
// reading (not concurrently with a read).
package inputfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
)

// MaxBytes bounds the size of one input file or stream.
var MaxBytes = envLimit(EnvMaxBytes, DefaultMaxBytes)

// The environment variable that sets MaxBytes, and its default (1 GiB: a
// GraphDef of that size already needs a few GiB to decode).
const (
	EnvMaxBytes     = "RECOM_MAX_INPUT_BYTES"
	DefaultMaxBytes = int64(1) << 30
)

// envLimit returns the positive integer in the environment variable name,
// or def when it is unset or not a positive integer.
func envLimit(name string, def int64) int64 {
	if s, ok := os.LookupEnv(name); ok {
		if v, err := strconv.ParseInt(s, 10, 64); err == nil && v > 0 {
			return v
		}
	}
	return def
}

// TooLargeError reports an input refused for holding more than MaxBytes
// bytes. Its message names the input, the limit and how to raise it.
type TooLargeError struct {
	Name  string // the file's path, or "<stdin>"
	Size  int64  // the size a regular file declares; -1 for a stream
	Limit int64
}

func (e *TooLargeError) Error() string {
	what := "input is too large"
	if e.Size >= 0 {
		what = fmt.Sprintf("input of %d bytes is too large", e.Size)
	}
	return fmt.Sprintf("%s: %s: more than %d bytes (set %s to raise the limit; see docs/LIMITS.md)", e.Name, what, e.Limit, EnvMaxBytes)
}

// Read returns the contents of the file at path. A regular file larger than
// MaxBytes is refused before it is read; any other file (a device, a pipe,
// a file that grows while it is read) is read up to MaxBytes+1 bytes and
// refused if it holds more. Errors of the file system are *fs.PathError
// values, which name the path.
func Read(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return readOpen(f, path, st)
}

// readOpen is Read of the open file f, whose Stat is st.
func readOpen(f *os.File, path string, st fs.FileInfo) ([]byte, error) {
	if st.IsDir() {
		// Reading it fails with a bare "is a directory"; say what to give.
		return nil, &fs.PathError{Op: "read", Path: path, Err: errors.New("is a directory, not a file")}
	}
	size := int64(-1)
	if st.Mode().IsRegular() && st.Size() > 0 {
		size = st.Size()
		if size > MaxBytes {
			return nil, &TooLargeError{Name: path, Size: size, Limit: MaxBytes}
		}
	}
	return read(f, path, size)
}

// ReadFrom reads r to its end, refusing it when it holds more than MaxBytes
// bytes; name (a path, or "<stdin>") is the input's name in the error.
func ReadFrom(r io.Reader, name string) ([]byte, error) {
	return read(r, name, -1)
}

// read reads at most MaxBytes+1 bytes of r. A stream of unknown size is
// read in pieces of growing size that are joined once at the end, so that
// refusing an endless stream holds no more than MaxBytes (a growing slice
// would hold up to twice that while it is copied); a regular file's
// declared size (size >= 0) is read into one buffer.
func read(r io.Reader, name string, size int64) ([]byte, error) {
	limit := MaxBytes
	lr := &io.LimitedReader{R: r, N: limit + 1}
	var pieces [][]byte
	total := int64(0)
	next := int64(64 << 10)
	if size >= 0 {
		next = size + 1 // one byte more sees the end (or a file that grew)
	}
	for {
		buf := make([]byte, min(next, limit+1-total))
		n, err := io.ReadFull(lr, buf)
		total += int64(n)
		if total > limit {
			return nil, &TooLargeError{Name: name, Size: size, Limit: limit}
		}
		pieces = append(pieces, buf[:n])
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				return nil, err // it names the file already
			}
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		next = min(2*int64(len(buf)), 64<<20)
	}
	if len(pieces) == 1 {
		return pieces[0], nil
	}
	out := make([]byte, 0, total)
	for _, p := range pieces {
		out = append(out, p...)
	}
	return out, nil
}
