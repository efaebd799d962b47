package gen

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/dialects/tfg/optab"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/textir"
)

// This file finds out what a graph accepts at each input: it follows the
// uses of every Placeholder's values through the ops that pass them on
// unchanged (Identity, Reshape, ExpandDims, the params of a gather, the
// values of SparseFillEmptyRows, Unique, Cast, ...) to the ops that give
// them a meaning (a vocabulary lookup, Bucketize, a hash, a gather from a
// table of known size, a comparison with a constant, a string split, a
// tf.Example parse, the three parts of a sparse tensor). graphfeeds.go
// draws values from what it found.

// values is what the graph does with the values of one tensor: a
// placeholder's, the tokens of a split string, a tf.Example feature's.
type values struct {
	dtype interp.DType
	// lookups are the LookupTableFindV2 ops whose keys the values are.
	lookups []*textir.Operation
	// boundaries are the Bucketize boundaries the values meet, sorted.
	boundaries []float64
	// hashed: the values are hashed, formatted or crossed (any is valid).
	hashed bool
	// thresholds are the constants the values are compared with (x < c,
	// x >= c: c; x > c, x <= c: c+1 for integers, just above c for
	// floats): range checks. trueAbove says, per threshold, whether the
	// comparison holds above it (x > c, x >= c).
	thresholds []float64
	trueAbove  []bool
	// limit bounds ids that index a table: [0, limit) (0: none); limitBy
	// is the node of the table.
	limit   int64
	limitBy string
	// depth is a OneHot's depth: ids in [0, depth) set a one, others none.
	depth int64
	// pad is the padding value (x != pad selects the present values), nil
	// when the graph has none.
	pad *interp.Tensor
	// split: the strings are split into tokens.
	split *splitUse
	// number: the strings are parsed as numbers (StringToNumber), whose
	// uses these are.
	number *values
	// parses are the tf.Example parse ops that read the strings.
	parses []*textir.Operation
	// used reports whether anything uses the values at all.
	used bool
	// segments: the values (a sparse tensor's row numbers) are segment
	// ids as they are, without SparseFillEmptyRows: embedding_lookup_sparse
	// assumes every row has a value.
	segments bool
}

// splitUse is a StringSplit or StringSplitV2 of the values.
type splitUse struct {
	sep    string
	tokens *values
}

// sparseRole is a placeholder's part in a sparse tensor.
type sparseRole int

const (
	notSparse sparseRole = iota
	sparseIndices
	sparseValues
	sparseShape
)

// sparseGroup is a sparse tensor fed as three placeholders.
type sparseGroup struct {
	indices, values, shape *input
	// like is the group whose indices these must be (sparse weights and
	// their ids): pairSparse.
	like *sparseGroup
}

// input is one placeholder and what its values are for.
type input struct {
	op    *textir.Operation
	name  string
	dtype interp.DType
	// shape is the placeholder's shape (-1 unknown); nil with unknownRank.
	shape       []int64
	unknownRank bool
	vals        *values
	role        sparseRole
	group       *sparseGroup
	// aligned are the padded inputs (this one among them) whose values
	// the graph pairs element by element (a weighted column's ids and
	// weights): their padding must be at the same places.
	aligned []*input
}

// analysis finds the inputs of a module and their uses.
type analysis struct {
	inputs []*input
	byOp   map[*textir.Operation]*input
}

// analyze finds every tfg.Placeholder of m and what its values are for.
func analyze(m *textir.Operation) (*analysis, error) {
	a := &analysis{byOp: map[*textir.Operation]*input{}}
	var bad error
	m.Walk(func(op *textir.Operation) bool {
		if op.Name() != "tfg.Placeholder" {
			return true
		}
		in := &input{op: op, name: tfg.NodeName(op)}
		ta, _ := op.Attr("dtype").(textir.TypeAttr)
		dt, ok := exec.DTypeOf(ta.Type)
		if ta.Type == nil || !ok {
			if bad == nil {
				bad = op.Errorf("placeholder %q: no feed can be drawn for its dtype %v", in.name, ta.Type)
			}
			return false
		}
		in.dtype = dt
		if s, ok := tfg.ShapeOf(op.Attr("shape")); ok && !s.UnknownRank {
			in.shape = slices.Clone(s.Dims)
		} else if t, ok := op.Result(0).Type().(*textir.TensorType); ok {
			in.shape = slices.Clone(t.Shape)
		} else {
			in.unknownRank = true
		}
		a.inputs = append(a.inputs, in)
		a.byOp[op] = in
		return false
	})
	if bad != nil {
		return nil, bad
	}
	for _, in := range a.inputs {
		in.vals = &values{dtype: in.dtype}
		follow(in.op.Result(0), in.vals, map[*textir.Value]bool{})
	}
	a.findSparse(m)
	a.alignPadded()
	return a, nil
}

