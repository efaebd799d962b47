package gpu_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/dialects/arith"
	"github.com/recom-compiler/recom/dialects/builtin"
	"github.com/recom-compiler/recom/dialects/funcd"
	"github.com/recom-compiler/recom/dialects/gpu"
	"github.com/recom-compiler/recom/lowering/rewrite"
	"github.com/recom-compiler/recom/textir"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

func newCtx() *textir.Context {
	return textir.NewContext(builtin.Dialect(), funcd.Dialect(), arith.Dialect(), gpu.Dialect())
}

func parse(t testing.TB, ctx *textir.Context, src string) *textir.Operation {
	t.Helper()
	m, err := textir.Parse(ctx, "test.mlir", []byte(src))
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, src)
	}
	return m
}

func print(m *textir.Operation, generic bool) string {
	return strings.TrimRight(textir.OpString(m, textir.PrintOptions{Generic: generic}), "\n") + "\n"
}

// TestRoundTrip: every op's custom form (testdata/ops.mlir, written loosely)
// prints as testdata/ops.golden.mlir; that output is a fixed point, and its
// generic form reads back to it.
func TestRoundTrip(t *testing.T) {
	ctx := newCtx()
	src, err := os.ReadFile(filepath.Join("testdata", "ops.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	m := parse(t, ctx, string(src))
	if err := textir.Verify(ctx, m); err != nil {
		t.Fatalf("verify: %v", err)
	}
	got := print(m, false)
	golden := filepath.Join("testdata", "ops.golden.mlir")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("custom form:\n%s\nwant:\n%s", got, want)
	}
	if again := print(parse(t, ctx, got), false); again != got {
		t.Errorf("not a fixed point:\n%s", again)
	}
	gen := print(m, true)
	if !strings.Contains(gen, `"gpu.load"`) {
		t.Errorf("generic form has no generic gpu.load:\n%s", gen)
	}
	m2 := parse(t, ctx, gen)
	if err := textir.Verify(ctx, m2); err != nil {
		t.Fatalf("verify generic: %v", err)
	}
	if back := print(m2, false); back != got {
		t.Errorf("generic form reads back as:\n%s", back)
	}
}

func TestTypes(t *testing.T) {
	ctx := newCtx()
	for _, tc := range []struct {
		src, want, err string
	}{
		{"!gpu.ptr<f32,global>", "!gpu.ptr<f32, global>", ""},
		{"!gpu.ptr< i64 , shared >", "!gpu.ptr<i64, shared>", ""},
		{"!gpu.buffer", "!gpu.buffer", ""},
		{"!gpu.ptr<i1, global>", "", "element type must be"},
		{"!gpu.ptr<f32, local>", "", "address space must be global or shared"},
		{"!gpu.ptr<f32>", "", "expected !gpu.ptr<element type, global|shared>"},
		{"!gpu.buffer<1>", "", "takes no parameters"},
		{"!gpu.tex", "", "unknown gpu type 'tex'"},
	} {
		ty, err := textir.ParseType(ctx, tc.src)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: got %v, want error %q", tc.src, err, tc.err)
			}
			continue
		}
		if err != nil || ty.String() != tc.want {
			t.Errorf("%s: got %v %v, want %s", tc.src, ty, err, tc.want)
		}
	}
	p := gpu.PtrType(textir.F32(), gpu.Shared)
	if gpu.PtrElem(p) != textir.F32() || gpu.PtrSpace(p) != gpu.Shared || !gpu.IsPtr(p) || gpu.IsPtr(gpu.Buffer()) {
		t.Errorf("accessors of %s", p)
	}
	if q, _ := textir.ParseType(ctx, "!gpu.ptr<f32, shared>"); q != p {
		t.Errorf("parsed pointer type is not the uniqued one")
	}
	if gpu.PtrElem(textir.F32()) != nil || gpu.PtrSpace(textir.F32()) != gpu.Generic {
		t.Errorf("accessors of a non-pointer")
	}
}

