package hostpack

import (
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/recom-compiler/recom/dialects/emb"
	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/textir"
)

// colPlan is how one column's regions are made: straight from a feed
// (direct), or by computing the operands in the Packer's buffers (graph).
type colPlan struct {
	c       *abi.Column
	direct  *directPlan
	graph   *graphPlan
	example *exColumn  // read straight from tf.Example records (example.go)
	cross   *crossPlan // a crossed column (cross.go)
	// What the packer reads of the column per batch, read once: its
	// source, whether it has row splits (HasSplits), string slots
	// (StrSlots) and weights, and its table's rows (the ids' range).
	src      source
	splits   bool
	slots    bool
	weighted bool
	rows     int64
	// inputs are the plan inputs the column reads (Plan.Inputs indexes):
	// a direct column's feed, or a graph column's gInput nodes' in node
	// order (a node's local index).
	inputs []int
}

// source is a column's abi source.
type source uint8

const (
	srcIDs source = iota
	srcI64
	srcF32
	srcF64
	srcStr
	srcSplit
)

func sourceOf(s string) source {
	switch s {
	case abi.SourceI64:
		return srcI64
	case abi.SourceF32:
		return srcF32
	case abi.SourceF64:
		return srcF64
	case abi.SourceStr:
		return srcStr
	case abi.SourceSplit:
		return srcSplit
	}
	return srcIDs
}

// takes reports whether the source takes values of dt (sourceTakes).
func (s source) takes(dt interp.DType) bool {
	switch s {
	case srcIDs, srcI64:
		return dt.IsInteger()
	case srcF32:
		return dt == interp.Float32
	case srcF64:
		return dt == interp.Float64
	}
	return dt == interp.String
}

// strings reports whether the source is strings ("str" or "split").
func (s source) strings() bool { return s == srcStr || s == srcSplit }

// directPlan is a column whose values are a feed (its elements in
// row-major order) or emb.from_dense of one, with its row splits when it
// has them, and no weights.
type directPlan struct {
	input int
	// from is the emb.from_dense (nil: the values are the feed itself).
	from *textir.Operation
	ign  ignore
}

// ignore is emb.from_dense's ignore value, in the feed's kind.
type ignore struct {
	has bool
	i   int64
	f32 float32
	f64 float64
	s   string
}

// ignoreOf returns the ignore value of a from_dense op over elements of
// dtype dt; an attribute that does not match dt fails as the interpreter
// does on every run.
func ignoreOf(op *textir.Operation, dt interp.DType) (ignore, error) {
	a := op.LookupAttr(emb.AttrIgnore)
	if a == nil {
		return ignore{}, nil
	}
	switch a := a.(type) {
	case textir.IntegerAttr:
		if dt.IsInteger() {
			return ignore{has: true, i: a.Value}, nil
		}
	case textir.StringAttr:
		if dt == interp.String {
			return ignore{has: true, s: a.Value}, nil
		}
	case textir.FloatAttr:
		switch dt {
		case interp.Float32:
			return ignore{has: true, f32: float32(a.Value)}, nil
		case interp.Float64:
			return ignore{has: true, f64: a.Value}, nil
		}
	}
	return ignore{}, op.Errorf("attribute 'ignore' does not match the input dtype %v", dt)
}

// gkind is the op of a graph node.
type gkind uint8

const (
	gInput      gkind = iota // a plan input
	gFromDense               // emb.from_dense
	gFromSparse              // emb.from_sparse
	gSplit                   // emb.split_strings
	gFilter                  // emb.filter
	gHash                    // emb.hash
	gHashInt                 // emb.hash of emb.as_string: the decimal string hashed without making it
	gAsString                // emb.as_string
	gBucketize               // emb.bucketize
	gVocab                   // emb.vocab_lookup
	gCheckRange              // emb.check_range
	gCast                    // emb.cast
	gAddOffset               // emb.add_offset
	gExample                 // a result of a parse of tf.Example records (example.go)
)

// gnode is one op of a column's computation (its results are computed
// into the Packer's buffers).
type gnode struct {
	kind  gkind
	op    *textir.Operation
	args  []gref
	input int    // gInput: the plan input
	local int    // gInput: its index in the column's inputs
	ign   ignore // gFromDense
	sep   string // gSplit
	// gFilter.
	lo, hi                 int64
	hasLo, hasHi, positive bool
	buckets, def           int64 // gHash, gHashInt, gCheckRange (buckets); gCheckRange, gVocab (default)
	hasDef                 bool  // gCheckRange
	oov                    int64 // gVocab
	stride                 int64 // gAddOffset
	bounds                 []float32
	voc                    *vocab
	dt                     []interp.DType // each result's dtype
	nres                   int
	weighted, strIn        bool // gFilter: a weights operand; gVocab: string keys
	// gExample: the feature (of the exPlan input) and the parse's result.
	exFeat int
	exArg  string
	exPlan *exPlan
}

