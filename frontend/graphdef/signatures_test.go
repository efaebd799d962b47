package graphdef

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
)

var update = flag.Bool("update", false, "rewrite testdata/signatures.golden from the built-in table")

// formatSig prints a signature on one line per part, every field spelled
// out, so that the golden file shows any change to the table.
func formatSig(s *OpSig) string {
	var b strings.Builder
	fmt.Fprintf(&b, "op %s (%s)\n", s.Name, s.Category)
	arg := func(kind string, a ArgSig) {
		fmt.Fprintf(&b, "  %s %s:", kind, a.Name)
		if a.Type != tfpb.DataType_DT_INVALID {
			fmt.Fprintf(&b, " type=%s", a.Type)
		}
		if a.TypeAttr != "" {
			fmt.Fprintf(&b, " type_attr=%s", a.TypeAttr)
		}
		if a.NumberAttr != "" {
			fmt.Fprintf(&b, " number_attr=%s", a.NumberAttr)
		}
		if a.TypeListAttr != "" {
			fmt.Fprintf(&b, " type_list_attr=%s", a.TypeListAttr)
		}
		if a.IsRef {
			b.WriteString(" ref")
		}
		b.WriteByte('\n')
	}
	for _, a := range s.Inputs {
		arg("in", a)
	}
	for _, a := range s.Outputs {
		arg("out", a)
	}
	for _, a := range s.Attrs {
		fmt.Fprintf(&b, "  attr %s: %s", a.Name, a.Kind)
		if len(a.Allowed) > 0 {
			fmt.Fprintf(&b, " allowed=%v", a.Allowed)
		}
		if a.Minimum != 0 {
			fmt.Fprintf(&b, " min=%d", a.Minimum)
		}
		if a.Default != nil {
			fmt.Fprintf(&b, " default=%s", formatDefault(a.Default))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// formatDefault prints the kinds of attr values the built-in table uses as
// defaults.
func formatDefault(v *tfpb.AttrValue) string {
	switch x := v.GetValue().(type) {
	case *tfpb.AttrValue_I:
		return fmt.Sprintf("i:%d", x.I)
	case *tfpb.AttrValue_F:
		return fmt.Sprintf("f:%g", x.F)
	case *tfpb.AttrValue_B:
		return fmt.Sprintf("b:%t", x.B)
	case *tfpb.AttrValue_S:
		return fmt.Sprintf("s:%q", x.S)
	case *tfpb.AttrValue_Type:
		return "type:" + x.Type.String()
	case *tfpb.AttrValue_Shape:
		return fmt.Sprintf("shape:{unknown_rank:%t dims:%d}", x.Shape.GetUnknownRank(), len(x.Shape.GetDim()))
	case *tfpb.AttrValue_List:
		return fmt.Sprintf("list:{%d types, %d ints, %d strings, %d shapes}", len(x.List.GetType()), len(x.List.GetI()), len(x.List.GetS()), len(x.List.GetShape()))
	}
	return fmt.Sprintf("%T", v.GetValue())
}

// TestSignaturesGolden pins every built-in signature (arguments, attrs
// with kinds, defaults, allowed types and minimums, categories) to
// testdata/signatures.golden; -update rewrites the file.
func TestSignaturesGolden(t *testing.T) {
	var b strings.Builder
	for _, s := range Signatures() {
		b.WriteString(formatSig(s))
	}
	path := filepath.Join("testdata", "signatures.golden")
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range max(len(gl), len(wl)) {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("signatures differ from %s at line %d:\n got: %s\nwant: %s\n(run go test -run TestSignaturesGolden -update after checking the change)", path, i+1, g, w)
			}
		}
	}
}