// alignDepth is how far (in ops) the uses of two padded inputs are
// followed to find an op where they meet.
const alignDepth = 10

// alignPadded groups the padded inputs of one shape whose uses meet within
// alignDepth ops: a weighted categorical column gathers its weights with
// the positions of its valid ids, so the two must have their padding at
// the same places. (Inputs that only meet further on, in the layer's
// concatenation, are left apart; a group too wide only makes its
// members' padding alike, which the graph accepts.)
func (a *analysis) alignPadded() {
	parent := map[*input]*input{}
	var find func(x *input) *input
	find = func(x *input) *input {
		if p, ok := parent[x]; ok && p != x {
			root := find(p)
			parent[x] = root
			return root
		}
		return x
	}
	type key struct {
		op    *textir.Operation
		shape string
	}
	first := map[key]*input{} // the first padded input of a shape to reach an op
	var padded []*input
	for _, in := range a.inputs {
		if in.vals.pad == nil || in.role != notSparse || in.unknownRank || len(in.shape) == 0 {
			continue
		}
		padded = append(padded, in)
		shape := fmt.Sprint(in.shape)
		for op := range reachable(in.op.Result(0), alignDepth) {
			k := key{op, shape}
			if other, ok := first[k]; ok {
				if x, y := find(other), find(in); x != y {
					parent[y] = x
				}
				continue
			}
			first[k] = in
		}
	}
	groups := map[*input][]*input{}
	for _, in := range padded {
		r := find(in)
		groups[r] = append(groups[r], in)
	}
	for _, g := range groups {
		if len(g) > 1 {
			for _, in := range g {
				in.aligned = g
			}
		}
	}
}

// reachable returns the ops that use v's values within depth steps (not
// through its shape, a cross, or the ops that gather a layer's columns).
func reachable(v *textir.Value, depth int) map[*textir.Operation]bool {
	seen := map[*textir.Operation]bool{}
	front := []*textir.Value{v}
	for range depth {
		var next []*textir.Value
		for _, w := range front {
			for op := range w.Users() {
				if seen[op] {
					continue
				}
				switch op.Name() {
				case "tfg.Shape", "tfg.ShapeN", "tfg.Size", "tfg.Rank", "tfg.SparseCross",
					"tfg.ConcatV2", "tfg.Concat", "tfg.AddN", "tfg.MatMul", "tfg.BatchMatMulV2":
					// Shapes feed every column's reshapes, a cross takes
					// its inputs' values each with its own indices, and
					// the layer's concatenation, sum or product gathers
					// every column: none pairs values.
					continue
				}
				seen[op] = true
				next = append(next, tfg.DataResults(op)...)
			}
		}
		front = next
	}
	return seen
}

