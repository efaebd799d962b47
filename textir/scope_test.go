package textir

import (
	"strings"
	"testing"
)

// An op's DefaultDialect lets its regions name that dialect's ops without
// the prefix (MLIR's OpAsmOpInterface::getDefaultDialect); only directly:
// an op nested in the region brings its own default.
func TestParseDefaultDialect(t *testing.T) {
	d := parserTestDialect()
	d.Ops[0].DefaultDialect = "ptest" // ptest.func
	ctx := NewContext(d)
	ctx.AllowUnregistered = true
	m, err := Parse(ctx, "t.mlir", []byte("ptest.func @f(%a: i32) -> i32 {\n  %s = add %a, %a : i32\n  ret %s : i32\n}\n"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	m.Walk(func(op *Operation) bool { names = append(names, op.Name()); return true })
	if got := strings.Join(names, " "); got != "builtin.module ptest.func ptest.add ptest.ret" {
		t.Errorf("ops: %s", got)
	}
	for _, src := range []string{
		"add",
		"ptest.func @g() {\n  \"x.region\"() ({\n    ret\n  }) : () -> ()\n  ret\n}\n",
	} {
		if _, err := Parse(ctx, "t.mlir", []byte(src)); err == nil || !strings.Contains(err.Error(), "is unknown") {
			t.Errorf("%q: %v, want an unknown op", src, err)
		}
	}
	// Without the default, a bare name is unknown in the function too.
	if _, err := Parse(parserTestCtx(), "t.mlir", []byte("ptest.func @f(%a: i32) -> i32 {\n  ret %a : i32\n}\n")); err == nil {
		t.Error("a bare name parsed without a default dialect")
	}
}

// A nested op printed alone is named as in its isolated ancestor unless
// LocalScope is set, when values from outside it are unknown.
func TestPrintLocalScope(t *testing.T) {
	m := parserTestParse(t, "ptest.func @f(%a: i32) -> i32 {\n  %x = ptest.add %a, %a : i32\n  %y = ptest.add %x, %a : i32\n  ptest.ret %y : i32\n}\n")
	fn := parserTestOps(m)[0]
	var second *Operation
	for o := range fn.Region(0).Front().Ops() {
		if o.Name() == "ptest.add" {
			second = o
		}
	}
	if got := OpString(second, PrintOptions{}); !strings.Contains(got, "<<UNKNOWN SSA VALUE>>") {
		t.Errorf("OpString is in local scope: %s", got)
	}
	var b strings.Builder
	Print(&b, second, PrintOptions{Generic: true})
	if got, want := b.String(), `%1 = "ptest.add"(%0, %arg0) : (i32, i32) -> i32`+"\n"; got != want {
		t.Errorf("module scope: %q, want %q", got, want)
	}
	b.Reset()
	Print(&b, second, PrintOptions{Generic: true, LocalScope: true})
	if got := b.String(); !strings.HasPrefix(got, `%0 = "ptest.add"(<<UNKNOWN SSA VALUE>>, <<UNKNOWN SSA VALUE>>)`) {
		t.Errorf("local scope: %q", got)
	}
	// An isolated op prints the same either way.
	var full, local strings.Builder
	Print(&full, fn, PrintOptions{})
	Print(&local, fn, PrintOptions{LocalScope: true})
	if full.String() != local.String() {
		t.Errorf("isolated op:\n%s\nvs\n%s", full.String(), local.String())
	}
}

// ElideLargeElements prints large non-splat dense attributes elided, as
// MLIR's --mlir-elide-elementsattrs-if-larger does.
func TestPrintElideElements(t *testing.T) {
	m := parserTestParse(t, `"a.x"() {big = dense<[1, 2, 3, 4]> : tensor<4xi32>, small = dense<[1, 2]> : tensor<2xi32>, splat = dense<7> : tensor<100xi32>, s = dense<["a", "b", "c"]> : tensor<3x!a.s>} : () -> ()`)
	var b strings.Builder
	Print(&b, m, PrintOptions{ElideLargeElements: true, ElideElementsLimit: 2})
	got := b.String()
	for _, want := range []string{
		"big = dense_resource<__elided__> : tensor<4xi32>",
		"small = dense<[1, 2]> : tensor<2xi32>",
		"splat = dense<7> : tensor<100xi32>",
		"s = dense_resource<__elided__> : tensor<3x!a.s>",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	b.Reset()
	Print(&b, m, PrintOptions{ElideLargeElements: true})
	if strings.Count(b.String(), "__elided__") != 3 {
		t.Errorf("limit 0 elides every non-splat:\n%s", b.String())
	}
}
