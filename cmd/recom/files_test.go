package main

import (
	"bytes"
	"fmt"
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

// TestMain lets a test run this binary as the recom tool (RECOM_TEST_MAIN
// set): signals end a process, so they are tested on one of its own.
func TestMain(m *testing.M) {
	if os.Getenv("RECOM_TEST_MAIN") != "" {
		os.Args = append([]string{"recom"}, strings.Fields(os.Getenv("RECOM_TEST_MAIN"))...)
		main()
		return
	}
	os.Exit(m.Run())
}

// fifoModel makes a named pipe to stand for the model: the compile blocks
// reading it until feed writes the model into it.
func fifoModel(t *testing.T, dir string) (path string, feed func()) {
	t.Helper()
	path = filepath.Join(dir, "model.pbtxt")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("no named pipes: %v", err)
	}
	return path, func() {
		data, err := os.ReadFile(compileSmallModel)
		if err != nil {
			t.Error(err)
			return
		}
		os.WriteFile(path, data, 0o644)
	}
}

// waitFor polls until cond holds (or fails the test after 20 s).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for start := time.Now(); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Since(start) > 20*time.Second {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// staging returns the names in dir that are staging folders.
func staging(t *testing.T, dir string) []string {
	var out []string
	for _, n := range outfiletest.Names(t, dir) {
		if strings.HasPrefix(n, ".") && strings.Contains(n, ".tmp") {
			out = append(out, n)
		}
	}
	return out
}

// SIGINT or SIGTERM during recom compile removes the staging folder (it is
// 11–40 MB on real models), leaves the previous output folder as it was
// and ends with 130 or 143.
func TestCompileSignalRemovesStaging(t *testing.T) {
	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		t.Run(c.sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out")
			if status, _, stderr := runTool("compile", compileSmallModel, "-o", out, "--stop-after=import", "-q"); status != 0 {
				t.Fatal(stderr)
			}
			before := outfiletest.Names(t, out)
			model, _ := fifoModel(t, dir)
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "RECOM_TEST_MAIN=compile "+model+" -o "+out)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			waitFor(t, "the staging folder", func() bool { return len(staging(t, dir)) == 1 })
			cmd.Process.Signal(c.sig)
			cmd.Wait()
			if got := cmd.ProcessState.ExitCode(); got != c.code {
				t.Errorf("exit status %d, want %d; stderr %q", got, c.code, stderr.String())
			}
			if left := staging(t, dir); len(left) != 0 {
				t.Errorf("left behind: %v", left)
			}
			if got := outfiletest.Names(t, out); !slices.Equal(got, before) {
				t.Errorf("the output folder changed: %v, was %v", got, before)
			}
		})
	}
}

// A run killed outright (SIGKILL) leaves its staging folder; the next
// compile into the same folder removes it.
func TestCompileRemovesKilledRunsLeftovers(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	model, _ := fifoModel(t, dir)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "RECOM_TEST_MAIN=compile "+model+" -o "+out)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the staging folder and its marker", func() bool {
		s := staging(t, dir)
		if len(s) != 1 {
			return false
		}
		b, _ := os.ReadFile(filepath.Join(dir, s[0], ".recom-staging"))
		return strings.Contains(string(b), "target out\n")
	})
	cmd.Process.Kill()
	cmd.Wait()
	left := staging(t, dir)
	if len(left) != 1 {
		t.Fatalf("after SIGKILL: %v", left)
	}
	// The leftover must be older than the next run's process: this test's
	// process is older, so make the leftover older still.
	old := time.Now().Add(-time.Hour)
	os.Chtimes(filepath.Join(dir, left[0], ".recom-staging"), old, old)
	if status, _, stderr := runTool("compile", compileSmallModel, "-o", out, "--stop-after=import", "-q"); status != 0 {
		t.Fatal(stderr)
	}
	if left := staging(t, dir); len(left) != 0 {
		t.Errorf("the killed run's staging folder is still there: %v", left)
	}
}

// A file written into the output folder by someone else while recom
// compile runs is kept, with a warning; the commit used to delete it.
func TestCompileKeepsOthersFiles(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	if status, _, stderr := runTool("compile", compileSmallModel, "-o", out, "--stop-after=import", "-q"); status != 0 {
		t.Fatal(stderr)
	}
	model, feed := fifoModel(t, dir)
	done := make(chan [3]string)
	go func() {
		status, stdout, stderr := runTool("compile", model, "-o", out, "--stop-after=lower-emb", "-q")
		done <- [3]string{fmt.Sprint(status), stdout, stderr}
	}()
	waitFor(t, "the staging folder", func() bool { return len(staging(t, dir)) == 1 })
	os.WriteFile(filepath.Join(out, "notes.txt"), []byte("mine"), 0o644)
	feed()
	r := <-done
	if r[0] != "0" {
		t.Fatalf("status %s: %s", r[0], r[2])
	}
	if b, err := os.ReadFile(filepath.Join(out, "notes.txt")); string(b) != "mine" {
		t.Errorf("notes.txt: %q, %v", b, err)
	}
	if !strings.Contains(r[2], "warning: kept notes.txt in "+out) {
		t.Errorf("no warning: %q", r[2])
	}
	if got := outfiletest.Names(t, out); !slices.Equal(got, []string{"0-tfg.mlir", "1-emb.mlir", "notes.txt", "summary.txt"}) {
		t.Errorf("files: %v", got)
	}
}

// --dot FILE inside the output folder is written with the folder (it used
// to be written first and deleted with the old folder at the commit), and
// is the compile's own file on the next run; a dot file named like a stage
// file is refused.
func TestCompileDotInOutputFolder(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	dot := filepath.Join(out, "columns.dot")
	for range 2 {
		if status, _, stderr := runTool("compile", compileSmallModel, "-o", out, "--stop-after=fuse", "-q", "--dot", dot); status != 0 {
			t.Fatal(stderr)
		}
		if b, err := os.ReadFile(dot); err != nil || !bytes.HasPrefix(b, []byte("digraph recom {")) {
			t.Fatalf("dot file: %.40q, %v", b, err)
		}
	}
	status, _, stderr := runTool("compile", compileSmallModel, "-o", out, "--stop-after=fuse", "-q", "--dot", filepath.Join(out, "summary.txt"))
	if status == 0 || !strings.Contains(stderr, "summary.txt is a file recom compile writes") {
		t.Errorf("a dot file named summary.txt: status %d, %q", status, stderr)
	}
}