// follow records the uses of v in vals, going on through the ops that pass
// the values on unchanged.
func follow(v *textir.Value, vals *values, seen map[*textir.Value]bool) {
	if seen[v] {
		return
	}
	seen[v] = true
	for u := range v.Uses() {
		op := u.Owner()
		i := u.Index()
		if tfg.IsControl(v.Type()) {
			continue
		}
		vals.used = true
		name, _ := strings.CutPrefix(op.Name(), "tfg.")
		is := func(arg string) bool { return argAt(op, i) == arg }
		on := func(results ...*textir.Value) {
			for _, r := range results {
				if r != nil {
					follow(r, vals, seen)
				}
			}
		}
		switch name {
		case "Identity", "Snapshot", "StopGradient", "PreventGradient", "CheckNumerics", "Cast",
			"ExpandDims", "Squeeze", "Tile", "Transpose", "BroadcastTo", "ConcatV2", "Concat", "Pack":
			if rs := tfg.DataResults(op); len(rs) > 0 && (is("input") || is("x") || is("tensor") || is("values")) {
				on(rs[0])
			}
		case "Reshape":
			if is("tensor") {
				if rows, by, ok := partitionedLookup(op); ok {
					vals.bound(rows, by)
					continue
				}
				on(optab.Result(op, "output"))
			}
		case "Slice", "StridedSlice":
			if is("input") {
				on(optab.Result(op, "output"))
			}
		case "Unpack", "Split", "SplitV":
			if is("value") {
				on(tfg.DataResults(op)...)
			}
		case "IdentityN":
			if rs := tfg.DataResults(op); i < len(rs) {
				on(rs[i])
			}
		case "Gather", "GatherV2", "GatherNd":
			if is("params") {
				on(optab.Result(op, "output"))
			}
			if is("indices") && name != "GatherNd" {
				vals.bound(tableRows(optab.Operand(op, "params")))
			}
		case "ResourceGather":
			if is("indices") {
				vals.bound(tableRows(optab.Operand(op, "resource")))
			}
		case "SparseSegmentSum", "SparseSegmentMean", "SparseSegmentSqrtN",
			"SparseSegmentSumWithNumSegments", "SparseSegmentMeanWithNumSegments", "SparseSegmentSqrtNWithNumSegments":
			if is("indices") {
				vals.bound(tableRows(optab.Operand(op, "data")))
			}
			if is("segment_ids") && !strings.HasSuffix(name, "WithNumSegments") {
				vals.segments = true
			}
		case "SegmentSum", "SegmentMean":
			if is("segment_ids") {
				vals.segments = true
			}
		case "Unique", "UniqueV2":
			if is("x") {
				on(optab.Result(op, "y"))
			}
		case "Select", "SelectV2":
			if is("t") || is("e") {
				on(optab.Result(op, "output"))
			}
		case "SparseFillEmptyRows":
			if is("values") {
				on(optab.Result(op, "output_values"))
			}
		case "SparseToDense":
			if is("sparse_values") {
				on(optab.Result(op, "dense"))
			}
		case "Bucketize":
			if b, ok := op.Attr("boundaries").(textir.ArrayAttr); ok {
				for _, e := range b.Elems {
					if f, ok := e.(textir.FloatAttr); ok {
						vals.boundaries = append(vals.boundaries, f.Value)
					}
				}
				slices.Sort(vals.boundaries)
				vals.boundaries = slices.Compact(vals.boundaries)
			}
		case "LookupTableFindV2":
			if is("keys") && !slices.Contains(vals.lookups, op) {
				vals.lookups = append(vals.lookups, op)
			}
		case "StringToHashBucketFast", "StringToHashBucketStrong", "StringToHashBucket", "AsString", "SparseCross", "StringJoin":
			vals.hashed = true
		case "StringToNumber":
			if vals.number == nil {
				dt, _ := attrDType(op, "out_type")
				vals.number = &values{dtype: dt}
			}
			follow(optab.Result(op, "output"), vals.number, map[*textir.Value]bool{})
		case "StringSplit", "StringSplitV2":
			if !is("input") {
				continue
			}
			sepArg := "sep"
			if name == "StringSplit" {
				sepArg = "delimiter"
			}
			sep := " "
			if c, ok := constOf(optab.Operand(op, sepArg)); ok && c.DType() == interp.String && c.Len() == 1 {
				sep = c.Strings()[0]
			}
			if vals.split == nil {
				vals.split = &splitUse{sep: sep, tokens: &values{dtype: interp.String}}
			}
			follow(optab.Result(op, "values"), vals.split.tokens, map[*textir.Value]bool{})
		case "ParseExample", "ParseExampleV2":
			if is("serialized") && !slices.Contains(vals.parses, op) {
				vals.parses = append(vals.parses, op)
			}
		case "NotEqual", "Equal":
			if c, ok := constOf(otherOperand(op, i)); ok && c.Len() == 1 && vals.pad == nil {
				vals.pad = c
			}
		case "Less", "GreaterEqual", "Greater", "LessEqual":
			c, ok := constOf(otherOperand(op, i))
			if !ok || c.Len() != 1 || c.DType() == interp.String {
				continue
			}
			t := c.Float64At(0)
			// The threshold is where the comparison flips, as the first
			// value of the upper side: x < c and x >= c flip at c; x > c
			// and x <= c at c+1 (integers) or just above c (floats).
			upperStrict := (name == "Greater" || name == "LessEqual") == (i == 0)
			if upperStrict {
				if vals.dtype.IsInteger() {
					t++
				} else {
					t = math.Nextafter(t, math.Inf(1))
				}
			}
			if !slices.Contains(vals.thresholds, t) {
				k, _ := slices.BinarySearch(vals.thresholds, t)
				vals.thresholds = slices.Insert(vals.thresholds, k, t)
				vals.trueAbove = slices.Insert(vals.trueAbove, k, (name == "Greater" || name == "GreaterEqual") == (i == 0))
			}
		case "OneHot":
			if is("indices") {
				if d, ok := constOf(optab.Operand(op, "depth")); ok && d.Len() == 1 {
					if n, ok := d.Int64At(0); ok && n > 0 {
						vals.depth = max(vals.depth, n)
					}
				}
			}
		}
	}
}

