// Package outfile writes a tool's outputs atomically, as LLVM's
// ToolOutputFile does: the bytes go to a staging folder beside the target
// (in the target's directory, so on its file system), and are renamed over
// the target only when the tool succeeded. A failed run leaves no file and
// no staging folder, and an existing target keeps its old contents. The
// name "-" means standard output.
//
// The rules every output follows:
//   - a symbolic link is written through: its target is replaced (staged
//     beside the target), the link stays;
//   - a file the user may not write (no write permission in its mode, for
//     root too) is never replaced;
//   - every error names the file it is about;
//   - SIGINT and SIGTERM remove the staging folders (HandleSignals), and
//     the next run into a folder removes what a killed run left there.
//
// CreateDir does the same for an output folder (recom compile -o DIR).
package outfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// File is an output being written. Write to it, then call Commit on success
// or Abort on failure (Abort after Commit does nothing, so `defer f.Abort()`
// is the usual pattern).
type File struct {
	w      *bufio.Writer
	tmp    *os.File // the staged file; nil for stdout and devices
	dev    *os.File // a device or pipe written directly
	stage  string   // the staging folder
	path   string   // the target as given
	real   string   // the file replaced: path, or where its links lead
	mode   fs.FileMode
	closed bool
}

// ErrEmptyName is the error for an output named "".
var ErrEmptyName = errors.New("the output file name is empty (give a file, or - for standard output)")

// Create starts writing path ("-": stdout, written through and never removed).
func Create(path string, stdout io.Writer) (*File, error) {
	switch path {
	case "":
		return nil, ErrEmptyName
	case "-":
		return &File{w: bufio.NewWriter(stdout), path: path}, nil
	}
	real, err := resolve(path)
	if err != nil {
		return nil, fail(path, err)
	}
	mode := fs.FileMode(0o644)
	if st, err := os.Stat(real); err == nil {
		switch {
		case st.IsDir():
			return nil, fail(path, errors.New("it is a directory (give a file name)"))
		case !st.Mode().IsRegular():
			// A device or a pipe (/dev/null, /dev/stdout): nothing to
			// replace atomically, so write to it directly.
			dev, err := os.OpenFile(real, os.O_WRONLY, 0)
			if err != nil {
				return nil, fail(path, err)
			}
			return &File{w: bufio.NewWriter(dev), dev: dev, path: path, real: real}, nil
		}
		if err := checkWritable(st); err != nil {
			return nil, fail(path, err)
		}
		mode = st.Mode().Perm()
	} else if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
		return nil, fail(path, err)
	}
	if strings.HasSuffix(real, string(filepath.Separator)) {
		return nil, fail(path, errors.New("the name ends in a slash (give a file name)"))
	}
	parent, base := filepath.Dir(real), filepath.Base(real)
	if err := checkParent(parent); err != nil {
		return nil, fail(path, err)
	}
	stage, err := newStaging(parent, base)
	if err != nil {
		return nil, fail(path, err)
	}
	tmp, err := os.OpenFile(filepath.Join(stage, base), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		live.Lock()
		dropStaging(stage)
		live.Unlock()
		return nil, fail(path, err)
	}
	return &File{w: bufio.NewWriterSize(tmp, 1<<16), tmp: tmp, stage: stage, path: path, real: real, mode: mode}, nil
}

// Name returns the target path.
func (f *File) Name() string { return f.path }

// Write writes to the output.
func (f *File) Write(p []byte) (int, error) { return f.w.Write(p) }

// WriteString writes s to the output.
func (f *File) WriteString(s string) (int, error) { return f.w.WriteString(s) }

