package exec_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/recom-compiler/recom/dialects/builtin"
	"github.com/recom-compiler/recom/dialects/funcd"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/textir"
)

var (
	effectMu  sync.Mutex
	effectLog []string
)

func init() {
	// xtest.neg negates an int64 tensor; xtest.log records its operand
	// (a side effect) and has no results.
	exec.Register("xtest.neg", func(op *textir.Operation, in []*interp.Tensor, _ *exec.State) ([]*interp.Tensor, error) {
		v, _ := in[0].Int64At(0)
		return []*interp.Tensor{interp.Scalar(-v)}, nil
	})
	exec.Register("xtest.log", func(op *textir.Operation, in []*interp.Tensor, _ *exec.State) ([]*interp.Tensor, error) {
		v, _ := in[0].Int64At(0)
		effectMu.Lock()
		effectLog = append(effectLog, exec.OpName(op)+"="+interp.Scalar(v).String())
		effectMu.Unlock()
		return nil, nil
	})
	exec.RegisterEffect("xtest.log")
}

const funcProgram = `func.func @f(%a: i64, %b: i64) -> i64 {
  %n = "xtest.neg"(%a) : (i64) -> i64 loc("n")
  "xtest.log"(%b) : (i64) -> () loc("first")
  "xtest.log"(%n) : (i64) -> () loc("second")
  func.return %n : i64
}`

// TestFunctionArguments: function arguments are fed as "@f:i", can be
// asked for, and must be fed when needed; effects run in program order
// whatever the outputs.
func TestFunctionArguments(t *testing.T) {
	ctx := textir.NewContext(builtin.Dialect(), funcd.Dialect())
	ctx.AllowUnregistered = true
	m, err := textir.Parse(ctx, "f.mlir", []byte(funcProgram))
	if err != nil {
		t.Fatal(err)
	}
	effectLog = nil
	res, err := exec.Run(context.Background(), m, map[string]*interp.Tensor{
		"@f:0": interp.Scalar[int64](3), "@f:1": interp.Scalar[int64](7),
	}, []string{"@f:1", "n"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := res["n"].Int64At(0); v != -3 {
		t.Errorf("n = %v", res["n"])
	}
	if v, _ := res["@f:1"].Int64At(0); v != 7 {
		t.Errorf("@f:1 = %v", res["@f:1"])
	}
	if got := strings.Join(effectLog, " "); !strings.Contains(got, "first=") || strings.Index(got, "first") > strings.Index(got, "second") {
		t.Errorf("effects ran as %q", got)
	}
	for _, tc := range []struct {
		feeds   map[string]*interp.Tensor
		outputs []string
		want    string
	}{
		{map[string]*interp.Tensor{"@f:0": interp.Scalar[int64](1)}, []string{"n"}, `operand #0 is a function argument that was not fed (feed it as "@f:1")`},
		{map[string]*interp.Tensor{"@f:0": interp.Scalar[int32](1), "@f:1": interp.Scalar[int64](1)}, []string{"n"}, "has dtype int32, but the argument of type i64 is int64"},
		{map[string]*interp.Tensor{"@f:2": interp.Scalar[int64](1)}, []string{"n"}, "function @f has 2 arguments"},
		{map[string]*interp.Tensor{"@g:0": interp.Scalar[int64](1)}, []string{"n"}, "no function @g"},
		{map[string]*interp.Tensor{"@f:1": interp.Scalar[int64](1)}, []string{"@f:0"}, "the function argument was not fed"},
	} {
		_, err := exec.Run(context.Background(), m, tc.feeds, tc.outputs, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want %q", err, tc.want)
		}
	}
}
