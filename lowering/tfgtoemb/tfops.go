package tfgtoemb

import (
	"strings"

	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/textir"
)

// Named operands and results of the TensorFlow ops the matchers read, so
// that they say input(sel, "e") rather than op.Operand(2). The names are
// TensorFlow's (REGISTER_OP's input and output arguments); tfops_test.go
// checks them against frontend/graphdef's op signatures. (A local table
// until dialects/tfg has one of its own.)

// tfArgs holds, for each op, its data inputs and, where the matchers read
// one of several outputs by name, its data outputs ("inputs -> outputs").
// A name ending in "*" is a list argument: it takes the operands the
// others leave.
var tfArgs = map[string]string{
	"Add": "x, y", "AddV2": "x, y", "Sub": "x, y", "Mul": "x, y", "RealDiv": "x, y", "Div": "x, y", "Pow": "x, y",
	"Less": "x, y", "Greater": "x, y", "GreaterEqual": "x, y", "NotEqual": "x, y",
	"LogicalAnd": "x, y", "LogicalOr": "x, y",
	"Sqrt": "x", "Cast": "x", "ZerosLike": "x",
	"Identity": "input", "Snapshot": "input", "Shape": "input", "Size": "input", "Bucketize": "input",
	"StringToHashBucketFast": "input", "AsString": "input", "Where": "input",
	"Reshape":      "tensor, shape",
	"ExpandDims":   "input, dim",
	"Transpose":    "x, perm",
	"Tile":         "input, multiples",
	"Fill":         "dims, value",
	"Range":        "start, limit, delta",
	"Slice":        "input, begin, size",
	"StridedSlice": "input, begin, end, strides",
	"Pack":         "values*",
	"Unpack":       "value",
	"ConcatV2":     "values*, axis",
	"AddN":         "inputs*",
	"Sum":          "input, reduction_indices", "Prod": "input, reduction_indices",
	"Select": "condition, t, e", "SelectV2": "condition, t, e",
	"GatherV2": "params, indices, axis", "Gather": "params, indices", "GatherNd": "params, indices",
	"ResourceGather":   "resource, indices",
	"ReadVariableOp":   "resource",
	"Unique":           "x -> y, idx",
	"SegmentSum":       "data, segment_ids",
	"SparseSegmentSum": "data, indices, segment_ids", "SparseSegmentMean": "data, indices, segment_ids",
	"SparseSegmentSqrtN":  "data, indices, segment_ids",
	"SparseFillEmptyRows": "indices, values, dense_shape, default_value -> output_indices, output_values, empty_row_indicator, reverse_index_map",
	"SparseReshape":       "input_indices, input_shape, new_shape -> output_indices, output_shape",
	"StringSplitV2":       "input, sep -> indices, values, shape",
	"LookupTableFindV2":   "table_handle, keys, default_value",
	"LookupTableSizeV2":   "table_handle",
	"LookupTableImportV2": "table_handle, keys, values", "LookupTableImport": "table_handle, keys, values",
	"InitializeTableV2": "table_handle, keys, values", "InitializeTable": "table_handle, keys, values",
}

// tfSig is an entry of tfArgs, split.
type tfSig struct{ in, out args }

// args are argument names (without "*") and the position of the list
// argument among them, or -1.
type args struct {
	names []string
	list  int
}

// tfSigs is tfArgs by full op name ("tfg.Select").
var tfSigs = parseTFArgs(tfArgs)

func parseTFArgs(m map[string]string) map[string]*tfSig {
	split := func(s string) args {
		a := args{list: -1}
		for _, f := range strings.Split(s, ",") {
			if f = strings.TrimSpace(f); f == "" {
				continue
			}
			if n, ok := strings.CutSuffix(f, "*"); ok {
				a.list, f = len(a.names), n
			}
			a.names = append(a.names, f)
		}
		return a
	}
	sigs := make(map[string]*tfSig, len(m))
	for op, text := range m {
		ins, outs, _ := strings.Cut(text, "->")
		sigs["tfg."+op] = &tfSig{in: split(ins), out: split(outs)}
	}
	return sigs
}

// position returns the range [lo, hi) of the values of argument name
// among n values.
func (a args) position(name string, n int) (lo, hi int, ok bool) {
	for k, x := range a.names {
		if x != name {
			continue
		}
		switch {
		case a.list < 0 || k < a.list:
			lo, hi = k, k+1
		case k == a.list:
			lo, hi = k, n-(len(a.names)-1-k)
		default:
			lo = n - (len(a.names) - k)
			hi = lo + 1
		}
		return lo, hi, lo >= 0 && lo <= hi && hi <= n
	}
	return 0, 0, false
}

// input returns op's data input name, or nil (op nil or not in tfArgs, no such
// input, or a list input).
func input(op *textir.Operation, name string) *textir.Value {
	if op == nil {
		return nil
	}
	s := tfSigs[op.Name()]
	if s == nil {
		return nil
	}
	lo, hi, ok := s.in.position(name, numArgs(op))
	if !ok || hi != lo+1 {
		return nil
	}
	return op.Operand(lo)
}

// soleInput returns the input of an op of one input (Identity's "input",
// Cast's "x", ...), or nil.
func soleInput(op *textir.Operation) *textir.Value {
	if op == nil {
		return nil
	}
	if s := tfSigs[op.Name()]; s != nil && len(s.in.names) == 1 {
		return input(op, s.in.names[0])
	}
	return nil
}

// inputs returns the values of op's list input name (Pack's "values").
func inputs(op *textir.Operation, name string) []*textir.Value {
	if op == nil {
		return nil
	}
	s := tfSigs[op.Name()]
	if s == nil {
		return nil
	}
	lo, hi, ok := s.in.position(name, numArgs(op))
	if !ok {
		return nil
	}
	return op.Operands()[lo:hi]
}

// output returns op's data output name, for the ops whose outputs tfArgs
// names, or nil.
func output(op *textir.Operation, name string) *textir.Value {
	if op == nil {
		return nil
	}
	s := tfSigs[op.Name()]
	if s == nil {
		return nil
	}
	lo, hi, ok := s.out.position(name, len(tfg.DataResults(op)))
	if !ok || hi != lo+1 {
		return nil
	}
	return op.Result(lo)
}

// isOutput reports whether v is the output name of the op that defines it.
func isOutput(v *textir.Value, name string) bool {
	return v != nil && output(v.DefiningOp(), name) == v
}
