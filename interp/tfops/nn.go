package tfops

import (
	"math"

	"github.com/recom-compiler/recom/interp"
)

// Softmax returns exp(x - m) / sum(exp(x - m)) over the last dimension of
// logits, m being the row's maximum (tf.raw_ops.Softmax; the CPU kernel,
// core/kernels/softmax_op_functor.h, shifts by the maximum so that large
// logits do not overflow). logits must have rank ≥ 1 and be float32 or
// float64. The row is computed in float64 and rounded once, so results
// match TensorFlow's float32 arithmetic within a tolerance. Special values
// follow from the arithmetic: a -inf logit gets 0; a NaN, +inf or a row of
// -inf makes the whole row NaN (as TensorFlow's, whose shifted +inf or -inf
// is inf - inf).
func Softmax(logits *interp.Tensor) (*interp.Tensor, error) {
	return softmax("Softmax", logits, false)
}

// LogSoftmax returns (x - m) - log(sum(exp(x - m))) over the last dimension
// of logits (tf.raw_ops.LogSoftmax, the same kernel as Softmax); special
// values as Softmax's (a -inf logit gets -inf).
func LogSoftmax(logits *interp.Tensor) (*interp.Tensor, error) {
	return softmax("LogSoftmax", logits, true)
}

func softmax(op string, logits *interp.Tensor, log bool) (*interp.Tensor, error) {
	if err := checkDType(op, "logits", logits, floatTypes()...); err != nil {
		return nil, err
	}
	if logits.Rank() < 1 {
		return nil, errorf(op, "logits must have >= 1 dimension, got %s", shapeStr(logits.Shape()))
	}
	switch d := logits.Data().(type) {
	case []float32:
		return interp.New(logits.Shape(), softmaxT(d, int(logits.Dim(-1)), log))
	case []float64:
		return interp.New(logits.Shape(), softmaxT(d, int(logits.Dim(-1)), log))
	}
	return nil, errorf(op, "unsupported dtype %v", logits.DType())
}

func softmaxT[T float32 | float64](x []T, cols int, log bool) []T {
	out := make([]T, len(x))
	if cols == 0 {
		return out
	}
	e := make([]float64, cols)
	for r := 0; r < len(x); r += cols {
		row := x[r : r+cols]
		m := math.Inf(-1)
		for _, v := range row {
			if float64(v) > m {
				m = float64(v)
			}
		}
		sum := 0.0
		for j, v := range row {
			// exp(0) is exactly 1: the row's largest value needs no call
			// (half of a two-class head's). Inf - Inf is NaN, not 0.
			if d := float64(v) - m; d == 0 {
				e[j] = 1
			} else {
				e[j] = math.Exp(d)
			}
			sum += e[j]
		}
		if log {
			ls := math.Log(sum)
			for j, v := range row {
				out[r+j] = T(float64(v) - m - ls)
			}
			continue
		}
		for j := range row {
			out[r+j] = T(e[j] / sum)
		}
	}
	return out
}

// ArgMax returns the index of the largest element of input along the axis
// dimension (a scalar int32 or int64 in [-rank, rank)), as an outType
// tensor (int16, int32 or int64) of input's shape without that axis
// (tf.raw_ops.ArgMax; core/kernels/argmax_op.cc: rank 1 to 7, the axis
// must not be empty). Among equal maxima the first index wins, and NaN is
// never the maximum, as Eigen's arg-max reducer evaluated in order (a row
// whose elements are all NaN or below the dtype's lowest finite value
// gives 0). TensorFlow documents ties as unspecified.
func ArgMax(input, dimension *interp.Tensor, outType interp.DType) (*interp.Tensor, error) {
	return argReduce("ArgMax", input, dimension, outType, true)
}

// ArgMin is ArgMax for the smallest element.
func ArgMin(input, dimension *interp.Tensor, outType interp.DType) (*interp.Tensor, error) {
	return argReduce("ArgMin", input, dimension, outType, false)
}

// argMaxRank is the largest input rank of the ArgMax and ArgMin kernels.
const argMaxRank = 7

func argReduce(op string, input, dimension *interp.Tensor, outType interp.DType, isMax bool) (*interp.Tensor, error) {
	if input == nil || !input.DType().IsNumeric() {
		return nil, errorf(op, "unsupported input %v", input)
	}
	if err := checkDType(op, "dimension", dimension, indexTypes()...); err != nil {
		return nil, err
	}
	if dimension.Rank() != 0 {
		return nil, errorf(op, "dim must be a scalar, but received tensor of shape: %s", shapeStr(dimension.Shape()))
	}
	switch outType {
	case interp.Int16, interp.Int32, interp.Int64:
	default:
		return nil, errorf(op, "output_type must be int16, int32 or int64, got %v", outType)
	}
	dim, _ := dimension.Int64At(0)
	rank := int64(input.Rank())
	axis := dim
	if axis < 0 {
		axis += rank
	}
	if axis < 0 || axis >= rank {
		return nil, errorf(op, "Expected dimension in the range [%d, %d), but got %d", -rank, rank, dim)
	}
	shape := input.Shape()
	if shape[axis] == 0 {
		return nil, errorf(op, "Reduction axis %d is empty in shape %s", dim, shapeStr(shape))
	}
	if rank > argMaxRank {
		return nil, errorf(op, "ArgOp : Unhandled input dimensions: %d", rank)
	}
	outer, inner := int64(1), int64(1)
	for _, d := range shape[:axis] {
		outer *= d
	}
	for _, d := range shape[axis+1:] {
		inner *= d
	}
	out := append(append([]int64{}, shape[:axis]...), shape[axis+1:]...)
	var idx []int64
	switch d := input.Data().(type) {
	case []float32:
		idx = argT(d, outer, shape[axis], inner, isMax)
	case []float64:
		idx = argT(d, outer, shape[axis], inner, isMax)
	case []int8:
		idx = argT(d, outer, shape[axis], inner, isMax)
	case []int16:
		idx = argT(d, outer, shape[axis], inner, isMax)
	case []int32:
		idx = argT(d, outer, shape[axis], inner, isMax)
	case []int64:
		idx = argT(d, outer, shape[axis], inner, isMax)
	case []uint8:
		idx = argT(d, outer, shape[axis], inner, isMax)
	}
	if outType == interp.Int16 {
		v := make([]int16, len(idx))
		for i, x := range idx {
			if x > math.MaxInt16 {
				return nil, errorf(op, "index %d does not fit output_type int16", x)
			}
			v[i] = int16(x)
		}
		return interp.New(out, v)
	}
	return newInts(op, outType, out, idx)
}

// argT reduces x viewed as [outer, n, inner] over its middle dimension.
func argT[T number](x []T, outer, n, inner int64, isMax bool) []int64 {
	out := make([]int64, outer*inner)
	for o := range outer {
		for i := range inner {
			best, bi := argStart[T](isMax), int64(0)
			for k := range n {
				v := x[(o*n+k)*inner+i]
				if isMax && v > best || !isMax && v < best {
					best, bi = v, k
				}
			}
			out[o*inner+i] = bi
		}
	}
	return out
}

// argStart is where Eigen's arg-max (arg-min) reducer starts: the lowest
// (highest) finite value of T.
func argStart[T number](isMax bool) T {
	var z T
	switch p := any(&z).(type) {
	case *float32:
		*p = math.MaxFloat32
	case *float64:
		*p = math.MaxFloat64
	default:
		if isMax {
			return lowest[T]()
		}
		return highest[T]()
	}
	if isMax {
		return -z
	}
	return z
}