func TestVerifier(t *testing.T) {
	const mod = "gpu.module @m {\n"
	kern := func(args, body string) string {
		return mod + "gpu.func @k(" + args + ") kernel {\n" + body + "\ngpu.return\n}\n}"
	}
	tests := []struct{ name, src, want string }{
		{"load type", kern("%p: !gpu.ptr<f32, global>, %i: i64", "%x = gpu.load %p[%i] : !gpu.ptr<f32, global> -> i32"),
			"'gpu.load' op result #0 has type 'i32', but the pointer's element type is 'f32'"},
		{"load width", kern("%p: !gpu.ptr<f32, global>, %i: i64", "%x:3 = gpu.load %p[%i] {width = 3} : !gpu.ptr<f32, global> -> f32, f32, f32"),
			"attribute 'width' must be 1, 2 or 4, but is 3"},
		{"load results", kern("%p: !gpu.ptr<f32, global>, %i: i64", "%x:2 = gpu.load %p[%i] {width = 4} : !gpu.ptr<f32, global> -> f32, f32"),
			"loads 4 elements (width 4), but has 2 results"},
		{"load 32 bytes", kern("%p: !gpu.ptr<i64, global>, %i: i64", "%x:4 = gpu.load %p[%i] {width = 4} : !gpu.ptr<i64, global> -> i64, i64, i64, i64"),
			"accesses 32 bytes at once, but one access moves at most 16"},
		{"readonly shared", kern("%i: i64", "%s = gpu.shared_alloc {count = 4 : i64} : !gpu.ptr<f32, shared>\n%x = gpu.load %s[%i] {readonly} : !gpu.ptr<f32, shared> -> f32"),
			"'readonly' needs a global pointer"},
		{"store type", kern("%p: !gpu.ptr<f32, global>, %i: i64, %v: i32", "gpu.store %v, %p[%i] : i32, !gpu.ptr<f32, global>"),
			"value #0 has type 'i32', but the pointer's element type is 'f32'"},
		{"store count", kern("%p: !gpu.ptr<f32, global>, %i: i64, %v: f32", "gpu.store %v, %v, %p[%i] {width = 4} : f32, f32, !gpu.ptr<f32, global>"),
			"stores 4 elements (width 4), but has 2 values"},
		{"shared count", kern("", "%s = gpu.shared_alloc {count = 0 : i64} : !gpu.ptr<f32, shared>"), "'count' must be positive"},
		{"shared too big", kern("", "%s = gpu.shared_alloc {count = 20000 : i64} : !gpu.ptr<f32, shared>"), "more than the 49152 bytes"},
		{"shared total", kern("", "%s = gpu.shared_alloc {count = 8000 : i64} : !gpu.ptr<f32, shared>\n%u = gpu.shared_alloc {count = 8000 : i64} : !gpu.ptr<f32, shared>"),
			"uses 64000 bytes of static shared memory"},
		{"shared space", kern("", "%s = gpu.shared_alloc {count = 4 : i64} : !gpu.ptr<f32, global>"), "result must be a shared pointer"},
		{"ptr_cast space", kern("%p: !gpu.ptr<f32, global>", "%q = gpu.ptr_cast %p : !gpu.ptr<f32, global> to !gpu.ptr<f32, shared>"),
			"cannot change the address space"},
		{"atomic type", kern("%p: !gpu.ptr<i8, global>, %i: i64, %v: i8", "%o = gpu.atomic_add %p[%i], %v : !gpu.ptr<i8, global>, i8"),
			"atomic add on 'i8' is not supported"},
		{"shuffle type", kern("%v: i8, %o: i32", "%r = gpu.shuffle xor %v, %o, %o : i8"), "shuffles 32- or 64-bit values"},
		{"shuffle mode", kern("%v: f32, %o: i32", `%r = "gpu.shuffle"(%v, %o, %o) {mode = "rot"} : (f32, i32, i32) -> f32`), "attribute 'mode' must be"},
		{"dimension", kern("", `%r = "gpu.thread_id"() {dimension = "w"} : () -> i32`), "attribute 'dimension' must be"},
		{"for yield types", kern("%n: i64, %x: f32", "%r = gpu.for %i = %n to %n step %n iter_args(%a = %x) -> (f32) {\n%c = arith.constant 1 : i32\ngpu.yield %c : i32\n}"),
			"type of yield operand 0 ('i32') doesn't match the parent's result type ('f32')"},
		{"for yield count", kern("%n: i64, %x: f32", "%r = gpu.for %i = %n to %n step %n iter_args(%a = %x) -> (f32) {\ngpu.yield\n}"),
			"yields 0 values, but the parent gpu.for has 1 results"},
		{"for bounds", kern("%n: i64, %m: i32", `"gpu.for"(%n, %m, %n) ({
^bb0(%i: i64):
  gpu.yield
}) : (i64, i32, i64) -> ()`), "lower bound, upper bound and step must have the same type"},
		{"for region args", kern("%n: i64, %x: f32", `%r = "gpu.for"(%n, %n, %n, %x) ({
^bb0(%i: i64):
  gpu.yield %x : f32
}) : (i64, i64, i64, f32) -> f32`), "region must have 2 arguments"},
		{"if without else", kern("%c: i1, %x: f32", "%r = gpu.if %c -> (f32) {\ngpu.yield %x : f32\n}"), "must have an else block if defining values"},
		{"barrier outside", "func.func @f() {\ngpu.barrier\nfunc.return\n}", "'gpu.barrier' op must be inside a gpu.func"},
		{"thread_id outside", "func.func @f() {\n%t = gpu.thread_id x\nfunc.return\n}", "'gpu.thread_id' op must be inside a gpu.func"},
		{"alloc inside", kern("%n: i64", "%b = gpu.alloc %n : !gpu.buffer"), "runs on the host"},
		{"kernel results", mod + "gpu.func @k(%x: f32) -> f32 kernel {\ngpu.return %x : f32\n}\n}", "a kernel cannot return values"},
		{"max_threads", mod + "gpu.func @k() kernel attributes {max_threads = 2048 : i64} {\ngpu.return\n}\n}", "'max_threads' must be in [1, 1024]"},
		{"buffer argument", mod + "gpu.func @k(%b: !gpu.buffer) kernel {\ngpu.return\n}\n}", "argument #0 must be an integer, a float or a !gpu.ptr"},
		{"call kernel", mod + "gpu.func @k() kernel {\ngpu.return\n}\ngpu.func @d() {\ngpu.call @k() : () -> ()\ngpu.return\n}\n}", "'@k' is a kernel"},
		{"call types", mod + "gpu.func @d(%x: f32) {\ngpu.return\n}\ngpu.func @k(%y: i32) kernel {\ngpu.call @d(%y) : (i32) -> ()\ngpu.return\n}\n}", "operand type mismatch"},
		{"module contents", mod + "func.func @f() {\nfunc.return\n}\n}", "cannot be in a gpu.module"},
		{"launch args", mod + "gpu.func @k(%p: !gpu.ptr<f32, global>, %n: i64) kernel {\ngpu.return\n}\n}\nfunc.func @h(%b: !gpu.buffer, %n: i32) {\n%c = arith.constant 1 : i64\ngpu.launch @m::@k blocks(%c) threads(%c) args(%b, %n) : !gpu.buffer, i32\nfunc.return\n}",
			"argument #1 has type 'i32', but the kernel takes 'i64'"},
		{"launch count", mod + "gpu.func @k(%n: i64) kernel {\ngpu.return\n}\n}\nfunc.func @h() {\n%c = arith.constant 1 : i64\ngpu.launch @m::@k blocks(%c) threads(%c)\nfunc.return\n}",
			"passes 0 arguments, but the kernel takes 1"},
		{"launch shared", mod + "gpu.func @k(%p: !gpu.ptr<f32, shared>) kernel {\ngpu.return\n}\n}\nfunc.func @h(%b: !gpu.buffer) {\n%c = arith.constant 1 : i64\ngpu.launch @m::@k blocks(%c) threads(%c) args(%b) : !gpu.buffer\nfunc.return\n}",
			"argument #0 has type '!gpu.buffer', but the kernel takes '!gpu.ptr<f32, shared>'"},
		{"launch device function", mod + "gpu.func @d() {\ngpu.return\n}\n}\nfunc.func @h() {\n%c = arith.constant 1 : i64\ngpu.launch @m::@d blocks(%c) threads(%c)\nfunc.return\n}",
			"'@m::@d' is not a kernel"},
		{"launch missing", "func.func @h() {\n%c = arith.constant 1 : i64\ngpu.launch @m::@k blocks(%c) threads(%c)\nfunc.return\n}", "'@m::@k' does not reference a gpu.func"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := newCtx()
			m, err := textir.Parse(ctx, "test.mlir", []byte(tc.src))
			if err == nil {
				err = textir.Verify(ctx, m)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v\nwant an error containing %q", err, tc.want)
			}
		})
	}
}

