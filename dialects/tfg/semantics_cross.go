package tfg

import (
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/interp/tfops"
	"github.com/recom-compiler/recom/textir"
)

// The sparse crosses (interp/tfops/cross.go has their semantics).
func registerCross() {
	reg("SparseCross", sparseCross)
	reg("SparseCrossV2", sparseCrossV2)
	reg("SparseCrossHashed", sparseCrossHashed)
}

// crossLists splits the data inputs of a sparse cross into its lists:
// indices[N], values[N], shapes[N], dense_inputs[M], then extra scalar
// inputs. M is the length of the dense_types attribute.
func crossLists(op *textir.Operation, in []*interp.Tensor, extra int) (indices, values, shapes, dense, rest []*interp.Tensor, err error) {
	d := data(in)
	n := int(attrInt(op, "N", 0))
	dt, err := attrTypes(op, "dense_types")
	if err != nil {
		return nil, nil, nil, nil, nil, err
	}
	m := len(dt)
	if n < 0 || len(d) != 3*n+m+extra {
		return nil, nil, nil, nil, nil, op.Errorf("expects %d sparse inputs (3 tensors each), %d dense inputs and %d more, got %d inputs", n, m, extra, len(d))
	}
	return d[:n], d[n : 2*n], d[2*n : 3*n], d[3*n : 3*n+m], d[3*n+m:], nil
}

// runCross computes a cross and makes its SparseTensor.
func runCross(op *textir.Operation, indices, values, shapes, dense []*interp.Tensor, s tfops.CrossSpec) ([]*interp.Tensor, error) {
	name := op.Name()
	cols, batch, err := tfops.SparseCrossInputs(name, indices, values, shapes, dense)
	if err != nil {
		return nil, op.Errorf("%v", err)
	}
	splits, vals, maxCount, err := tfops.Cross(name, cols, batch, s)
	if err != nil {
		return nil, op.Errorf("%v", err)
	}
	ind, shape, err := tfops.SparseCrossOutputs(splits, vals, maxCount)
	if err != nil {
		return nil, op.Errorf("%v", err)
	}
	return []*interp.Tensor{ind, vals, shape}, nil
}

// sparseCross is SparseCross: out_type int64 hashes (TensorFlow's kernels
// are registered by out_type; hashed_output is what the Python wrapper
// sets with it), out_type string joins the features with "_X_". With
// internal_type string, integer inputs are refused, as TensorFlow does.
func sparseCross(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
	indices, values, shapes, dense, _, err := crossLists(op, in, 0)
	if err != nil {
		return nil, err
	}
	hashed := attrBool(op, "hashed_output", false)
	if op.Attr("out_type") != nil {
		out, err := attrType(op, "out_type")
		if err != nil {
			return nil, err
		}
		hashed = out == interp.Int64
	}
	if op.Attr("internal_type") != nil {
		it, err := attrType(op, "internal_type")
		if err != nil {
			return nil, err
		}
		if it == interp.String {
			for _, t := range append(append([]*interp.Tensor{}, values...), dense...) {
				if t.DType() == interp.Int64 {
					return nil, op.Errorf("input values should be of internal type string but received int64")
				}
			}
		}
	}
	s := tfops.CrossSpec{Mode: tfops.CrossJoin, Sep: "_X_"}
	if hashed {
		s = tfops.CrossSpec{Mode: tfops.CrossHashKey, NumBuckets: attrInt(op, "num_buckets", 0), HashKey: uint64(attrInt(op, "hash_key", 0))}
		if s.NumBuckets < 0 {
			return nil, op.Errorf("num_buckets must be >= 0, got %d", s.NumBuckets)
		}
	}
	return runCross(op, indices, values, shapes, dense, s)
}

// sparseCrossV2 is SparseCrossV2: the features joined with the scalar
// string input sep.
func sparseCrossV2(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
	indices, values, shapes, dense, rest, err := crossLists(op, in, 1)
	if err != nil {
		return nil, err
	}
	sep := rest[0]
	if sep.DType() != interp.String || sep.Rank() != 0 {
		return nil, op.Errorf("input separator should be a scalar string, got %v of shape %s", sep.DType(), interp.ShapeString(sep.Shape()))
	}
	return runCross(op, indices, values, shapes, dense, tfops.CrossSpec{Mode: tfops.CrossJoin, Sep: sep.Strings()[0]})
}

// sparseCrossHashed is SparseCrossHashed(..., num_buckets, strong_hash,
// salt): see tfops.CrossHashedV2.
func sparseCrossHashed(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
	indices, values, shapes, dense, rest, err := crossLists(op, in, 3)
	if err != nil {
		return nil, err
	}
	nb, strong, salt := rest[0], rest[1], rest[2]
	if nb.DType() != interp.Int64 || nb.Rank() != 0 {
		return nil, op.Errorf("num_buckets should be a scalar int64, got %v of shape %s", nb.DType(), interp.ShapeString(nb.Shape()))
	}
	if strong.DType() != interp.Bool || strong.Rank() != 0 {
		return nil, op.Errorf("strong_hash should be a scalar bool, got %v of shape %s", strong.DType(), interp.ShapeString(strong.Shape()))
	}
	if salt.DType() != interp.Int64 || salt.Len() != 2 {
		return nil, op.Errorf(`input "salt" must be int64 of length 2 but has %v of shape %s`, salt.DType(), interp.ShapeString(salt.Shape()))
	}
	s := tfops.CrossSpec{Mode: tfops.CrossHashedV2, NumBuckets: nb.Int64s()[0], Strong: strong.Bools()[0],
		Salt: [2]uint64{uint64(salt.Int64s()[0]), uint64(salt.Int64s()[1])}}
	return runCross(op, indices, values, shapes, dense, s)
}
