package session

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/interp/tfops"
	"github.com/recom-compiler/recom/textir"
)

// hostKernel computes one host step: the op's data results from its data
// operands.
type hostKernel func(in []*interp.Tensor) ([]*interp.Tensor, error)

// hostOp compiles an op with n data operands into its host kernel: the
// attributes are read once, here.
type hostOp func(op *textir.Operation, n int) (hostKernel, error)

// hostOps are the ops a session computes on the host around the GPU
// graph (a cast of a feed, a reshape, a final activation): TensorFlow's
// semantics, from interp/tfops, with the attributes decoded when the
// session is planned.
var hostOps = map[string]hostOp{}

func init() {
	for _, name := range []string{"Identity", "Snapshot", "StopGradient"} {
		hostOps["tfg."+name] = fixed(1, func(op *textir.Operation) (hostKernel, error) {
			return func(in []*interp.Tensor) ([]*interp.Tensor, error) { return in[:1], nil }, nil
		})
	}
	for name, f := range map[string]func(x *interp.Tensor) (*interp.Tensor, error){
		"Sigmoid": tfops.Sigmoid, "Relu": tfops.Relu, "Tanh": tfops.Tanh, "Neg": tfops.Neg, "Abs": tfops.Abs,
		"Exp": tfops.Exp, "Log": tfops.Log, "Sqrt": tfops.Sqrt, "Rsqrt": tfops.Rsqrt, "Square": tfops.Square,
	} {
		hostOps["tfg."+name] = fixed(1, func(op *textir.Operation) (hostKernel, error) {
			return func(in []*interp.Tensor) ([]*interp.Tensor, error) { return one(f(in[0])) }, nil
		})
	}
	for name, f := range map[string]func(x, y *interp.Tensor) (*interp.Tensor, error){
		"Add": tfops.Add, "AddV2": tfops.AddV2, "Sub": tfops.Sub, "Mul": tfops.Mul, "RealDiv": tfops.RealDiv,
		"Maximum": tfops.Maximum, "Minimum": tfops.Minimum, "Reshape": tfops.Reshape, "ExpandDims": tfops.ExpandDims,
	} {
		hostOps["tfg."+name] = fixed(2, func(op *textir.Operation) (hostKernel, error) {
			return func(in []*interp.Tensor) ([]*interp.Tensor, error) { return one(f(in[0], in[1])) }, nil
		})
	}
	hostOps["tfg.Cast"] = fixed(1, func(op *textir.Operation) (hostKernel, error) {
		a, ok := op.Attr("DstT").(textir.TypeAttr)
		if !ok {
			return nil, op.Errorf("requires type attribute 'DstT'")
		}
		to, ok := exec.DTypeOf(a.Type)
		if !ok {
			return nil, op.Errorf("attribute 'DstT': type %s has no host representation", a.Type)
		}
		return func(in []*interp.Tensor) ([]*interp.Tensor, error) { return one(tfops.Cast(in[0], to)) }, nil
	})
	hostOps["tfg.Squeeze"] = fixed(1, func(op *textir.Operation) (hostKernel, error) {
		axes, err := intsAttr(op, "squeeze_dims")
		if err != nil {
			return nil, err
		}
		return func(in []*interp.Tensor) ([]*interp.Tensor, error) { return one(tfops.Squeeze(in[0], axes)) }, nil
	})
	hostOps["tfg.BiasAdd"] = fixed(2, func(op *textir.Operation) (hostKernel, error) {
		format := "NHWC"
		if a, ok := op.Attr("data_format").(textir.StringAttr); ok {
			format = a.Value
		}
		return func(in []*interp.Tensor) ([]*interp.Tensor, error) { return one(tfops.BiasAdd(in[0], in[1], format)) }, nil
	})
	hostOps["tfg.MatMul"] = fixed(2, func(op *textir.Operation) (hostKernel, error) {
		ta, tb := boolAttr(op, "transpose_a"), boolAttr(op, "transpose_b")
		return func(in []*interp.Tensor) ([]*interp.Tensor, error) { return one(tfops.MatMul(in[0], in[1], ta, tb)) }, nil
	})
	// The shape arithmetic and reductions a dense feature column or a
	// classifier head leaves around the kernels (Shape → StridedSlice →
	// Pack → Reshape of a numeric column, a head's Softmax, AddN of logits).
	for name, f := range map[string]func(x *interp.Tensor) (*interp.Tensor, error){
		"Softmax": tfops.Softmax, "LogSoftmax": tfops.LogSoftmax, "ZerosLike": tfops.ZerosLike, "OnesLike": tfops.OnesLike,
	} {
		hostOps["tfg."+name] = fixed(1, func(op *textir.Operation) (hostKernel, error) {
			return func(in []*interp.Tensor) ([]*interp.Tensor, error) { return one(f(in[0])) }, nil
		})
	}
	for name, f := range map[string]func(x *interp.Tensor, outType interp.DType) (*interp.Tensor, error){
		"Shape": tfops.Shape, "Size": tfops.Size,
	} {
		hostOps["tfg."+name] = fixed(1, func(op *textir.Operation) (hostKernel, error) {
			to := interp.Int32
			if a, ok := op.Attr("out_type").(textir.TypeAttr); ok {
				t, ok := exec.DTypeOf(a.Type)
				if !ok || (t != interp.Int32 && t != interp.Int64) {
					return nil, op.Errorf("attribute 'out_type' must be i32 or i64, got %s", a.Type)
				}
				to = t
			}
			return func(in []*interp.Tensor) ([]*interp.Tensor, error) { return one(f(in[0], to)) }, nil
		})
	}
	for name, f := range map[string]func(x, axes *interp.Tensor, keepDims bool) (*interp.Tensor, error){
		"Sum": tfops.Sum, "Prod": tfops.Prod, "Mean": tfops.Mean, "Max": tfops.Max, "Min": tfops.Min,
	} {
		hostOps["tfg."+name] = fixed(2, func(op *textir.Operation) (hostKernel, error) {
			keep := boolAttr(op, "keep_dims")
			return func(in []*interp.Tensor) ([]*interp.Tensor, error) { return one(f(in[0], in[1], keep)) }, nil
		})
	}
	// A classifier head's class ids (the two-tower export's ArgMax of its
	// sigmoid).
	for name, f := range map[string]func(x, dim *interp.Tensor, out interp.DType) (*interp.Tensor, error){
		"ArgMax": tfops.ArgMax, "ArgMin": tfops.ArgMin,
	} {
		hostOps["tfg."+name] = fixed(2, func(op *textir.Operation) (hostKernel, error) {
			to := interp.Int64
			if a, ok := op.Attr("output_type").(textir.TypeAttr); ok {
				t, ok := exec.DTypeOf(a.Type)
				if !ok {
					return nil, op.Errorf("attribute 'output_type': type %s has no host representation", a.Type)
				}
				to = t
			} else if op.Attr("output_type") != nil {
				return nil, op.Errorf("attribute 'output_type' must be a type")
			}
			return func(in []*interp.Tensor) ([]*interp.Tensor, error) { return one(f(in[0], in[1], to)) }, nil
		})
	}
	hostOps["tfg.StridedSlice"] = fixed(4, func(op *textir.Operation) (hostKernel, error) {
		a := tfops.StridedSliceAttrs{BeginMask: intAttr(op, "begin_mask"), EndMask: intAttr(op, "end_mask"),
			EllipsisMask: intAttr(op, "ellipsis_mask"), NewAxisMask: intAttr(op, "new_axis_mask"),
			ShrinkAxisMask: intAttr(op, "shrink_axis_mask")}
		return func(in []*interp.Tensor) ([]*interp.Tensor, error) {
			return one(tfops.StridedSlice(in[0], in[1], in[2], in[3], a))
		}, nil
	})
	hostOps["tfg.Slice"] = fixed(3, func(op *textir.Operation) (hostKernel, error) {
		return func(in []*interp.Tensor) ([]*interp.Tensor, error) { return one(tfops.Slice(in[0], in[1], in[2])) }, nil
	})
	hostOps["tfg.Pack"] = func(op *textir.Operation, n int) (hostKernel, error) {
		if n < 1 {
			return nil, op.Errorf("expects at least one value, got %d data operands", n)
		}
		axis := intAttr(op, "axis")
		return func(in []*interp.Tensor) ([]*interp.Tensor, error) { return one(tfops.Pack(in, axis)) }, nil
	}
	hostOps["tfg.AddN"] = func(op *textir.Operation, n int) (hostKernel, error) {
		if n < 1 {
			return nil, op.Errorf("expects at least one input, got %d data operands", n)
		}
		return func(in []*interp.Tensor) ([]*interp.Tensor, error) {
			acc := in[0]
			for _, t := range in[1:] {
				if !slices.Equal(acc.Shape(), t.Shape()) {
					return nil, fmt.Errorf("inputs must have the same shape, got %s and %s", interp.ShapeString(acc.Shape()), interp.ShapeString(t.Shape()))
				}
				var err error
				if acc, err = tfops.Add(acc, t); err != nil {
					return nil, err
				}
			}
			return []*interp.Tensor{acc}, nil
		}, nil
	}
	hostOps["tfg.ConcatV2"] = func(op *textir.Operation, n int) (hostKernel, error) {
		if n < 2 {
			return nil, op.Errorf("expects values and an axis, got %d data operands", n)
		}
		return func(in []*interp.Tensor) ([]*interp.Tensor, error) {
			return one(tfops.ConcatV2(in[:len(in)-1], in[len(in)-1]))
		}, nil
	}
}

