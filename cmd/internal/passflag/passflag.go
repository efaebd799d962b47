// Package passflag turns every registered pass into its own command-line
// flag (--cse, --lower-emb='opt=1 flag') whose occurrences are collected, in
// command-line order, into one list: `--cse --canonicalize --cse` runs three
// passes. pflag keeps no order across flags, so each flag's Value appends to
// the shared list.
package passflag

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/recom-compiler/recom/lowering/pass"
)

// List is the ordered list of pass flags seen on a command line.
type List struct {
	// Specs are the pass flags in command-line order, ready for
	// pass.FromSpecs.
	Specs  []pass.PassSpec
	passes []*pass.Decl
}

// bare is the value pflag passes for a flag given without "=": a string no
// one types.
const bare = "\x00"

type value struct {
	flag string
	list *List
}

func (v *value) String() string { return "" }
func (v *value) Type() string   { return "options" }
func (v *value) Set(s string) error {
	if s == bare {
		s = ""
	}
	v.list.Specs = append(v.list.Specs, pass.PassSpec{Flag: v.flag, Options: strings.TrimSpace(s)})
	return nil
}

// Define adds one flag per pass to fs; their occurrences append to l.Specs.
func (l *List) Define(fs *pflag.FlagSet, passes []*pass.Decl) {
	for _, p := range passes {
		fs.Var(&value{flag: p.Flag, list: l}, p.Flag, p.Summary)
		fs.Lookup(p.Flag).NoOptDefVal = bare
		l.passes = append(l.passes, p)
	}
}

// PrintHelp writes the "Passes:" section of --help from the passes'
// declarations: each pass flag with its summary, and its options below it.
func (l *List) PrintHelp(w io.Writer) {
	if len(l.passes) == 0 {
		return
	}
	width := 0
	for _, p := range l.passes {
		width = max(width, len(p.Flag))
	}
	fmt.Fprintln(w, "Passes:")
	for _, p := range l.passes {
		fmt.Fprintf(w, "  --%-*s  %s\n", width, p.Flag, p.Summary)
		for _, o := range p.OptionList() {
			def := ""
			if d := o.DefaultText(); d != "" {
				def = " (default " + d + ")"
			}
			fmt.Fprintf(w, "  %*s      %s=<%s>  %s%s\n", width, "", o.Name, o.Kind, o.Help, def)
		}
	}
}
