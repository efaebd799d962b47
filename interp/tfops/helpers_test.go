package tfops

import (
	"strings"
	"testing"

	"github.com/recom-compiler/recom/interp"
)

// tn builds a tensor of shape from values.
func tn[T interp.Elem](shape []int64, v ...T) *interp.Tensor {
	if v == nil {
		v = []T{}
	}
	return interp.Must(interp.New(shape, v))
}

func sh(d ...int64) []int64 { return d }

func vec[T interp.Elem](v ...T) *interp.Tensor { return interp.Vector(v...) }

func sc[T interp.Elem](v T) *interp.Tensor { return interp.Scalar(v) }

// check compares got with want exactly (floats with a small tolerance) and
// an error with wantErr (a substring; "" means no error).
func check(t *testing.T, name string, got *interp.Tensor, err error, want *interp.Tensor, wantErr string) {
	t.Helper()
	if wantErr != "" {
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Errorf("%s: got error %v, want one containing %q", name, err, wantErr)
		}
		return
	}
	if err != nil {
		t.Errorf("%s: unexpected error: %v", name, err)
		return
	}
	if cerr := got.AllClose(want, 1e-6, 1e-6); cerr != nil {
		t.Errorf("%s: %v\n got  %v\n want %v", name, cerr, got, want)
	}
}
