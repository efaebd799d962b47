package tfg

import (
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/interp/tfops"
	"github.com/recom-compiler/recom/textir"
)

// The semantics of ParseExample and ParseExampleV2 (tfops.ParseExample):
// the kernels split the op's operands by the signature's counts and pass
// its attributes.

func registerExample() {
	reg("ParseExample", parseExample(1))
	reg("ParseExampleV2", parseExample(2))
}

// maxExampleFeatures bounds the feature counts read from attributes, as
// optab's argument counts do.
const maxExampleFeatures = 1 << 20

func parseExample(version int) exec.Kernel {
	return func(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
		d := data(in)
		a := tfops.ParseExampleAttrs{Version: version}
		var err error
		if a.SparseTypes, err = attrTypes(op, "sparse_types"); err != nil {
			return nil, err
		}
		if a.DenseTypes, err = attrTypes(op, "Tdense"); err != nil {
			return nil, err
		}
		if a.DenseShapes, err = attrShapes(op, "dense_shapes"); err != nil {
			return nil, err
		}
		var ins tfops.ParseExampleInputs
		nDefaults := len(a.DenseTypes)
		if version == 1 {
			a.NumSparse, a.NumDense = attrInt(op, "Nsparse", 0), attrInt(op, "Ndense", 0)
			if a.NumSparse < 0 || a.NumSparse > maxExampleFeatures || a.NumDense < 0 || a.NumDense > maxExampleFeatures {
				return nil, op.Errorf("Nsparse (%d) and Ndense (%d) must be in [0, %d]", a.NumSparse, a.NumDense, maxExampleFeatures)
			}
			ns, nd := int(a.NumSparse), int(a.NumDense)
			if len(d) != 2+ns+nd+nDefaults {
				return nil, op.Errorf("expects %d data inputs, got %d", 2+ns+nd+nDefaults, len(d))
			}
			ins = tfops.ParseExampleInputs{Serialized: d[0], Names: d[1], SparseKeys: d[2 : 2+ns], DenseKeys: d[2+ns : 2+ns+nd],
				DenseDefaults: d[2+ns+nd:]}
		} else {
			a.NumSparse = attrInt(op, "num_sparse", 0)
			if a.RaggedValueTypes, err = attrTypes(op, "ragged_value_types"); err != nil {
				return nil, err
			}
			if a.RaggedSplitTypes, err = attrTypes(op, "ragged_split_types"); err != nil {
				return nil, err
			}
			if len(d) != 5+nDefaults {
				return nil, op.Errorf("expects %d data inputs, got %d", 5+nDefaults, len(d))
			}
			ins = tfops.ParseExampleInputs{Serialized: d[0], Names: d[1], SparseKeys: d[2:3], DenseKeys: d[3:4], RaggedKeys: d[4:5],
				DenseDefaults: d[5:]}
		}
		r, err := tfops.ParseExample(a, ins)
		if err != nil {
			return nil, err
		}
		var out []*interp.Tensor
		out = append(out, r.SparseIndices...)
		out = append(out, r.SparseValues...)
		out = append(out, r.SparseShapes...)
		out = append(out, r.DenseValues...)
		if version == 2 {
			out = append(out, r.RaggedValues...)
			out = append(out, r.RaggedRowSplits...)
		}
		return out, nil
	}
}
