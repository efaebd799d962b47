package outfile

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/recom-compiler/recom/cmd/internal/outfile/outfiletest"
)

func TestCommit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.mlir")
	f, err := Create(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Abort()
	f.WriteString("module {\n}\n")
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("target exists before commit: %v", err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "module {\n}\n" {
		t.Fatalf("read %q, %v", got, err)
	}
	if names := outfiletest.Names(t, dir); len(names) != 1 {
		t.Fatalf("directory holds %v, want only out.mlir", names)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
}

func TestAbortLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	f, err := Create(filepath.Join(dir, "out.mlir"), nil)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("partial")
	f.Abort()
	if names := outfiletest.Names(t, dir); len(names) != 0 {
		t.Fatalf("directory holds %v after abort", names)
	}
}

func TestAbortKeepsOldContents(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.mlir")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := Create(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("new")
	f.Abort()
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Fatalf("target = %q after abort, want old", got)
	}
	f, _ = Create(path, nil)
	f.WriteString("new")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	if got, _ := os.ReadFile(path); string(got) != "new" || st.Mode().Perm() != 0o600 {
		t.Fatalf("target = %q mode %v, want new with the old mode 0600", got, st.Mode().Perm())
	}
}

func TestStdout(t *testing.T) {
	var buf bytes.Buffer
	f, err := Create("-", &buf)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("text")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if buf.String() != "text" {
		t.Fatalf("stdout = %q", buf.String())
	}
	f.Abort() // no effect after commit
}

func TestCreateErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Create(filepath.Join(dir, "missing", "out.mlir"), nil); err == nil {
		t.Error("no error for a missing directory")
	}
	if _, err := Create(dir, nil); err == nil {
		t.Error("no error for a directory target")
	}
}

func TestDevice(t *testing.T) {
	f, err := Create(os.DevNull, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("discarded")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(os.DevNull); err != nil {
		t.Fatalf("%s is gone: %v", os.DevNull, err)
	}
}

// TestMain lets a test run this binary as a tool that is killed while it
// writes (see TestSignalRemovesStaging).
func TestMain(m *testing.M) {
	if os.Getenv("OUTFILE_TEST_CHILD") != "" {
		childMain()
		return
	}
	os.Exit(m.Run())
}

// childMain stages an output file and an output folder in the folder
// $OUTFILE_TEST_CHILD, says "ready", and waits to be signalled.
func childMain() {
	dir := os.Getenv("OUTFILE_TEST_CHILD")
	_, stop := HandleSignals(context.Background(), "child", os.Stderr)
	defer stop()
	f, err := Create(filepath.Join(dir, "out.mlir"), nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	f.WriteString("partial")
	d, err := CreateDir(filepath.Join(dir, "outdir"), func(string) bool { return true })
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	d.WriteFile("a.txt", []byte("partial"))
	fmt.Println("ready")
	time.Sleep(time.Minute)
	os.Exit(4)
}

// SIGINT and SIGTERM remove the staging folders of a run and end it with
// 128 + the signal (130, 143).
func TestSignalRemovesStaging(t *testing.T) {
	for _, c := range []struct {
		sig  syscall.Signal
		code int
		name string
	}{{syscall.SIGINT, 130, "SIGINT"}, {syscall.SIGTERM, 143, "SIGTERM"}} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "OUTFILE_TEST_CHILD="+dir)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line, _ := bufio.NewReader(stdout).ReadString('\n')
			if line != "ready\n" {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("child said %q: %s", line, stderr.String())
			}
			if n := len(outfiletest.Names(t, dir)); n != 2 {
				t.Errorf("%d staging folders while writing, want 2", n)
			}
			cmd.Process.Signal(c.sig)
			cmd.Wait()
			if got := cmd.ProcessState.ExitCode(); got != c.code {
				t.Errorf("exit status %d, want %d; stderr %q", got, c.code, stderr.String())
			}
			if !strings.Contains(stderr.String(), "interrupted by "+c.name) {
				t.Errorf("stderr %q does not say it was interrupted", stderr.String())
			}
			if names := outfiletest.Names(t, dir); len(names) != 0 {
				t.Errorf("left behind: %v", names)
			}
		})
	}
}

