package tfg

import (
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/interp/tfops"
	"github.com/recom-compiler/recom/textir"
)

type binaryFn func(x, y *interp.Tensor) (*interp.Tensor, error)
type unaryFn func(x *interp.Tensor) (*interp.Tensor, error)
type reduceFn func(x, axes *interp.Tensor, keepDims bool) (*interp.Tensor, error)

func binary(f binaryFn) exec.Kernel {
	return func(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
		d, err := nIn(op, in, 2)
		if err != nil {
			return nil, err
		}
		return one(f(d[0], d[1]))
	}
}

func unary(f unaryFn) exec.Kernel {
	return func(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
		d, err := nIn(op, in, 1)
		if err != nil {
			return nil, err
		}
		return one(f(d[0]))
	}
}

func reduce(f reduceFn) exec.Kernel {
	return func(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
		d, err := nIn(op, in, 2)
		if err != nil {
			return nil, err
		}
		return one(f(d[0], d[1], attrBool(op, "keep_dims", false)))
	}
}

func registerMath() {
	for name, f := range map[string]binaryFn{
		"Add": tfops.Add, "AddV2": tfops.AddV2, "Sub": tfops.Sub, "Mul": tfops.Mul, "RealDiv": tfops.RealDiv, "Pow": tfops.Pow,
		"Div": tfops.Div, "FloorDiv": tfops.FloorDiv, "FloorMod": tfops.FloorMod, "Maximum": tfops.Maximum,
		"Minimum": tfops.Minimum, "Equal": tfops.Equal, "NotEqual": tfops.NotEqual, "Less": tfops.Less,
		"LessEqual": tfops.LessEqual, "Greater": tfops.Greater, "GreaterEqual": tfops.GreaterEqual,
		"LogicalAnd": tfops.LogicalAnd, "LogicalOr": tfops.LogicalOr,
	} {
		reg(name, binary(f))
	}
	for name, f := range map[string]unaryFn{
		"Neg": tfops.Neg, "Abs": tfops.Abs, "Square": tfops.Square, "Sqrt": tfops.Sqrt, "Rsqrt": tfops.Rsqrt,
		"Exp": tfops.Exp, "Log": tfops.Log, "Sigmoid": tfops.Sigmoid, "Tanh": tfops.Tanh, "Relu": tfops.Relu,
		"LogicalNot": tfops.LogicalNot, "ZerosLike": tfops.ZerosLike, "OnesLike": tfops.OnesLike,
		"Rank": tfops.Rank, "Softmax": tfops.Softmax, "LogSoftmax": tfops.LogSoftmax,
	} {
		reg(name, unary(f))
	}
	for name, f := range map[string]reduceFn{
		"Sum": tfops.Sum, "Prod": tfops.Prod, "Mean": tfops.Mean, "Max": tfops.Max, "Min": tfops.Min,
		"All": tfops.All, "Any": tfops.Any,
	} {
		reg(name, reduce(f))
	}
	reg("AddN", func(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
		d := data(in)
		if len(d) == 0 {
			return nil, op.Errorf("expects at least one input")
		}
		acc := d[0]
		for _, t := range d[1:] {
			if !sameDims(acc.Shape(), t.Shape()) {
				return nil, op.Errorf("inputs must have the same shape, got %s and %s", interp.ShapeString(acc.Shape()), interp.ShapeString(t.Shape()))
			}
			var err error
			if acc, err = tfops.Add(acc, t); err != nil {
				return nil, err
			}
		}
		return []*interp.Tensor{acc}, nil
	})
	for name, f := range map[string]func(x, dim *interp.Tensor, out interp.DType) (*interp.Tensor, error){
		"ArgMax": tfops.ArgMax, "ArgMin": tfops.ArgMin,
	} {
		reg(name, func(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
			d, err := nIn(op, in, 2)
			if err != nil {
				return nil, err
			}
			out := interp.Int64
			if op.Attr("output_type") != nil {
				if out, err = attrType(op, "output_type"); err != nil {
					return nil, err
				}
			}
			return one(f(d[0], d[1], out))
		})
	}
	reg("Cast", func(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
		d, err := nIn(op, in, 1)
		if err != nil {
			return nil, err
		}
		to, err := attrType(op, "DstT")
		if err != nil {
			return nil, err
		}
		return one(tfops.Cast(d[0], to))
	})
	reg("MatMul", func(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
		d, err := nIn(op, in, 2)
		if err != nil {
			return nil, err
		}
		return one(tfops.MatMul(d[0], d[1], attrBool(op, "transpose_a", false), attrBool(op, "transpose_b", false)))
	})
	reg("BiasAdd", func(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
		d, err := nIn(op, in, 2)
		if err != nil {
			return nil, err
		}
		return one(tfops.BiasAdd(d[0], d[1], attrString(op, "data_format", "NHWC")))
	})
	reg("Range", func(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
		d, err := nIn(op, in, 3)
		if err != nil {
			return nil, err
		}
		return one(tfops.Range(d[0], d[1], d[2]))
	})
	reg("Bucketize", func(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
		d, err := nIn(op, in, 1)
		if err != nil {
			return nil, err
		}
		b, err := st.Memo(func() (any, error) { return attrFloats(op, "boundaries") })
		if err != nil {
			return nil, err
		}
		return one(tfops.Bucketize(d[0], b.([]float32)))
	})
	reg("StringToHashBucketFast", func(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
		d, err := nIn(op, in, 1)
		if err != nil {
			return nil, err
		}
		return one(tfops.StringToHashBucketFast(d[0], attrInt(op, "num_buckets", 0)))
	})
	reg("AsString", func(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
		d, err := nIn(op, in, 1)
		if err != nil {
			return nil, err
		}
		a := tfops.AsStringAttrs{
			Precision:  int(attrInt(op, "precision", -1)),
			Scientific: attrBool(op, "scientific", false),
			Shortest:   attrBool(op, "shortest", false),
			Width:      int(attrInt(op, "width", -1)),
			Fill:       attrString(op, "fill", ""),
		}
		return one(tfops.AsStringWith(d[0], a))
	})
	reg("StringSplitV2", func(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
		d, err := nIn(op, in, 2)
		if err != nil {
			return nil, err
		}
		i, v, s, err := tfops.StringSplitV2(d[0], d[1], attrInt(op, "maxsplit", -1))
		if err != nil {
			return nil, err
		}
		return []*interp.Tensor{i, v, s}, nil
	})
}