// gref is result res of node n of a graphPlan.
type gref struct{ n, res int }

// graphPlan is a column computed op by op: its nodes in an order where
// each comes after its operands, and the refs of the layer's operands
// (n = -1 where absent).
type graphPlan struct {
	nodes                 []*gnode
	vals, splits, weights gref
	valsOp                *textir.Operation
}

// vocab is a vocabulary's keys (emb.Vocab's semantics: a key's index is
// its last position; size is the number of distinct keys).
type vocab struct {
	str  map[string]int64
	num  map[int64]int64
	size int64
}

func newVocab(keys *textir.DenseElementsAttr) *vocab {
	n := keys.NumElements()
	v := &vocab{}
	if keys.IsString() {
		v.str = make(map[string]int64, n)
		for i := range n {
			v.str[keys.StringAt(i)] = i
		}
		v.size = int64(len(v.str))
	} else {
		v.num = make(map[int64]int64, n)
		for i := range n {
			v.num[keys.IntAt(i)] = i
		}
		v.size = int64(len(v.num))
	}
	return v
}

type builder struct {
	opts    *Options
	p       *Plan
	inputOf map[*textir.Value]int
	exOf    map[*textir.Operation]int // parse op → Plan.examples index, or -1
}

// dtypeOf returns the dtype of v's elements.
func dtypeOf(op *textir.Operation, v *textir.Value) (interp.DType, error) {
	dt, ok := exec.DTypeOf(v.Type())
	if !ok {
		return interp.Invalid, errUnsupported(op, "no dtype for values of type %s", v.Type())
	}
	return dt, nil
}

// input returns the plan input that v is: a placeholder (through
// tfg.Identity), or with Options.Partial the result of an op the plan
// does not compute. ok is false for the result of an op the plan
// computes (the emb ops of a column).
func (b *builder) input(v *textir.Value, user *textir.Operation) (idx int, ok bool, err error) {
	for {
		def := v.DefiningOp()
		if def == nil {
			return b.argument(v, user)
		}
		if def.Name() == "tfg.Identity" && v.Index() == 0 && def.NumOperands() >= 1 {
			v = def.Operand(0)
			continue
		}
		if i, ok := b.inputOf[v]; ok {
			return i, true, nil
		}
		placeholder := def.Name() == "tfg.Placeholder" && v.Index() == 0
		if tfg.IsExampleParse(def) {
			if x, err := b.example(def); err != nil || x >= 0 {
				return 0, false, err // the plan parses the records itself
			}
		}
		if !placeholder {
			if _, ours := computed[def.Name()]; ours {
				return 0, false, nil
			}
			if !b.opts.Partial {
				return 0, false, errUnsupported(def, "cannot compute %s natively (an input of %s)", def.Name(), user.Name())
			}
			if exec.OpName(def) == "" {
				return 0, false, errUnsupported(def, "cannot compute %s natively, and it has no name to be fed by", def.Name())
			}
		}
		dt, ok := exec.DTypeOf(v.Type())
		if !ok || dt == interp.Bool {
			return 0, false, errUnsupported(def, "a feed of type %s", v.Type())
		}
		in := Input{Name: exec.OpName(def), DType: dt, Computed: !placeholder, Op: def, Value: v}
		if v.Index() > 0 {
			in.Name += ":" + strconv.Itoa(v.Index())
		}
		if tt, ok := v.Type().(*textir.TensorType); ok {
			in.Shape = append([]int64{}, tt.Shape...)
		}
		b.p.inputs = append(b.p.inputs, in)
		b.inputOf[v] = len(b.p.inputs) - 1
		return len(b.p.inputs) - 1, true, nil
	}
}

