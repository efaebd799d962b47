// Package toolflag holds what the command-line tools share about their
// flags beyond pflag: MLIR's single-dash long flags and the --version text.
package toolflag

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/pflag"
)

// DoubleDash rewrites the single-dash long flags of args into pflag's
// double-dash form, as LLVM's command-line library (and so mlir-opt) takes
// both: an argument "-name" or "-name=value" whose name is a long flag of
// fs (or help or version) becomes "--name" or "--name=value", so that RUN
// lines written for mlir-opt (-split-input-file, -verify-diagnostics,
// -pass-pipeline=...) work unchanged. Everything else is left as it is:
// one-letter flags and their attached values ("-o", "-ofile.mlir"), "-"
// (standard input), the value after a flag that takes one ("-o -cse.mlir"
// writes the file -cse.mlir), and every argument after "--". A single-dash
// word that is neither becomes "--word" too, so that pflag reports an
// unknown flag by its name rather than by its first letter.
func DoubleDash(fs *pflag.FlagSet, args []string) []string {
	out := make([]string, 0, len(args))
	value := false // the argument is the value of the flag before it
	for i, a := range args {
		if value {
			value = false
			out = append(out, a)
			continue
		}
		if a == "--" {
			return append(out, args[i:]...)
		}
		switch {
		case strings.HasPrefix(a, "--"):
			name, _, hasValue := strings.Cut(a[2:], "=")
			value = !hasValue && takesValue(fs.Lookup(name))
		case len(a) > 2 && a[0] == '-':
			name, _, hasValue := strings.Cut(a[1:], "=")
			if f := fs.Lookup(name); f != nil || name == "help" || name == "version" {
				a = "-" + a
				value = !hasValue && takesValue(f)
			} else if fs.ShorthandLookup(a[1:2]) == nil {
				// Not a one-letter flag with its value either: an
				// unknown long flag, reported as one.
				a = "-" + a
			}
		case len(a) == 2 && a[0] == '-':
			value = takesValue(fs.ShorthandLookup(a[1:]))
		}
		out = append(out, a)
	}
	return out
}

// takesValue reports whether f reads the next argument as its value.
func takesValue(f *pflag.Flag) bool {
	return f != nil && f.NoOptDefVal == ""
}

// Revision is the VCS revision the scripts stamp into the tools when they
// build them (go build -ldflags "-X
// github.com/recom-compiler/recom/cmd/internal/toolflag.Revision=$(git
// rev-parse HEAD)"), for builds where Go's own VCS stamping is off
// (GOFLAGS=-buildvcs=false) or impossible (no .git). Go's stamp wins when
// both are there.
var Revision string

// Version is the text of --version: the tool, the module's version, the
// VCS revision it was built from (runtime/debug.ReadBuildInfo; Go stamps it
// when a binary is built in a git checkout), and the Go toolchain.
func Version(tool string) string {
	bi, _ := debug.ReadBuildInfo()
	return versionText(tool, bi)
}

func versionText(tool string, bi *debug.BuildInfo) string {
	var b strings.Builder
	mod, ver := "github.com/recom-compiler/recom", "(unknown)"
	settings := map[string]string{}
	goVersion := runtime.Version()
	if bi != nil {
		if bi.Main.Path != "" {
			mod = bi.Main.Path
		}
		if bi.Main.Version != "" {
			ver = bi.Main.Version
		}
		for _, s := range bi.Settings {
			settings[s.Key] = s.Value
		}
		if bi.GoVersion != "" {
			goVersion = bi.GoVersion
		}
	}
	fmt.Fprintf(&b, "%s (%s) version %s\n", tool, mod, ver)
	if rev := settings["vcs.revision"]; rev != "" {
		fmt.Fprintf(&b, "  revision %s", rev)
		if t := settings["vcs.time"]; t != "" {
			fmt.Fprintf(&b, " (%s)", t)
		}
		if settings["vcs.modified"] == "true" {
			b.WriteString(", with uncommitted changes")
		}
		b.WriteByte('\n')
	} else if Revision != "" {
		fmt.Fprintf(&b, "  revision %s (stamped by the build script)\n", Revision)
	} else {
		b.WriteString("  revision unknown (built without VCS stamping: go build -buildvcs=true in a git checkout, or scripts/test.sh and scripts/run-example.sh, record it)\n")
	}
	goos, goarch := runtime.GOOS, runtime.GOARCH
	if v := settings["GOOS"]; v != "" {
		goos = v
	}
	if v := settings["GOARCH"]; v != "" {
		goarch = v
	}
	fmt.Fprintf(&b, "  built with %s for %s/%s\n", goVersion, goos, goarch)
	return b.String()
}