// fixed is a hostOp of exactly n data operands.
func fixed(n int, f func(op *textir.Operation) (hostKernel, error)) hostOp {
	return func(op *textir.Operation, got int) (hostKernel, error) {
		if got != n {
			return nil, op.Errorf("expects %d data operands, got %d", n, got)
		}
		return f(op)
	}
}

func one(t *interp.Tensor, err error) ([]*interp.Tensor, error) {
	if err != nil {
		return nil, err
	}
	return []*interp.Tensor{t}, nil
}

func boolAttr(op *textir.Operation, name string) bool {
	a, _ := op.Attr(name).(textir.BoolAttr)
	return a.Value
}

func intAttr(op *textir.Operation, name string) int64 {
	a, _ := op.Attr(name).(textir.IntegerAttr)
	return a.Value
}

func intsAttr(op *textir.Operation, name string) ([]int64, error) {
	a := op.Attr(name)
	if a == nil {
		return nil, nil
	}
	arr, ok := a.(textir.ArrayAttr)
	if !ok {
		return nil, op.Errorf("attribute '%s' must be a list of integers", name)
	}
	out := make([]int64, len(arr.Elems))
	for i, e := range arr.Elems {
		v, ok := e.(textir.IntegerAttr)
		if !ok {
			return nil, op.Errorf("attribute '%s' must be a list of integers", name)
		}
		out[i] = v.Value
	}
	return out, nil
}