// argument returns the input of a function argument: an argument of the
// entry block of a symbol's first region, which the interpreter feeds as
// "@sym:i".
func (b *builder) argument(v *textir.Value, user *textir.Operation) (int, bool, error) {
	if i, ok := b.inputOf[v]; ok {
		return i, true, nil
	}
	blk := v.OwnerBlock()
	var fn *textir.Operation
	if blk != nil {
		fn = blk.ParentOp()
	}
	sym, ok := "", false
	if fn != nil {
		sym, ok = textir.SymbolName(fn)
	}
	if !ok || fn.NumRegions() == 0 || fn.Regions()[0].Front() != blk {
		return 0, false, errUnsupported(user, "an operand is a block argument, not a function argument nor a placeholder")
	}
	dt, ok := exec.DTypeOf(v.Type())
	if !ok || dt == interp.Bool {
		return 0, false, errUnsupported(user, "a feed of type %s", v.Type())
	}
	in := Input{Name: "@" + sym + ":" + strconv.Itoa(v.Index()), DType: dt, Value: v}
	if tt, ok := v.Type().(*textir.TensorType); ok {
		in.Shape = append([]int64{}, tt.Shape...)
	}
	b.p.inputs = append(b.p.inputs, in)
	b.inputOf[v] = len(b.p.inputs) - 1
	return len(b.p.inputs) - 1, true, nil
}

// computed holds the ops the plan computes, with their result counts.
var computed = map[string]int{
	emb.FromDenseOp: 2, emb.FromSparseOp: 2, emb.SplitStringsOp: 2, emb.FilterOp: 3,
	emb.HashOp: 1, emb.AsStringOp: 1, emb.BucketizeOp: 1, emb.VocabLookupOp: 1,
	emb.CheckRangeOp: 1, emb.CastOp: 1, emb.AddOffsetOp: 1,
}

// sourceTakes says which dtypes each source takes (none for a source
// it does not know).
func sourceTakes(src string, dt interp.DType) bool {
	switch src {
	case abi.SourceIDs, abi.SourceI64, abi.SourceF32, abi.SourceF64, abi.SourceStr, abi.SourceSplit:
		return sourceOf(src).takes(dt)
	}
	return false
}

// column plans column i.
func (b *builder) column(i int, c *abi.Column, vals, splits, weights *textir.Value) (colPlan, error) {
	cp := colPlan{c: c, src: sourceOf(c.Source), splits: c.HasSplits(), slots: c.StrSlots(), weighted: c.Weighted, rows: c.Rows}
	layer := b.p.op
	if ec, ok, err := b.exampleColumn(c, vals, splits, weights); err != nil || ok {
		cp.example = ec
		return cp, err
	}
	dt, err := dtypeOf(layer, vals)
	if err != nil {
		return cp, err
	}
	if !sourceTakes(c.Source, dt) {
		return cp, layer.Errorf("column #%d (%q): source %q cannot take values of %v", i, c.Name, c.Source, dt)
	}
	if weights != nil {
		if wdt, err := dtypeOf(layer, weights); err != nil {
			return cp, err
		} else if wdt != interp.Float32 {
			return cp, layer.Errorf("column #%d (%q): weights must be float32, got %v", i, c.Name, wdt)
		}
	}
	if weights == nil {
		if def := vals.DefiningOp(); def != nil && def.Name() == emb.FromDenseOp && vals.Index() == 0 &&
			(splits == nil || splits == def.Result(1)) {
			in, ok, err := b.input(def.Operand(0), def)
			if err != nil {
				return cp, err
			}
			if ok {
				ign, err := ignoreOf(def, b.p.inputs[in].DType)
				if err != nil {
					return cp, err
				}
				cp.direct = &directPlan{input: in, from: def, ign: ign}
				cp.inputs = []int{in}
				return cp, nil
			}
		} else if splits == nil {
			in, ok, err := b.input(vals, layer)
			if err != nil {
				return cp, err
			}
			if ok {
				cp.direct = &directPlan{input: in}
				cp.inputs = []int{in}
				return cp, nil
			}
		}
	}
	g := &graphPlan{splits: gref{n: -1}, weights: gref{n: -1}, valsOp: layer}
	memo := map[*textir.Value]gref{}
	if g.vals, err = b.node(g, vals, layer, memo); err != nil {
		return cp, err
	}
	if splits != nil {
		if g.splits, err = b.node(g, splits, layer, memo); err != nil {
			return cp, err
		}
	}
	if weights != nil {
		if g.weights, err = b.node(g, weights, layer, memo); err != nil {
			return cp, err
		}
	}
	cp.graph = g
	for _, n := range g.nodes {
		if n.kind == gInput {
			n.local = len(cp.inputs)
			cp.inputs = append(cp.inputs, n.input)
		}
	}
	return cp, nil
}