// otherOperand returns the operand of binary op op that is not operand i
// (nil when op is not binary).
func otherOperand(op *textir.Operation, i int) *textir.Value {
	ds := tfg.DataOperands(op)
	if len(ds) != 2 || i > 1 {
		return nil
	}
	return ds[1-i]
}

// bound notes that the values index a table of rows rows (0: unknown).
func (v *values) bound(rows int64, by string) {
	if rows <= 0 {
		if v.limit == 0 {
			v.limitBy = by
			v.limit = -1 // a table of unknown size
		}
		return
	}
	if v.limit <= 0 || rows < v.limit {
		v.limit, v.limitBy = rows, by
	}
}

// argAt returns the name of the input argument of tfg op op that its
// operand i belongs to ("" when the op is not in the op table).
func argAt(op *textir.Operation, i int) string {
	o, ok := optab.Of(op.Name())
	if !ok {
		return ""
	}
	for _, a := range o.Inputs {
		if lo, hi, ok := o.InputRange(op, a.Name); ok && i >= lo && i < hi {
			return a.Name
		}
	}
	return ""
}

// tableRows returns the number of rows of the table that v is (through
// Identity and ReadVariableOp, to a variable, a resource variable or a
// constant), 0 when it cannot tell, and the table's node.
func tableRows(v *textir.Value) (int64, string) {
	for range 64 {
		if v == nil {
			return 0, ""
		}
		if t, ok := v.Type().(*textir.TensorType); ok && len(t.Shape) > 0 && t.Shape[0] >= 0 && !tfg.IsString(t) &&
			textir.ElementType(t) != tfg.Resource() {
			if d := v.DefiningOp(); d != nil {
				return t.Shape[0], tfg.NodeName(d)
			}
		}
		d := v.DefiningOp()
		if d == nil {
			return 0, ""
		}
		switch d.Name() {
		case "tfg.Const":
			if a, ok := d.Attr("value").(*textir.DenseElementsAttr); ok && len(a.Type.Shape) > 0 {
				return a.Type.Shape[0], tfg.NodeName(d)
			}
			return 0, tfg.NodeName(d)
		case "tfg.VariableV2", "tfg.Variable", "tfg.VarHandleOp":
			if s, ok := tfg.ShapeOf(d.Attr("shape")); ok && !s.UnknownRank && len(s.Dims) > 0 && s.Dims[0] >= 0 {
				return s.Dims[0], tfg.NodeName(d)
			}
			return 0, tfg.NodeName(d)
		case "tfg.Identity", "tfg.ReadVariableOp", "tfg.Snapshot", "tfg.Enter":
			v = tfg.DataOperands(d)[0]
		default:
			return 0, tfg.NodeName(d)
		}
	}
	return 0, ""
}

// constOf returns the value of the constant that v is, looking through
// Identity and Cast (a Cast's operand's values, uncast).
func constOf(v *textir.Value) (*interp.Tensor, bool) {
	for range 16 {
		if v == nil || v.DefiningOp() == nil {
			return nil, false
		}
		d := v.DefiningOp()
		switch d.Name() {
		case "tfg.Const":
			a, ok := d.Attr("value").(*textir.DenseElementsAttr)
			if !ok {
				return nil, false
			}
			t, err := tfg.TensorFromAttr(a)
			return t, err == nil
		case "tfg.Identity", "tfg.Cast", "tfg.Snapshot":
			v = tfg.DataOperands(d)[0]
		default:
			return nil, false
		}
	}
	return nil, false
}