// HostOps lists the ops a session can compute on the host, sorted.
func HostOps() []string {
	names := make([]string, 0, len(hostOps))
	for n := range hostOps {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// compileHost compiles op into a host step, or says why it cannot be
// one: an op outside HostOps, named with its node.
func compileHost(op *textir.Operation, in []*value) (hostKernel, error) {
	c, ok := hostOps[op.Name()]
	if !ok {
		return nil, op.Errorf("has no native step in a session (it runs on the host only as one of %s; on the device only as a layer, a dense layer, a reshape of one or one of %s in the forms a device step takes): run the program in the interpreter",
			strings.Join(shortNames(HostOps()), ", "), strings.Join(shortNames(DeviceOps()), ", "))
	}
	k, err := c(op, len(in))
	if err != nil {
		return nil, err
	}
	nres := len(dataResults(op))
	return func(vals []*interp.Tensor) ([]*interp.Tensor, error) {
		out, err := k(vals)
		if err != nil {
			return nil, op.Errorf("%v", err)
		}
		if len(out) != nres {
			return nil, op.Errorf("computed %d results, want %d", len(out), nres)
		}
		return out, nil
	}, nil
}

func shortNames(names []string) []string {
	out := slices.Clone(names)
	for i, n := range out {
		out[i] = strings.TrimPrefix(n, "tfg.")
	}
	return out
}

// feedCheck is what a feed of a placeholder must be, read from its type
// once: its dtype (when the type has one) and, for a ranked type, its
// rank and static dims (-1 where dynamic).
type feedCheck struct {
	dtype  interp.DType
	typed  bool
	ranked bool
	shape  []int64
	ty     textir.Type // for errors
}

func feedCheckOf(v *textir.Value) feedCheck {
	c := feedCheck{ty: v.Type()}
	c.dtype, c.typed = exec.DTypeOf(v.Type())
	if tt, ok := v.Type().(*textir.TensorType); ok {
		c.ranked, c.shape = true, tt.Shape
	}
	return c
}

// checkFeed checks a fed tensor against its placeholder's type, as the
// interpreter does: the dtype, and the rank and static dims of a ranked
// type.
func checkFeed(v *value, t *interp.Tensor) error {
	if t == nil {
		return fmt.Errorf("feed %q: nil tensor", v.feed)
	}
	c := &v.check
	if c.typed && c.dtype != t.DType() {
		return fmt.Errorf("feed %q has dtype %v, but the placeholder is %v", v.feed, t.DType(), c.dtype)
	}
	if !c.ranked {
		return nil
	}
	bad := len(c.shape) != t.Rank()
	for i := 0; !bad && i < len(c.shape); i++ {
		bad = c.shape[i] >= 0 && c.shape[i] != t.Dim(i)
	}
	if bad {
		return fmt.Errorf("feed %q: shape %s is incompatible with the placeholder's type %s", v.feed, interp.ShapeString(t.Shape()), c.ty)
	}
	return nil
}