func canonicalize(t *testing.T, src string) string {
	t.Helper()
	ctx := newCtx()
	m := parse(t, ctx, src)
	ps := rewrite.NewPatternSet(ctx, rewrite.CanonicalizationPatterns(ctx))
	if _, err := rewrite.ApplyPatternsGreedily(m, ps, rewrite.DefaultGreedyConfig()); err != nil {
		t.Fatal(err)
	}
	if err := textir.Verify(ctx, m); err != nil {
		t.Fatalf("verify after canonicalize: %v", err)
	}
	return print(m, false)
}

func TestFolders(t *testing.T) {
	wrap := func(args, body string) string {
		return "gpu.module @m {\ngpu.func @k(" + args + ") kernel {\n" + body + "\ngpu.return\n}\n}"
	}
	tests := []struct {
		name, src string
		want, not []string
	}{
		{"ptr_offset by 0", wrap("%p: !gpu.ptr<f32, global>, %v: f32", "%c0 = arith.constant 0 : i64\n%q = gpu.ptr_offset %p, %c0 : !gpu.ptr<f32, global>\ngpu.store %v, %q[%c0] : f32, !gpu.ptr<f32, global>"),
			[]string{"gpu.store %arg1, %arg0[%c0_i64]"}, []string{"ptr_offset"}},
		{"ptr_cast round trip", wrap("%p: !gpu.ptr<f32, global>, %i: i64, %v: f32", "%q = gpu.ptr_cast %p : !gpu.ptr<f32, global> to !gpu.ptr<i32, global>\n%r = gpu.ptr_cast %q : !gpu.ptr<i32, global> to !gpu.ptr<f32, global>\ngpu.store %v, %r[%i] : f32, !gpu.ptr<f32, global>"),
			[]string{"gpu.store %arg2, %arg0[%arg1]"}, []string{"ptr_cast"}},
		{"if true", wrap("%p: !gpu.ptr<f32, global>, %i: i64, %a: f32, %b: f32", "%t = arith.constant true\n%r = gpu.if %t -> (f32) {\n%s = arith.addf %a, %b : f32\ngpu.yield %s : f32\n} else {\ngpu.yield %b : f32\n}\ngpu.store %r, %p[%i] : f32, !gpu.ptr<f32, global>"),
			[]string{"%0 = arith.addf %arg2, %arg3 : f32", "gpu.store %0, %arg0[%arg1]"}, []string{"gpu.if", "gpu.yield"}},
		{"if false", wrap("%p: !gpu.ptr<f32, global>, %i: i64, %a: f32, %b: f32", "%t = arith.constant false\n%r = gpu.if %t -> (f32) {\ngpu.yield %a : f32\n} else {\ngpu.yield %b : f32\n}\ngpu.store %r, %p[%i] : f32, !gpu.ptr<f32, global>"),
			[]string{"gpu.store %arg3, %arg0[%arg1]"}, []string{"gpu.if"}},
		{"if false without else", wrap("%p: !gpu.ptr<f32, global>, %i: i64, %a: f32", "%t = arith.constant false\ngpu.if %t {\ngpu.store %a, %p[%i] : f32, !gpu.ptr<f32, global>\ngpu.yield\n}"),
			nil, []string{"gpu.if", "gpu.store"}},
		{"for without trips", wrap("%p: !gpu.ptr<f32, global>, %a: f32", "%c0 = arith.constant 0 : i64\n%c1 = arith.constant 1 : i64\n%r = gpu.for %i = %c1 to %c0 step %c1 iter_args(%x = %a) -> (f32) {\n%y = arith.addf %x, %x : f32\ngpu.yield %y : f32\n}\ngpu.store %r, %p[%c0] : f32, !gpu.ptr<f32, global>"),
			[]string{"gpu.store %arg1, %arg0[%c0_i64]"}, []string{"gpu.for"}},
		{"math constants", wrap("%p: !gpu.ptr<f32, global>", "%c0 = arith.constant 0 : i64\n%x = arith.constant 16.0 : f32\n%y = arith.constant -2.0 : f32\n%s = gpu.sqrt %x : f32\n%a = gpu.fabs %y : f32\n%m = gpu.max %s, %a : f32\n%f = gpu.fma %m, %y, %x : f32\ngpu.store %f, %p[%c0] : f32, !gpu.ptr<f32, global>"),
			[]string{"arith.constant 8.000000e+00 : f32"}, []string{"gpu.sqrt", "gpu.fabs", "gpu.max", "gpu.fma"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := canonicalize(t, tc.src)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("missing %q in:\n%s", w, got)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(got, w) {
					t.Errorf("%q still in:\n%s", w, got)
				}
			}
		})
	}
}