// attrDType reads a type attribute of op as an interpreter dtype.
func attrDType(op *textir.Operation, name string) (interp.DType, bool) {
	ta, ok := op.Attr(name).(textir.TypeAttr)
	if !ok {
		return 0, false
	}
	return exec.DTypeOf(ta.Type)
}

// sparseOps name the operands of the ops that take a sparse tensor as
// three tensors: indices, values, dense shape.
var sparseOps = map[string][3]string{
	"SparseFillEmptyRows":     {"indices", "values", "dense_shape"},
	"SparseReshape":           {"input_indices", "", "input_shape"},
	"SparseToDense":           {"sparse_indices", "sparse_values", "output_shape"},
	"SparseTensorDenseMatMul": {"a_indices", "a_values", "a_shape"},
}

// findSparse finds the placeholders that are the parts of one sparse
// tensor: the indices, values and shape operands of an op that takes a
// sparse tensor (SparseCross's i-th of each list), or, as
// tf.sparse_placeholder names them, "P/indices", "P/values" and "P/shape".
func (a *analysis) findSparse(m *textir.Operation) {
	join := func(parts [3]*textir.Value) {
		var ins [3]*input
		n := 0
		for k, v := range parts {
			if p := rootPlaceholder(v); p != nil {
				ins[k] = a.byOp[p]
				n++
			}
		}
		if n == 0 || (ins[0] == nil && ins[2] == nil) {
			return
		}
		var g *sparseGroup
		for _, in := range ins {
			if in != nil && in.group != nil {
				g = in.group
			}
		}
		if g == nil {
			g = &sparseGroup{}
		}
		for k, in := range ins {
			if in == nil || (in.group != nil && in.group != g) {
				continue
			}
			slot := [3]**input{&g.indices, &g.values, &g.shape}[k]
			if *slot == nil {
				*slot, in.group, in.role = in, g, sparseRole(k+1)
			}
		}
	}
	m.Walk(func(op *textir.Operation) bool {
		name, _ := strings.CutPrefix(op.Name(), "tfg.")
		if args, ok := sparseOps[name]; ok {
			var parts [3]*textir.Value
			for k, arg := range args {
				if arg != "" {
					parts[k] = optab.Operand(op, arg)
				}
			}
			join(parts)
		}
		if name == "SparseCross" {
			ind, vs, sh := optab.Operands(op, "indices"), optab.Operands(op, "values"), optab.Operands(op, "shapes")
			for k := range ind {
				if k < len(vs) && k < len(sh) {
					join([3]*textir.Value{ind[k], vs[k], sh[k]})
				}
			}
		}
		return true
	})
	byName := map[string]*input{}
	for _, in := range a.inputs {
		byName[in.name] = in
	}
	for _, in := range a.inputs {
		base, ok := strings.CutSuffix(in.name, "/indices")
		if !ok {
			continue
		}
		vals, shape := byName[base+"/values"], byName[base+"/shape"]
		if shape == nil {
			shape = byName[base+"/dense_shape"]
		}
		if g := in.group; g != nil {
			// A group an op made of the indices and the shape alone
			// (SparseReshape): the values by their name.
			if g.indices == in && g.values == nil && vals != nil && vals.group == nil && (shape == nil || g.shape == shape) {
				g.values, vals.group, vals.role = vals, g, sparseValues
			}
			continue
		}
		// The shape may be gone (a cut keeps what the outputs need, and
		// embedding_lookup_sparse reads no dense shape).
		if vals == nil || vals.group != nil || (shape != nil && shape.group != nil) {
			continue
		}
		g := &sparseGroup{indices: in, values: vals, shape: shape}
		in.group, vals.group = g, g
		in.role, vals.role = sparseIndices, sparseValues
		if shape != nil {
			shape.group, shape.role = g, sparseShape
		}
	}
	a.pairSparse()
}

// rootPlaceholder returns the Placeholder whose values v is (through
// Identity), or nil.
func rootPlaceholder(v *textir.Value) *textir.Operation {
	for range 16 {
		if v == nil || v.DefiningOp() == nil {
			return nil
		}
		d := v.DefiningOp()
		switch d.Name() {
		case "tfg.Placeholder":
			return d
		case "tfg.Identity", "tfg.Snapshot":
			v = tfg.DataOperands(d)[0]
		default:
			return nil
		}
	}
	return nil
}

