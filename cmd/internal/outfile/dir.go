package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// Dir is an output folder being written: its files go to new/ in a staging
// folder beside it, which Commit renames over the target. Write the files,
// then call Commit on success or Abort on failure (Abort after Commit does
// nothing).
type Dir struct {
	path  string // the target as given
	real  string // the folder replaced: path, or where its links lead
	stage string
	seen  map[string]bool // the files of the target when the run began
	mu    sync.Mutex      // guards wrote (Create and WriteFile may run on several goroutines)
	wrote map[string]bool
	done  bool
	// Kept lists, after Commit, the files that were in the target folder
	// but neither written by this run nor owned by the tool (someone put
	// them there while it ran): they are in the new folder too.
	Kept []string
}

// CreateDir starts writing the folder path. owned reports whether a file
// name is one the tool writes. An existing folder is replaced only when it
// holds nothing but regular files with owned names, each writable, so that
// no one's other files are ever replaced; a file someone puts there while
// the tool runs is kept (see Commit).
func CreateDir(path string, owned func(name string) bool) (*Dir, error) {
	if path == "" {
		return nil, errors.New("the output directory name is empty")
	}
	real, err := resolve(filepath.Clean(path))
	if err != nil {
		return nil, fail(path, err)
	}
	seen := map[string]bool{}
	st, err := os.Lstat(real)
	switch {
	case err == nil:
		if !st.IsDir() {
			return nil, fail(path, errors.New("it exists and is not a directory"))
		}
		if err := checkWritable(st); err != nil {
			return nil, fail(path, err)
		}
		ents, err := os.ReadDir(real)
		if err != nil {
			return nil, fail(path, err)
		}
		for _, e := range ents {
			if !e.Type().IsRegular() || !owned(e.Name()) {
				return nil, fmt.Errorf("cannot write %s: it holds %s, which is not an output of this tool: not replacing it (remove it or choose another directory)",
					path, e.Name())
			}
			info, err := e.Info()
			if err != nil {
				return nil, fail(filepath.Join(path, e.Name()), err)
			}
			if err := checkWritable(info); err != nil {
				return nil, fail(filepath.Join(path, e.Name()), err)
			}
			seen[e.Name()] = true
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fail(path, err)
	}
	parent := filepath.Dir(real)
	if err := checkParent(parent); err != nil {
		return nil, fail(path, err)
	}
	stage, err := newStaging(parent, filepath.Base(real))
	if err != nil {
		return nil, fail(path, err)
	}
	if err := os.Mkdir(filepath.Join(stage, "new"), 0o755); err != nil {
		live.Lock()
		dropStaging(stage)
		live.Unlock()
		return nil, fail(path, err)
	}
	return &Dir{path: path, real: real, stage: stage, seen: seen, wrote: map[string]bool{}}, nil
}

// Name returns the target path.
func (d *Dir) Name() string { return d.path }

// Within reports whether path names a file directly in the folder dir (by
// any of their names: links are followed), and its name there. A file
// that an option asks for inside an output folder is written with
// WriteFile, so that it is part of the folder committed.
func Within(dir, path string) (string, bool) {
	if path == "" || path == "-" || dir == "" {
		return "", false
	}
	path = filepath.Clean(path)
	in, err := canonical(filepath.Dir(path))
	if err != nil {
		return "", false
	}
	if want, err := canonical(dir); err != nil || in != want {
		return "", false
	}
	return filepath.Base(path), true
}

// canonical returns the absolute path that p names, its links resolved,
// where p or its parents may not exist yet.
func canonical(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r, nil
	}
	r, err := resolve(abs)
	if err != nil {
		return "", err
	}
	if r != abs {
		return canonical(r)
	}
	parent := filepath.Dir(abs)
	if parent == abs {
		return abs, nil
	}
	cp, err := canonical(parent)
	if err != nil {
		return "", err
	}
	return filepath.Join(cp, filepath.Base(abs)), nil
}

