package toolflag

import (
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func TestDoubleDash(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.StringP("output", "o", "-", "")
	fs.Bool("split-input-file", false, "")
	fs.String("pass-pipeline", "", "")
	fs.String("canonicalize", "", "")
	fs.Lookup("canonicalize").NoOptDefVal = "''"
	for _, c := range []struct{ in, want []string }{
		{[]string{"-split-input-file", "-o", "x.mlir", "in.mlir"}, []string{"--split-input-file", "-o", "x.mlir", "in.mlir"}},
		{[]string{"-pass-pipeline=builtin.module(cse)"}, []string{"--pass-pipeline=builtin.module(cse)"}},
		{[]string{"-pass-pipeline", "-split-input-file"}, []string{"--pass-pipeline", "-split-input-file"}},
		{[]string{"-o", "-split-input-file"}, []string{"-o", "-split-input-file"}},
		{[]string{"--output", "-split-input-file", "-split-input-file"}, []string{"--output", "-split-input-file", "--split-input-file"}},
		{[]string{"-ofile.mlir", "-"}, []string{"-ofile.mlir", "-"}},
		{[]string{"-canonicalize", "-split-input-file"}, []string{"--canonicalize", "--split-input-file"}},
		{[]string{"-help"}, []string{"--help"}},
		{[]string{"-version"}, []string{"--version"}},
		{[]string{"-no-such-flag"}, []string{"--no-such-flag"}},
		{[]string{"--", "-split-input-file"}, []string{"--", "-split-input-file"}},
	} {
		if got := DoubleDash(fs, c.in); !slices.Equal(got, c.want) {
			t.Errorf("DoubleDash(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestVersion(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "github.com/recom-compiler/recom", Version: "(devel)"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
			{Key: "vcs.time", Value: "2026-12-03T08:00:00Z"}, {Key: "vcs.modified", Value: "true"},
			{Key: "GOOS", Value: "linux"}, {Key: "GOARCH", Value: "amd64"}}}
	want := "recom-opt (github.com/recom-compiler/recom) version (devel)\n" +
		"  revision 0123456789abcdef0123456789abcdef01234567 (2026-12-03T08:00:00Z), with uncommitted changes\n" +
		"  built with go1.26.0 for linux/amd64\n"
	if got := versionText("recom-opt", bi); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	bi.Settings = nil
	if got := versionText("recom", bi); !strings.Contains(got, "revision unknown") {
		t.Errorf("without VCS stamping:\n%s", got)
	}
	Revision = "fedcba9876543210fedcba9876543210fedcba98"
	defer func() { Revision = "" }()
	if got := versionText("recom", bi); !strings.Contains(got, "  revision fedcba9876543210fedcba9876543210fedcba98 (stamped by the build script)\n") {
		t.Errorf("stamped by -ldflags -X only:\n%s", got)
	}
	Revision = ""
	if got := versionText("recom", nil); !strings.HasPrefix(got, "recom (github.com/recom-compiler/recom) version (unknown)\n") {
		t.Errorf("without build info:\n%s", got)
	}
}

// FuzzDoubleDash checks that the rewriting keeps the arguments' count and
// order, changes an argument only by adding one leading dash, and gives
// arguments it no longer changes (it is idempotent).
func FuzzDoubleDash(f *testing.F) {
	f.Add("-split-input-file -o -x.mlir in.mlir")
	f.Add("--pass-pipeline -cse -- -verify-diagnostics")
	f.Add("-ofile - -= --= -o")
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.StringP("output", "o", "-", "")
	fs.Bool("split-input-file", false, "")
	fs.String("pass-pipeline", "", "")
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Fields(line)
		got := DoubleDash(fs, args)
		if len(got) != len(args) {
			t.Fatalf("%q -> %q", args, got)
		}
		for i := range args {
			if got[i] != args[i] && got[i] != "-"+args[i] {
				t.Fatalf("%q -> %q", args[i], got[i])
			}
		}
		if again := DoubleDash(fs, got); !slices.Equal(again, got) {
			t.Fatalf("not idempotent: %q -> %q -> %q", args, got, again)
		}
	})
}