// exampleFeature is one feature a tf.Example parse op reads.
type exampleFeature struct {
	key   string
	dtype interp.DType
	// dense: a fixed shape per example (shape; a leading -1 is a
	// variable number of rows), with a default when hasDefault.
	dense      bool
	shape      []int64
	hasDefault bool
	vals       *values
}

// exampleFeatures returns the features that the ParseExample or
// ParseExampleV2 op reads, with what the graph does with each feature's
// values, sorted by key.
func exampleFeatures(op *textir.Operation) ([]*exampleFeature, error) {
	name, _ := strings.CutPrefix(op.Name(), "tfg.")
	keys := func(arg string) ([]string, error) {
		var out []string
		for _, v := range optab.Operands(op, arg) {
			c, ok := constOf(v)
			if !ok || c.DType() != interp.String {
				return nil, op.Errorf("the %s of %s are not string constants", arg, name)
			}
			out = append(out, c.Strings()...)
		}
		return out, nil
	}
	types := func(attr string) []interp.DType {
		var out []interp.DType
		if l, ok := op.Attr(attr).(textir.ArrayAttr); ok {
			for _, e := range l.Elems {
				ta, _ := e.(textir.TypeAttr)
				dt, _ := exec.DTypeOf(ta.Type)
				out = append(out, dt)
			}
		}
		return out
	}
	sparseKeys, err := keys("sparse_keys")
	if err != nil {
		return nil, err
	}
	denseKeys, err := keys("dense_keys")
	if err != nil {
		return nil, err
	}
	var raggedKeys []string
	if name == "ParseExampleV2" {
		if raggedKeys, err = keys("ragged_keys"); err != nil {
			return nil, err
		}
	}
	sparseTypes, denseTypes, raggedTypes := types("sparse_types"), types("Tdense"), types("ragged_value_types")
	var denseShapes [][]int64
	if l, ok := op.Attr("dense_shapes").(textir.ArrayAttr); ok {
		for _, e := range l.Elems {
			s, ok := tfg.ShapeOf(e)
			if !ok || s.UnknownRank {
				denseShapes = append(denseShapes, nil)
				continue
			}
			denseShapes = append(denseShapes, s.Dims)
		}
	}
	sparseVals, denseVals := optab.Results(op, "sparse_values"), optab.Results(op, "dense_values")
	raggedVals := optab.Results(op, "ragged_values")
	defaults := optab.Operands(op, "dense_defaults")
	if len(sparseTypes) != len(sparseKeys) || len(sparseVals) != len(sparseKeys) ||
		len(denseTypes) != len(denseKeys) || len(denseShapes) != len(denseKeys) || len(denseVals) != len(denseKeys) ||
		len(defaults) != len(denseKeys) || len(raggedTypes) != len(raggedKeys) || len(raggedVals) != len(raggedKeys) {
		return nil, op.Errorf("%s: its keys (%d sparse, %d dense, %d ragged) disagree with its types, shapes, defaults or results",
			name, len(sparseKeys), len(denseKeys), len(raggedKeys))
	}
	var out []*exampleFeature
	add := func(f *exampleFeature, v *textir.Value) {
		f.vals = &values{dtype: f.dtype}
		follow(v, f.vals, map[*textir.Value]bool{})
		out = append(out, f)
	}
	for k, key := range sparseKeys {
		add(&exampleFeature{key: key, dtype: sparseTypes[k]}, sparseVals[k])
	}
	for k, key := range raggedKeys {
		add(&exampleFeature{key: key, dtype: raggedTypes[k]}, raggedVals[k])
	}
	for k, key := range denseKeys {
		f := &exampleFeature{key: key, dtype: denseTypes[k], dense: true, shape: denseShapes[k]}
		if c, ok := constOf(defaults[k]); ok && c.Len() > 0 {
			f.hasDefault = true
		} else if !ok {
			// A default computed by the graph: not an empty constant.
			f.hasDefault = true
		}
		add(f, denseVals[k])
	}
	for _, f := range out {
		if f.dtype != interp.Int64 && f.dtype != interp.Float32 && f.dtype != interp.String {
			return nil, op.Errorf("%s: feature %q has type %v; tf.Example holds int64, float and string features only", name, f.key, f.dtype)
		}
	}
	slices.SortStableFunc(out, func(x, y *exampleFeature) int { return cmp.Compare(x.key, y.key) })
	return out, nil
}