// A run killed outright (SIGKILL) leaves its staging folder; the next run
// writing into the folder removes it, and only it: not a staging folder of
// a process that still runs, nor one without recom's marker, nor one of
// another host, nor a file that merely looks like one.
func TestSweepLeftovers(t *testing.T) {
	dir := t.TempDir()
	dead := deadPID(t)
	host, _ := os.Hostname()
	old := time.Now().Add(-time.Hour)
	leftover := func(name, target string, pid int, host string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Join(p, "new"), 0o755); err != nil {
			t.Fatal(err)
		}
		m := filepath.Join(p, markerName)
		os.WriteFile(m, fmt.Appendf(nil, "%s\npid %d\nhost %s\ntarget %s\n", markerMagic, pid, host, target), 0o600)
		os.Chtimes(m, old, old)
		return p
	}
	killed := leftover(".out.mlir.tmp123", "out.mlir", dead, host)
	os.WriteFile(filepath.Join(killed, "out.mlir"), make([]byte, 1<<20), 0o600)
	killedDir := leftover(".res.tmp9", "res", dead, host)
	running := leftover(".b.mlir.tmp7", "b.mlir", os.Getppid(), host)
	elsewhere := leftover(".c.mlir.tmp8", "c.mlir", dead, host+"-other")
	unmarked := filepath.Join(dir, ".d.mlir.tmp5")
	os.Mkdir(unmarked, 0o755)
	lookalike := filepath.Join(dir, ".e.mlir.tmp6")
	os.WriteFile(lookalike, []byte("mine"), 0o644)
	// A killed commit of an output folder had moved the old one aside:
	// the sweep puts it back.
	moved := leftover(".kept.tmp1", "kept", dead, host)
	os.Mkdir(filepath.Join(moved, "old"), 0o755)
	os.WriteFile(filepath.Join(moved, "old", "result.txt"), []byte("previous"), 0o644)

	f, err := Create(filepath.Join(dir, "new.mlir"), nil)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("x")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{killed, killedDir, moved} {
		if _, err := os.Lstat(gone); !os.IsNotExist(err) {
			t.Errorf("%s was not removed", filepath.Base(gone))
		}
	}
	for _, kept := range []string{running, elsewhere, unmarked, lookalike} {
		if _, err := os.Lstat(kept); err != nil {
			t.Errorf("%s was removed", filepath.Base(kept))
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "kept", "result.txt")); string(b) != "previous" {
		t.Errorf("the folder a killed commit moved aside was not put back: %q, %v", b, err)
	}
}

// deadPID returns the process id of a process that has ended.
func deadPID(t *testing.T) int {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// -o onto a symbolic link writes the file the link leads to (staged beside
// it) and leaves the link a link; a dangling link makes its target.
func TestSymlinkWrittenThrough(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "real"), 0o755)
	target := filepath.Join(dir, "real", "t.mlir")
	os.WriteFile(target, []byte("old"), 0o640)
	link := filepath.Join(dir, "link.mlir")
	if err := os.Symlink(filepath.Join("real", "t.mlir"), link); err != nil {
		t.Fatal(err)
	}
	chain := filepath.Join(dir, "chain.mlir")
	os.Symlink("link.mlir", chain)
	dangling := filepath.Join(dir, "dangling.mlir")
	os.Symlink(filepath.Join("real", "new.mlir"), dangling)
	for _, c := range []struct{ path, real, text string }{
		{link, target, "one"},
		{chain, target, "two"},
		{dangling, filepath.Join(dir, "real", "new.mlir"), "three"},
	} {
		f, err := Create(c.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(c.text)
		if err := f.Commit(); err != nil {
			t.Fatal(err)
		}
		if st, err := os.Lstat(c.path); err != nil || st.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("%s is no longer a link", c.path)
		}
		if b, _ := os.ReadFile(c.real); string(b) != c.text {
			t.Errorf("%s: target holds %q, want %q", c.path, b, c.text)
		}
	}
	if st, _ := os.Stat(target); st.Mode().Perm() != 0o640 {
		t.Errorf("the target's mode became %v", st.Mode().Perm())
	}
	if names := outfiletest.Names(t, filepath.Join(dir, "real")); !slices.Equal(names, []string{"new.mlir", "t.mlir"}) {
		t.Errorf("beside the target: %v", names)
	}
	// A loop of links is an error naming the output.
	loop := filepath.Join(dir, "loop")
	os.Symlink("loop", loop)
	if _, err := Create(loop, nil); err == nil || !strings.Contains(err.Error(), loop) {
		t.Errorf("a link loop: %v", err)
	}
}

// Every error names the output and says what is wrong in words: no staged
// file's name, no bare "rename" or "open".
func TestErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	ro := filepath.Join(dir, "ro.mlir")
	os.WriteFile(ro, []byte("keep"), 0o444)
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	roDir := filepath.Join(dir, "rodir")
	os.Mkdir(roDir, 0o755)
	for _, c := range []struct{ path, want string }{
		{"", "the output file name is empty"},
		{dir, "cannot write " + dir + ": it is a directory"},
		{filepath.Join(dir, "missing", "x.mlir"), "cannot write " + filepath.Join(dir, "missing", "x.mlir") + ": the directory " + filepath.Join(dir, "missing") + " does not exist"},
		{filepath.Join(file, "x.mlir"), "cannot write " + filepath.Join(file, "x.mlir") + ": " + file + " is not a directory"},
		{ro, "cannot write " + ro + ": it is read-only (mode 0444): not replacing it"},
		{filepath.Join(dir, "nodir") + "/", "ends in a slash"},
	} {
		_, err := Create(c.path, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), ".tmp") {
			t.Errorf("Create(%q): %v, want %q", c.path, err, c.want)
		}
	}
	if b, _ := os.ReadFile(ro); string(b) != "keep" {
		t.Errorf("the read-only file became %q", b)
	}
	if names := outfiletest.Names(t, dir); !slices.Equal(names, []string{"file", "ro.mlir", "rodir"}) {
		t.Errorf("left behind: %v", names)
	}
	// A read-only folder (as a user who is not root finds it).
	if os.Geteuid() != 0 {
		os.Chmod(roDir, 0o555)
		defer os.Chmod(roDir, 0o755)
		out := filepath.Join(roDir, "x.mlir")
		if _, err := Create(out, nil); err == nil || !strings.Contains(err.Error(), "cannot write "+out+": permission denied") {
			t.Errorf("read-only folder: %v", err)
		}
	}
}
