package tfg

// The interpreter semantics of the ops embedding_lookup writes for a
// partitioned table (DynamicPartition of the ids by shard, a gather per
// shard, ParallelDynamicStitch of the rows) and of DivNoNan (the mean and
// sqrtn combiners of a weighted embedding_lookup_sparse in TF 2.x).

import (
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/interp/tfops"
	"github.com/recom-compiler/recom/textir"
)

func init() {
	reg("DivNoNan", binary(tfops.DivNoNan))
	reg("DynamicPartition", func(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
		d, err := nIn(op, in, 2)
		if err != nil {
			return nil, err
		}
		n := attrInt(op, "num_partitions", 0)
		if want := op.NumResults() - 1; int64(want) != n {
			return nil, op.Errorf("num_partitions = %d, but the op has %d data results", n, want)
		}
		out, err := tfops.DynamicPartition(d[0], d[1], n)
		if err != nil {
			return nil, err
		}
		return out, nil
	})
	stitch := func(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
		d := data(in)
		if len(d) == 0 || len(d)%2 != 0 {
			return nil, op.Errorf("expects N indices and N data tensors, got %d inputs", len(d))
		}
		n := len(d) / 2
		out, err := tfops.DynamicStitch(d[:n], d[n:])
		if err != nil {
			return nil, err
		}
		return []*interp.Tensor{out}, nil
	}
	reg("DynamicStitch", stitch)
	reg("ParallelDynamicStitch", stitch)
}