func registerArray() {
	reg("Shape", shapeLike(tfops.Shape))
	reg("Size", shapeLike(tfops.Size))
	reg("Reshape", binary(tfops.Reshape))
	reg("ExpandDims", binary(tfops.ExpandDims))
	reg("Fill", binary(tfops.Fill))
	reg("Tile", binary(tfops.Tile))
	reg("BroadcastTo", binary(tfops.BroadcastTo))
	reg("Transpose", binary(tfops.Transpose))
	reg("GatherNd", binary(tfops.GatherNd))
	reg("Where", unary(tfops.Where))
	reg("Squeeze", func(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
		d, err := nIn(op, in, 1)
		if err != nil {
			return nil, err
		}
		axes, err := attrInts(op, "squeeze_dims")
		if err != nil {
			return nil, err
		}
		return one(tfops.Squeeze(d[0], axes))
	})
	reg("StridedSlice", func(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
		d, err := nIn(op, in, 4)
		if err != nil {
			return nil, err
		}
		a := tfops.StridedSliceAttrs{
			BeginMask: attrInt(op, "begin_mask", 0), EndMask: attrInt(op, "end_mask", 0),
			EllipsisMask: attrInt(op, "ellipsis_mask", 0), NewAxisMask: attrInt(op, "new_axis_mask", 0),
			ShrinkAxisMask: attrInt(op, "shrink_axis_mask", 0),
		}
		return one(tfops.StridedSlice(d[0], d[1], d[2], d[3], a))
	})
	reg("Slice", func(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
		d, err := nIn(op, in, 3)
		if err != nil {
			return nil, err
		}
		return one(tfops.Slice(d[0], d[1], d[2]))
	})
	reg("ConcatV2", func(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
		d := data(in)
		if len(d) < 2 {
			return nil, op.Errorf("expects values and an axis")
		}
		return one(tfops.ConcatV2(d[:len(d)-1], d[len(d)-1]))
	})
	reg("Concat", func(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
		d := data(in)
		if len(d) < 2 {
			return nil, op.Errorf("expects an axis and values")
		}
		return one(tfops.ConcatV2(d[1:], d[0]))
	})
	reg("Pack", func(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
		return one(tfops.Pack(data(in), attrInt(op, "axis", 0)))
	})
	reg("Unpack", func(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
		d, err := nIn(op, in, 1)
		if err != nil {
			return nil, err
		}
		return tfops.Unpack(d[0], attrInt(op, "num", 0), attrInt(op, "axis", 0))
	})
	reg("GatherV2", func(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
		d, err := nIn(op, in, 3)
		if err != nil {
			return nil, err
		}
		return gather(op, st, d[0], d[1], d[2], attrInt(op, "batch_dims", 0))
	})
	reg("Gather", func(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
		d, err := nIn(op, in, 2)
		if err != nil {
			return nil, err
		}
		return gather(op, st, d[0], d[1], interp.Scalar(int32(0)), 0)
	})
	reg("Unique", func(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
		d, err := nIn(op, in, 1)
		if err != nil {
			return nil, err
		}
		outIdx := interp.Int32
		if op.Attr("out_idx") != nil {
			if outIdx, err = attrType(op, "out_idx"); err != nil {
				return nil, err
			}
		}
		y, idx, err := tfops.Unique(d[0], outIdx)
		if err != nil {
			return nil, err
		}
		return []*interp.Tensor{y, idx}, nil
	})
	reg("Select", func(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
		d, err := nIn(op, in, 3)
		if err != nil {
			return nil, err
		}
		return one(tfops.Select(d[0], d[1], d[2]))
	})
	reg("SelectV2", func(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
		d, err := nIn(op, in, 3)
		if err != nil {
			return nil, err
		}
		return one(tfops.SelectV2(d[0], d[1], d[2]))
	})
	reg("OneHot", oneHot)
	reg("SparseToDense", sparseToDense)
}

func shapeLike(f func(x *interp.Tensor, outType interp.DType) (*interp.Tensor, error)) exec.Kernel {
	return func(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
		d, err := nIn(op, in, 1)
		if err != nil {
			return nil, err
		}
		outType := interp.Int32
		if op.Attr("out_type") != nil {
			if outType, err = attrType(op, "out_type"); err != nil {
				return nil, err
			}
		}
		if s, ok := stubsOf(st)[d[0]]; ok {
			t, err := s.materialize()
			if err != nil {
				return nil, err
			}
			d[0] = t
		}
		return one(f(d[0], outType))
	}
}

// gather is GatherV2 that reads lazy random variables row by row.
func gather(op *textir.Operation, st *exec.State, params, indices, axis *interp.Tensor, batchDims int64) ([]*interp.Tensor, error) {
	if v, ok := stubsOf(st)[params]; ok {
		ax, okAx := axis.Int64At(0)
		if axis.Len() == 1 && okAx && ax == 0 && batchDims == 0 {
			return one(gatherVariable(v, indices))
		}
		t, err := v.materialize()
		if err != nil {
			return nil, err
		}
		params = t
	}
	return one(tfops.GatherV2(params, indices, axis, batchDims))
}
