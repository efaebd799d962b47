package passflag

import (
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/recom-compiler/recom/lowering/pass"
	"github.com/recom-compiler/recom/textir"
)

// fakePass is the runner of the passes of the flag tests; it never runs.
type fakePass struct{}

func (fakePass) Run(*textir.Operation, *pass.State) error { return nil }

func info(flag string) *pass.Decl {
	d := &pass.Decl{Flag: flag, Summary: "summary of " + flag, New: func(o *pass.Options) pass.Runner {
		if flag == "canonicalize" {
			o.Int("max-iterations")
		}
		return fakePass{}
	}}
	if flag == "canonicalize" {
		d.Options = []pass.OptDecl{{Name: "max-iterations", Kind: pass.IntOption, Default: 10, Help: "Rounds"}}
	}
	return d
}

func TestOrder(t *testing.T) {
	tests := []struct {
		args []string
		want []pass.PassSpec
		pos  []string
	}{
		{[]string{"--cse", "--canonicalize", "--cse"}, []pass.PassSpec{{Flag: "cse"}, {Flag: "canonicalize"}, {Flag: "cse"}}, nil},
		{[]string{"in.mlir", "--lower-emb=opt=1 flag", "--cse"}, []pass.PassSpec{{Flag: "lower-emb", Options: "opt=1 flag"}, {Flag: "cse"}}, []string{"in.mlir"}},
		{[]string{"--cse=", "-"}, []pass.PassSpec{{Flag: "cse"}}, []string{"-"}},
		{[]string{"--verbose", "--canonicalize=max-iterations=3"}, []pass.PassSpec{{Flag: "canonicalize", Options: "max-iterations=3"}}, nil},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
			fs.Bool("verbose", false, "")
			var l List
			l.Define(fs, []*pass.Decl{info("cse"), info("canonicalize"), info("lower-emb")})
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(l.Specs, tc.want) {
				t.Errorf("specs = %v, want %v", l.Specs, tc.want)
			}
			if len(fs.Args()) != len(tc.pos) || (len(tc.pos) > 0 && !reflect.DeepEqual(fs.Args(), tc.pos)) {
				t.Errorf("positional = %q, want %q", fs.Args(), tc.pos)
			}
		})
	}
}

func TestPrintHelp(t *testing.T) {
	var l List
	l.Define(pflag.NewFlagSet("t", pflag.ContinueOnError), []*pass.Decl{info("cse"), info("canonicalize")})
	var b strings.Builder
	l.PrintHelp(&b)
	for _, want := range []string{"Passes:\n", "  --cse           summary of cse\n", "max-iterations=<int>  Rounds (default 10)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("help lacks %q:\n%s", want, b.String())
		}
	}
}
