package arith_test

import (
	"context"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/textir"
)

// The ops kernels need: forms, folders and interpreter semantics.
func TestKernelOps(t *testing.T) {
	src := `module {
  func.func @f(%arg0: i32, %arg1: f32, %arg2: i8) -> i1 {
    %0 = arith.divui %arg0, %arg0 : i32
    %1 = arith.remui %0, %arg0 : i32
    %2 = arith.shli %1, %arg0 : i32
    %3 = arith.shrsi %2, %arg0 : i32
    %4 = arith.shrui %3, %arg0 : i32
    %5 = arith.maximumf %arg1, %arg1 : f32
    %6 = arith.minimumf %5, %arg1 : f32
    %7 = arith.negf %6 : f32
    %8 = arith.cmpf olt, %7, %arg1 : f32
    %9 = arith.fptosi %7 : f32 to i64
    %10 = arith.uitofp %arg2 : i8 to f32
    %11 = arith.extui %arg2 : i8 to i32
    func.return %8 : i1
  }
}
`
	ctx := newCtx()
	m := parse(t, ctx, src)
	if err := textir.Verify(ctx, m); err != nil {
		t.Fatal(err)
	}
	if got := print(m); got != src {
		t.Errorf("round trip:\n%s", got)
	}
	tests := []struct{ name, src, want string }{
		{"divui", "%a = arith.constant -2 : i8\n%b = arith.constant 3 : i8\n%r = arith.divui %a, %b : i8", "arith.constant 84 : i8"},
		{"remui", "%a = arith.constant -1 : i8\n%b = arith.constant 10 : i8\n%r = arith.remui %a, %b : i8", "arith.constant 5 : i8"},
		{"shli", "%a = arith.constant 3 : i8\n%b = arith.constant 6 : i8\n%r = arith.shli %a, %b : i8", "arith.constant -64 : i8"},
		{"shrsi", "%a = arith.constant -64 : i8\n%b = arith.constant 3 : i8\n%r = arith.shrsi %a, %b : i8", "arith.constant -8 : i8"},
		{"shrui", "%a = arith.constant -64 : i8\n%b = arith.constant 3 : i8\n%r = arith.shrui %a, %b : i8", "arith.constant 24 : i8"},
		{"shift too far stays", "%a = arith.constant 1 : i8\n%b = arith.constant 8 : i8\n%r = arith.shli %a, %b : i8", "arith.shli"},
		{"cmpf", "%a = arith.constant 1.0 : f32\n%b = arith.constant 0x7FC00000 : f32\n%r = arith.cmpf ult, %a, %b : f32", "arith.constant true"},
		{"cmpf ordered", "%a = arith.constant 1.0 : f32\n%b = arith.constant 0x7FC00000 : f32\n%r = arith.cmpf olt, %a, %b : f32", "arith.constant false"},
		{"fptosi", "%a = arith.constant -2.75 : f32\n%r = arith.fptosi %a : f32 to i32", "arith.constant -2 : i32"},
		{"uitofp", "%a = arith.constant -1 : i8\n%r = arith.uitofp %a : i8 to f32", "arith.constant 2.550000e+02 : f32"},
		{"extui", "%a = arith.constant -1 : i8\n%r = arith.extui %a : i8 to i32", "arith.constant 255 : i32"},
		{"negf", "%a = arith.constant 2.0 : f32\n%r = arith.negf %a : f32", "arith.constant -2.000000e+00 : f32"},
		{"maximumf", "%a = arith.constant 2.0 : f32\n%b = arith.constant 0x7FC00000 : f32\n%r = arith.maximumf %a, %b : f32", "arith.constant 0x7FC00000 : f32"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lines := strings.Split(tc.src, "\n")
			ty := lines[len(lines)-1][strings.LastIndex(lines[len(lines)-1], " ")+1:]
			if strings.Contains(tc.src, "cmpf") {
				ty = "i1"
			}
			got := canonicalize(t, "func.func @f() -> "+ty+" {\n"+tc.src+"\nfunc.return %r : "+ty+"\n}")
			if !strings.Contains(got, tc.want) {
				t.Errorf("missing %q in:\n%s", tc.want, got)
			}
		})
	}
}

// TestSemantics runs host arithmetic through the interpreter.
func TestSemantics(t *testing.T) {
	src := `func.func @f(%n: i64, %x: f32) {
  %c4 = arith.constant 4 : i64
  %b = arith.muli %n, %c4 : i64 loc("bytes")
  %q = arith.divui %b, %c4 : i64 loc("q")
  %s = arith.shrui %b, %c4 : i64 loc("s")
  %c = arith.cmpi ult, %q, %n : i64 loc("c")
  %f = arith.sitofp %n : i64 to f32 loc("f")
  %g = arith.addf %f, %x : f32 loc("g")
  %h = arith.cmpf ogt, %g, %x : f32 loc("h")
  %i = arith.fptosi %g : f32 to i32 loc("i")
  %k = arith.select %h, %i, %i : i32 loc("k")
  %d = arith.constant dense<[1, 2]> : tensor<2xi32>
  %e = arith.addi %d, %d : tensor<2xi32> loc("e")
  func.return
}`
	ctx := newCtx()
	m := parse(t, ctx, src)
	res, err := exec.Run(context.Background(), m, map[string]*interp.Tensor{
		"@f:0": interp.Scalar[int64](10), "@f:1": interp.Scalar[float32](0.5),
	}, []string{"bytes", "q", "s", "c", "g", "h", "i", "k", "e"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"bytes": "40", "q": "10", "s": "2", "c": "false", "g": "10.5", "h": "true", "i": "10", "k": "10", "e": "{2, 4}"}
	for k, w := range want {
		if got := res[k].String(); !strings.Contains(got, w) {
			t.Errorf("%s = %s, want %s", k, got, w)
		}
	}
	if _, err := exec.Run(context.Background(), m, map[string]*interp.Tensor{
		"@f:0": interp.Scalar[int64](10), "@f:1": interp.Scalar[int32](1),
	}, []string{"g"}, nil); err == nil || !strings.Contains(err.Error(), "dtype") {
		t.Errorf("feed of the wrong dtype: %v", err)
	}
}