// Commit flushes the output and, for a file, syncs it and renames it over
// the target. On error nothing is left behind; the error names the target.
func (f *File) Commit() error {
	if f.closed {
		return fmt.Errorf("%s: commit after close", f.path)
	}
	f.closed = true
	if f.tmp == nil {
		err := f.w.Flush()
		if f.dev != nil {
			if cerr := f.dev.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil && f.path != "-" {
			return fail(f.path, err)
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
	live.Lock()
	defer live.Unlock()
	if err == nil && live.exiting {
		err = errExiting
	}
	if err == nil {
		err = os.Rename(f.tmp.Name(), f.real)
	}
	dropStaging(f.stage)
	if err != nil {
		return fail(f.path, err)
	}
	syncDir(filepath.Dir(f.real))
	return nil
}

// Abort discards the output: the staged file is closed and removed with its
// staging folder; for stdout, buffered bytes are dropped. It does nothing
// after Commit.
func (f *File) Abort() {
	if f.closed {
		return
	}
	f.closed = true
	if f.tmp != nil {
		f.tmp.Close()
		live.Lock()
		dropStaging(f.stage)
		live.Unlock()
	}
	if f.dev != nil {
		f.dev.Close()
	}
}

// fail names the target in err: "cannot write PATH: REASON". The staged
// file's own name, which an *fs.PathError or *os.LinkError would show, is
// left out (it means nothing to the user).
func fail(path string, err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		err = pe.Err
	case errors.As(err, &le):
		err = le.Err
	}
	return &Error{Path: path, Err: err}
}

// Error is an output that could not be written.
type Error struct {
	Path string // the output as given
	Err  error
}

func (e *Error) Error() string {
	msg := e.Err.Error()
	switch {
	case errors.Is(e.Err, syscall.ENOSPC):
		msg = "no space left on the device"
	case errors.Is(e.Err, syscall.EROFS):
		msg = "the file system is read-only"
	}
	return fmt.Sprintf("cannot write %s: %s", e.Path, msg)
}

func (e *Error) Unwrap() error { return e.Err }

// maxLinks bounds the symbolic links followed from an output's name (as
// the kernel's 40).
const maxLinks = 40

// resolve returns the file that writing path replaces: path itself, or,
// when it is a symbolic link, the file the links lead to (which need not
// exist yet, as for a shell's "> link").
func resolve(path string) (string, error) {
	p := path
	for range maxLinks {
		st, err := os.Lstat(p)
		if err != nil || st.Mode()&fs.ModeSymlink == 0 {
			return p, nil
		}
		to, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(to) {
			to = filepath.Join(filepath.Dir(p), to)
		}
		p = to
	}
	return "", errors.New("too many levels of symbolic links")
}

// checkParent says why files cannot be made in the folder dir.
func checkParent(dir string) error {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("the directory %s does not exist", dir)
	case err != nil:
		return err
	case !st.IsDir():
		return fmt.Errorf("%s is not a directory", dir)
	}
	return nil
}

// checkWritable refuses a file that the mode bits do not let this process
// write: the owner's bit when it owns the file, the group's when it is in
// the file's group, the others' otherwise. Root, whom the kernel lets write
// anything, is held to "some write bit is set", so that a 0444 file stays
// as it is for every user.
func checkWritable(st fs.FileInfo) error {
	perm := st.Mode().Perm()
	ok := perm&0o222 != 0
	if sys, isStat := st.Sys().(*syscall.Stat_t); isStat && os.Geteuid() != 0 {
		switch {
		case int(sys.Uid) == os.Geteuid():
			ok = perm&0o200 != 0
		case inGroup(int(sys.Gid)):
			ok = perm&0o020 != 0
		default:
			ok = perm&0o002 != 0
		}
	}
	if !ok {
		return fmt.Errorf("it is read-only (mode %04o): not replacing it", perm)
	}
	return nil
}

// inGroup reports whether this process is in the group gid.
func inGroup(gid int) bool {
	if os.Getegid() == gid {
		return true
	}
	groups, _ := os.Getgroups()
	return slices.Contains(groups, gid)
}

// syncDir makes the rename durable; errors are ignored (not every file
// system supports syncing a directory).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