// node returns the ref of v in g, adding the nodes that compute it after
// the nodes of their operands.
func (b *builder) node(g *graphPlan, v *textir.Value, user *textir.Operation, memo map[*textir.Value]gref) (gref, error) {
	if r, ok := memo[v]; ok {
		return r, nil
	}
	in, ok, err := b.input(v, user)
	if err != nil {
		return gref{}, err
	}
	if ok {
		op := v.DefiningOp()
		if op == nil {
			op = user // a function argument
		}
		n := &gnode{kind: gInput, op: op, input: in, dt: []interp.DType{b.p.inputs[in].DType}, nres: 1}
		g.nodes = append(g.nodes, n)
		r := gref{n: len(g.nodes) - 1}
		memo[v] = r
		return r, nil
	}
	op := v.DefiningOp()
	for op.Name() == "tfg.Identity" { // input() saw through it
		v = op.Operand(0)
		op = v.DefiningOp()
	}
	if tfg.IsExampleParse(op) {
		return b.exampleNode(g, v, op, memo)
	}
	n := &gnode{op: op, nres: computed[op.Name()]}
	if op.Name() == emb.FilterOp {
		n.nres = min(op.NumResults(), 3)
	}
	if op.NumResults() < n.nres {
		return gref{}, op.Errorf("expected %d results", n.nres)
	}
	for r := range n.nres {
		dt, err := dtypeOf(op, op.Result(r))
		if err != nil {
			return gref{}, err
		}
		n.dt = append(n.dt, dt)
	}
	args := op.NumOperands()
	operand := func(k int) (gref, error) {
		if k >= args {
			return gref{}, op.Errorf("expected at least %d operands", k+1)
		}
		return b.node(g, op.Operand(k), op, memo)
	}
	intAttr := func(name string) (int64, bool) {
		a, ok := op.LookupAttr(name).(textir.IntegerAttr)
		return a.Value, ok
	}
	var err2 error
	add := func(ks ...int) {
		for _, k := range ks {
			if err2 != nil {
				return
			}
			var r gref
			r, err2 = operand(k)
			n.args = append(n.args, r)
		}
	}
	argDT := func(k int) interp.DType { dt, _ := exec.DTypeOf(op.Operand(k).Type()); return dt }
	switch op.Name() {
	case emb.FromDenseOp:
		n.kind = gFromDense
		add(0)
		if err2 == nil {
			n.ign, err2 = ignoreOf(op, argDT(0))
		}
	case emb.FromSparseOp:
		n.kind = gFromSparse
		add(0, 1, 2)
	case emb.SplitStringsOp:
		n.kind = gSplit
		sep, _ := op.LookupAttr(emb.AttrSep).(textir.StringAttr)
		n.sep = sep.Value
		add(0)
	case emb.FilterOp:
		n.kind = gFilter
		n.lo, n.hasLo = intAttr(emb.AttrMin)
		n.hi, n.hasHi = intAttr(emb.AttrMax)
		n.weighted = args > 2
		n.positive = op.LookupAttr(emb.AttrPositiveWeights) != nil && n.weighted
		if n.weighted != (n.nres == 3) {
			return gref{}, op.Errorf("%d operands and %d results", args, n.nres)
		}
		if n.weighted {
			if wdt := argDT(2); !wdt.IsFloat() {
				return gref{}, op.Errorf("weights must be floats, got %v", wdt)
			}
		}
		if (n.hasLo || n.hasHi) && !argDT(0).IsInteger() {
			return gref{}, op.Errorf("ids must be integers, got %v", argDT(0))
		}
		add(0, 1)
		if n.weighted {
			add(2)
		}
	case emb.HashOp:
		n.kind = gHash
		n.buckets, _ = intAttr(emb.AttrNumBuckets)
		if n.buckets < 1 {
			return gref{}, op.Errorf("num_buckets must be >= 1, got %d", n.buckets)
		}
		if def := op.Operand(0).DefiningOp(); def != nil && def.Name() == emb.AsStringOp && def.NumOperands() == 1 {
			// hash(as_string(x)): hash the decimal digits in place.
			n.kind = gHashInt
			var r gref
			if r, err2 = b.node(g, def.Operand(0), def, memo); err2 == nil {
				n.args = append(n.args, r)
				if dt := argDTOf(def, 0); !dt.IsInteger() {
					err2 = def.Errorf("input must be integers, got %v", dt)
				}
			}
		} else {
			add(0)
			if err2 == nil && argDT(0) != interp.String {
				err2 = op.Errorf("input must be strings, got %v", argDT(0))
			}
		}
	case emb.AsStringOp:
		n.kind = gAsString
		add(0)
		if err2 == nil && !argDT(0).IsInteger() {
			err2 = op.Errorf("input must be integers, got %v", argDT(0))
		}
	case emb.BucketizeOp:
		n.kind = gBucketize
		bs, ok := emb.Boundaries(op)
		if !ok {
			return gref{}, op.Errorf("attribute 'boundaries' must be an array of f32 floats")
		}
		if !sort.SliceIsSorted(bs, func(i, j int) bool { return bs[i] < bs[j] }) {
			return gref{}, op.Errorf("expected sorted boundaries, got %v", bs)
		}
		n.bounds = bs
		switch argDT(0) {
		case interp.Int32, interp.Int64, interp.Float32, interp.Float64:
		default:
			return gref{}, op.Errorf("input must be int32, int64, float32 or float64, got %v", argDT(0))
		}
		add(0)
	case emb.VocabLookupOp:
		n.kind = gVocab
		keys := emb.VocabKeys(op)
		if keys == nil {
			return gref{}, op.Errorf("requires attribute 'keys'")
		}
		n.voc = newVocab(keys)
		n.strIn = keys.IsString()
		n.oov, _ = intAttr(emb.AttrNumOOVBuckets)
		d, ok := intAttr(emb.AttrDefault)
		if !ok {
			d = -1
		}
		n.def = d
		if (argDT(0) == interp.String) != n.strIn || (!n.strIn && !argDT(0).IsInteger()) {
			return gref{}, op.Errorf("input dtype %v does not match the keys", argDT(0))
		}
		add(0)
	case emb.CheckRangeOp:
		n.kind = gCheckRange
		n.buckets, _ = intAttr(emb.AttrNumBuckets)
		n.def, n.hasDef = intAttr(emb.AttrDefault)
		if !argDT(0).IsInteger() {
			return gref{}, op.Errorf("ids must be integers, got %v", argDT(0))
		}
		add(0)
	case emb.CastOp:
		n.kind = gCast
		if !argDT(0).IsInteger() || !n.dt[0].IsInteger() {
			return gref{}, op.Errorf("casts %v to %v: only integers", argDT(0), n.dt[0])
		}
		add(0)
	case emb.AddOffsetOp:
		n.kind = gAddOffset
		n.stride, _ = intAttr(emb.AttrStride)
		if !argDT(0).IsInteger() {
			return gref{}, op.Errorf("ids must be integers, got %v", argDT(0))
		}
		add(0, 1)
	default:
		return gref{}, errUnsupported(op, "cannot compute %s natively", op.Name())
	}
	if err2 != nil {
		return gref{}, err2
	}
	for r, dt := range n.dt {
		if n.kind != gFromDense && n.kind != gFromSparse && n.kind != gSplit && n.kind != gFilter && n.kind != gAsString && !dt.IsInteger() {
			return gref{}, op.Errorf("result #%d must be integers, got %v", r, dt)
		}
	}
	g.nodes = append(g.nodes, n)
	idx := len(g.nodes) - 1
	for r := range n.nres {
		memo[op.Result(r)] = gref{n: idx, res: r}
	}
	return memo[v], nil
}