// WriteFile writes the file name of the new folder.
func (d *Dir) WriteFile(name string, data []byte) error {
	if d.done {
		return fmt.Errorf("%s: write after commit", filepath.Join(d.path, name))
	}
	f, err := os.OpenFile(filepath.Join(d.stage, "new", name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fail(filepath.Join(d.path, name), err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fail(filepath.Join(d.path, name), err)
	}
	d.mu.Lock()
	d.wrote[name] = true
	d.mu.Unlock()
	return nil
}

// DirFile is a file of the new folder being written (Dir.Create): Write
// to it, then Close, which syncs it to the disk.
type DirFile struct {
	f    *os.File
	path string // its name in the target, for errors
}

// Create starts writing the file name of the new folder, for output too
// large to hold in memory whole (WriteFile takes it all at once). The
// file is part of the folder committed once Close succeeds; until then a
// failed run leaves nothing of it (Abort removes the staging folder).
func (d *Dir) Create(name string) (*DirFile, error) {
	if d.done {
		return nil, fmt.Errorf("%s: write after commit", filepath.Join(d.path, name))
	}
	f, err := os.OpenFile(filepath.Join(d.stage, "new", name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fail(filepath.Join(d.path, name), err)
	}
	d.mu.Lock()
	d.wrote[name] = true
	d.mu.Unlock()
	return &DirFile{f: f, path: filepath.Join(d.path, name)}, nil
}

// Write writes p to the file.
func (f *DirFile) Write(p []byte) (int, error) {
	n, err := f.f.Write(p)
	if err != nil {
		err = fail(f.path, err)
	}
	return n, err
}

// Close syncs the file to the disk and closes it.
func (f *DirFile) Close() error {
	err := f.f.Sync()
	if cerr := f.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fail(f.path, err)
	}
	return nil
}

// Commit puts the new folder in place of the target. An existing target is
// first moved into the staging folder (if renaming the new one fails, it is
// put back). Of its files, those this run wrote anew and those it held
// when the run began (the tool's outputs of an earlier run, as CreateDir
// checked) go; any other file, which someone wrote into the folder while
// the tool ran, is moved into the new folder and listed in Kept: Commit
// never deletes a file the tool did not write.
func (d *Dir) Commit() error {
	if d.done {
		return fmt.Errorf("%s: already committed", d.path)
	}
	live.Lock()
	defer live.Unlock()
	if live.exiting {
		return fail(d.path, errExiting)
	}
	old := ""
	if st, err := os.Lstat(d.real); err == nil {
		if !st.IsDir() {
			return fail(d.path, errors.New("it was replaced by a file that is not a directory while this tool ran: not replacing it"))
		}
		old = filepath.Join(d.stage, "old")
		if err := os.Rename(d.real, old); err != nil {
			return fail(d.path, err)
		}
	}
	if err := os.Rename(filepath.Join(d.stage, "new"), d.real); err != nil {
		if old != "" {
			os.Rename(old, d.real)
		}
		return fail(d.path, err)
	}
	d.done = true
	var err error
	if old != "" {
		ents, rerr := os.ReadDir(old)
		if rerr != nil {
			err = fail(d.path, rerr)
		}
		for _, e := range ents {
			name := e.Name()
			if d.wrote[name] || d.seen[name] {
				continue
			}
			if merr := os.Rename(filepath.Join(old, name), filepath.Join(d.real, name)); merr != nil && err == nil {
				// Left where it is, with the staging folder kept, rather
				// than deleted.
				err = fmt.Errorf("cannot move %s back into %s: %v (it is in %s)", name, d.path, merr, old)
			}
			d.Kept = append(d.Kept, name)
		}
		slices.Sort(d.Kept)
	}
	if err != nil {
		delete(live.dirs, d.stage)
		return err
	}
	dropStaging(d.stage)
	syncDir(filepath.Dir(d.real))
	return nil
}

// Abort removes the staging folder unless committed.
func (d *Dir) Abort() {
	if d.done {
		return
	}
	d.done = true
	live.Lock()
	dropStaging(d.stage)
	live.Unlock()
}
