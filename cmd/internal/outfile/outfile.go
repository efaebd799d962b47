// Package outfile writes a tool's output file atomically, as LLVM's
// ToolOutputFile does: the bytes go to a temporary file in the target's
// directory, which is synced and renamed over the target only when the tool
// succeeded. A failed run leaves neither a file nor a temporary file, and an
// existing target keeps its old contents. The name "-" means standard output.
package outfile

import (
	"bufio"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// File is an output being written. Write to it, then call Commit on success
// or Abort on failure (Abort after Commit does nothing, so `defer f.Abort()`
// is the usual pattern).
type File struct {
	w      *bufio.Writer
	tmp    *os.File // the temporary file; nil for stdout and devices
	dev    *os.File // a device or pipe written directly
	path   string
	mode   fs.FileMode
	closed bool
}

// Create starts writing path ("-": stdout, written through and never removed).
func Create(path string, stdout io.Writer) (*File, error) {
	if path == "-" {
		return &File{w: bufio.NewWriter(stdout), path: path}, nil
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	mode := fs.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		switch {
		case st.IsDir():
			return nil, &fs.PathError{Op: "write", Path: path, Err: errors.New("is a directory")}
		case !st.Mode().IsRegular():
			// A device or a pipe (/dev/null, /dev/stdout): nothing to
			// replace atomically, so write to it directly.
			dev, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err != nil {
				return nil, err
			}
			return &File{w: bufio.NewWriter(dev), dev: dev, path: path}, nil
		}
		mode = st.Mode().Perm()
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return nil, err
	}
	return &File{w: bufio.NewWriterSize(tmp, 1<<16), tmp: tmp, path: path, mode: mode}, nil
}

// Name returns the target path.
func (f *File) Name() string { return f.path }

// Write writes to the output.
func (f *File) Write(p []byte) (int, error) { return f.w.Write(p) }

// WriteString writes s to the output.
func (f *File) WriteString(s string) (int, error) { return f.w.WriteString(s) }

// Commit flushes the output and, for a file, syncs it and renames it over
// the target. On error nothing is left behind.
func (f *File) Commit() error {
	if f.closed {
		return errors.New("outfile: commit after close")
	}
	if f.tmp == nil {
		f.closed = true
		err := f.w.Flush()
		if f.dev != nil {
			if cerr := f.dev.Close(); err == nil {
				err = cerr
			}
		}
		return err
	}
	err := f.w.Flush()
	if err == nil {
		err = f.tmp.Chmod(f.mode)
	}
	if err == nil {
		err = f.tmp.Sync()
	}
	if cerr := f.tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.tmp.Name(), f.path)
	}
	f.closed = true
	if err != nil {
		os.Remove(f.tmp.Name())
		return err
	}
	syncDir(filepath.Dir(f.path))
	return nil
}

// Abort discards the output: a temporary file is closed and removed; for
// stdout, buffered bytes are dropped. It does nothing after Commit.
func (f *File) Abort() {
	if f.closed {
		return
	}
	f.closed = true
	if f.tmp != nil {
		f.tmp.Close()
		os.Remove(f.tmp.Name())
	}
	if f.dev != nil {
		f.dev.Close()
	}
}

// syncDir makes the rename durable; errors are ignored (not every file
// system supports syncing a directory).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
