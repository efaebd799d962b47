package passflag

import (
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func TestOrder(t *testing.T) {
	tests := []struct {
		args []string
		want []Arg
		pos  []string
	}{
		{[]string{"--cse", "--canonicalize", "--cse"}, []Arg{{"cse", ""}, {"canonicalize", ""}, {"cse", ""}}, nil},
		{[]string{"in.mlir", "--lower-emb=opt=1 flag", "--cse"}, []Arg{{"lower-emb", "opt=1 flag"}, {"cse", ""}}, []string{"in.mlir"}},
		{[]string{"--cse=", "-"}, []Arg{{"cse", ""}}, []string{"-"}},
		{[]string{"--verbose", "--canonicalize=max-iterations=3"}, []Arg{{"canonicalize", "max-iterations=3"}}, nil},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
			fs.Bool("verbose", false, "")
			var l List
			l.Define(fs, []Pass{{Flag: "cse"}, {Flag: "canonicalize"}, {Flag: "lower-emb"}})
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(l.Args, tc.want) {
				t.Errorf("args = %v, want %v", l.Args, tc.want)
			}
			if !reflect.DeepEqual(fs.Args(), tc.pos) && !(len(fs.Args()) == 0 && tc.pos == nil) {
				t.Errorf("positional = %q, want %q", fs.Args(), tc.pos)
			}
		})
	}
}

func TestPrintHelp(t *testing.T) {
	var l List
	l.Define(pflag.NewFlagSet("t", pflag.ContinueOnError), []Pass{
		{Flag: "cse", Summary: "Eliminate common sub-expressions"},
		{Flag: "canonicalize", Summary: "Canonicalize operations", Options: []Option{{Name: "max-iterations", Kind: "int", Desc: "Rounds", Default: "10"}}},
	})
	var b strings.Builder
	l.PrintHelp(&b)
	for _, want := range []string{"Passes:\n", "  --cse           Eliminate common sub-expressions\n", "max-iterations=<int>  Rounds (default 10)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("help lacks %q:\n%s", want, b.String())
		}
	}
}