func argDTOf(op *textir.Operation, k int) interp.DType {
	dt, _ := exec.DTypeOf(op.Operand(k).Type())
	return dt
}

// wrap converts v to the integer dtype dt as Cast does (wrapping).
func wrap(v int64, dt interp.DType) int64 {
	switch dt {
	case interp.Int8:
		return int64(int8(v))
	case interp.Int16:
		return int64(int16(v))
	case interp.Int32:
		return int64(int32(v))
	case interp.Uint8:
		return int64(uint8(v))
	}
	return v
}

// maxBatch is the most rows a column may have: its row splits (B+1
// int32 words) must fit the kernel's 32-bit offsets.
const maxBatch = math.MaxInt32 - 1

func errBatch(name string, b int64) error {
	return fmt.Errorf("column %q: %d rows exceed the kernel's 32-bit offsets (at most %d)", name, b, maxBatch)
}

// checkRows refuses rows a computed column could not hold before its
// row splits take memory: more than the kernel's 32-bit offsets reach or
// than the interpreter's tensors hold (interp.MaxElements).
func checkRows(rows int64) error {
	if rows > maxBatch || rows > interp.MaxElements {
		return fmt.Errorf("%d rows exceed the layer's limit (%d: the kernel's 32-bit offsets, and interp.MaxElements; see docs/LIMITS.md)",
			rows, min(int64(maxBatch), interp.MaxElements))
	}
	return nil
}
