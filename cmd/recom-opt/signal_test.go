package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/recom-compiler/recom/cmd/internal/outfile/outfiletest"
)

// TestMain lets a test run this binary as recom-opt (RECOM_OPT_TEST_MAIN
// set): signals end a process, so they are tested on one of its own.
func TestMain(m *testing.M) {
	if args := os.Getenv("RECOM_OPT_TEST_MAIN"); args != "" {
		os.Args = append([]string{"recom-opt"}, strings.Fields(args)...)
		main()
		return
	}
	os.Exit(m.Run())
}

// SIGINT or SIGTERM while recom-opt works on -o FILE removes the staged
// output, leaves FILE as it was and ends with 130 or 143. The input is a
// named pipe nobody writes, so the run waits with its output staged.
func TestSignalRemovesStagedOutput(t *testing.T) {
	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		t.Run(c.sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			in := filepath.Join(dir, "in.mlir")
			if err := syscall.Mkfifo(in, 0o644); err != nil {
				t.Skipf("no named pipes: %v", err)
			}
			out := filepath.Join(dir, "out.mlir")
			os.WriteFile(out, []byte("old"), 0o644)
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "RECOM_OPT_TEST_MAIN="+in+" -o "+out)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			for start := time.Now(); len(outfiletest.Names(t, dir)) != 3; time.Sleep(5 * time.Millisecond) {
				if time.Since(start) > 20*time.Second {
					t.Fatalf("no staged output: %v", outfiletest.Names(t, dir))
				}
			}
			cmd.Process.Signal(c.sig)
			cmd.Wait()
			if got := cmd.ProcessState.ExitCode(); got != c.code {
				t.Errorf("exit status %d, want %d; stderr %q", got, c.code, stderr.String())
			}
			if names := outfiletest.Names(t, dir); len(names) != 2 {
				t.Errorf("left behind: %v", names)
			}
			if b, _ := os.ReadFile(out); string(b) != "old" {
				t.Errorf("the output became %q", b)
			}
		})
	}
}
