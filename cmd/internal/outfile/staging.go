package outfile

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// A staging folder is where an output is written until it is committed:
// .BASE.tmpNNN beside the target, holding a marker file that says which
// process made it, and the output (a file named BASE, or a folder new/).
// Committing renames the output over the target and removes the folder.
//
// Staging folders are removed by Abort, by the signal handler
// (HandleSignals) and, after a run that was killed outright (SIGKILL, a
// crash of the machine), by the next run that writes into the same folder:
// Create and CreateDir sweep their folder for staging folders whose marker
// names a process of this host that no longer runs and that are older than
// the current process.

// markerName is the marker file in every staging folder.
const markerName = ".recom-staging"

// markerMagic is the first line of a marker.
const markerMagic = "recom staging folder"

// started is when this process started (near enough: when the package was
// initialised). A leftover must be older.
var started = time.Now()

// live holds the staging folders of this process not yet committed or
// removed; the signal handler removes them. exiting is set, under the lock,
// by the handler: no staging folder is made and no commit runs after it.
var live struct {
	sync.Mutex
	dirs    map[string]bool
	exiting bool
}

// errExiting is returned when a staging folder is asked for while the
// process is ending on a signal.
var errExiting = errors.New("the process is ending on a signal")

// newStaging makes a staging folder in parent for the target named base
// and registers it.
func newStaging(parent, base string) (string, error) {
	sweep(parent)
	live.Lock()
	defer live.Unlock()
	if live.exiting {
		return "", errExiting
	}
	dir, err := os.MkdirTemp(parent, "."+base+".tmp*")
	if err != nil {
		return "", err
	}
	host, _ := os.Hostname()
	marker := fmt.Sprintf("%s\npid %d\nhost %s\ntarget %s\n", markerMagic, os.Getpid(), host, base)
	if err := os.WriteFile(filepath.Join(dir, markerName), []byte(marker), 0o600); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	if live.dirs == nil {
		live.dirs = map[string]bool{}
	}
	live.dirs[dir] = true
	return dir, nil
}

// dropStaging removes a staging folder and forgets it. The caller holds
// live's lock.
func dropStaging(dir string) {
	os.RemoveAll(dir)
	delete(live.dirs, dir)
}

// marker is what a staging folder's marker file says.
type marker struct {
	pid          int
	host, target string
}

// readMarker reads the marker of the staging folder dir: ok is false when
// dir is not a staging folder of recom's (no marker, or not ours). mod is
// the marker's modification time.
func readMarker(dir string) (m marker, mod time.Time, ok bool) {
	path := filepath.Join(dir, markerName)
	st, err := os.Lstat(path)
	if err != nil || !st.Mode().IsRegular() || st.Size() > 4096 {
		return m, mod, false
	}
	f, err := os.Open(path)
	if err != nil {
		return m, mod, false
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, 4096))
	if !sc.Scan() || sc.Text() != markerMagic {
		return m, mod, false
	}
	for sc.Scan() {
		key, val, _ := strings.Cut(sc.Text(), " ")
		switch key {
		case "pid":
			m.pid, _ = strconv.Atoi(val)
		case "host":
			m.host = val
		case "target":
			m.target = val
		}
	}
	return m, st.ModTime(), m.pid > 0 && m.target != ""
}

// sweep removes from parent the staging folders that runs killed outright
// left behind: folders named .BASE.tmp* holding a marker that names a
// process of this host that runs no more, and older than this process. A
// folder's old/ (an output folder a killed commit had moved aside) is put
// back first: where its target is missing it becomes the target again,
// otherwise what it holds that the target lacks is moved into the target,
// so that a sweep never deletes an output. Errors are ignored: a leftover
// that cannot be removed stays, as it would have without the sweep.
func sweep(parent string) {
	ents, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	host, _ := os.Hostname()
	for _, e := range ents {
		name := e.Name()
		if !e.IsDir() || !strings.HasPrefix(name, ".") || !strings.Contains(name, ".tmp") {
			continue
		}
		dir := filepath.Join(parent, name)
		m, mod, ok := readMarker(dir)
		if !ok || m.host != host || m.pid == os.Getpid() || running(m.pid) || !mod.Before(started) {
			continue
		}
		if !strings.HasPrefix(name, "."+m.target+".tmp") || strings.ContainsAny(m.target, `/\`) {
			continue
		}
		restoreOld(filepath.Join(dir, "old"), filepath.Join(parent, m.target))
		os.RemoveAll(dir)
	}
}

// restoreOld puts back an output folder that a killed commit moved aside.
func restoreOld(old, target string) {
	if _, err := os.Lstat(old); err != nil {
		return
	}
	if _, err := os.Lstat(target); errors.Is(err, fs.ErrNotExist) {
		os.Rename(old, target)
		return
	}
	ents, err := os.ReadDir(old)
	if err != nil {
		return
	}
	for _, e := range ents {
		to := filepath.Join(target, e.Name())
		if _, err := os.Lstat(to); errors.Is(err, fs.ErrNotExist) {
			os.Rename(filepath.Join(old, e.Name()), to)
		}
	}
}

// running reports whether the process pid runs on this host (a process of
// another user counts).
func running(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// RemoveStaging removes every staging folder of this process that is not
// committed yet, and makes every later Create, CreateDir and Commit fail.
// It is what the signal handler does before the process ends; a tool that
// ends in another abrupt way may call it too.
func RemoveStaging() {
	live.Lock()
	defer live.Unlock()
	live.exiting = true
	for dir := range live.dirs {
		dropStaging(dir)
	}
}

// HandleSignals makes SIGINT and SIGTERM end the tool cleanly: the
// returned context is cancelled, every staging folder not yet committed is
// removed (a commit under way finishes first), a line saying so goes to
// stderr, and the process exits with 128 + the signal's number (130 for
// SIGINT, 143 for SIGTERM), as a shell reports a process killed by it.
// Without this, the signal would kill the process and leave its staging
// folders behind. stop undoes it.
func HandleSignals(parent context.Context, tool string, stderr io.Writer) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case sig := <-ch:
				if h := graceful.Load(); h != nil && graceful.CompareAndSwap(h, nil) {
					// A server drains its requests; a second signal
					// still ends the tool at once.
					(*h)(sig)
					continue
				}
				exitOn(sig, cancel, tool, stderr)
			case <-done:
				return
			}
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel()
	}
}

// graceful is the handler HandleGracefully installed, or nil.
var graceful atomic.Pointer[func(os.Signal)]

// HandleGracefully makes the next SIGINT or SIGTERM call h instead of
// ending the tool (a server then finishes its requests and returns); a
// later signal ends it as HandleSignals does. restore removes h when it
// was not called.
func HandleGracefully(h func(os.Signal)) (restore func()) {
	p := &h
	graceful.Store(p)
	return func() { graceful.CompareAndSwap(p, nil) }
}

// exitOn ends the tool for sig, as HandleSignals says.
func exitOn(sig os.Signal, cancel context.CancelFunc, tool string, stderr io.Writer) {
	cancel()
	RemoveStaging()
	num := 2
	if s, ok := sig.(syscall.Signal); ok {
		num = int(s)
	}
	fmt.Fprintf(stderr, "%s: interrupted by %s: unfinished outputs removed\n", tool, signalName(sig))
	os.Exit(128 + num)
}

// signalName is SIGINT or SIGTERM.
func signalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return sig.String()
}
