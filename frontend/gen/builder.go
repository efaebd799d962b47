package gen

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
)

// Data types, short.
const (
	dtFloat  = tfpb.DataType_DT_FLOAT
	dtInt32  = tfpb.DataType_DT_INT32
	dtInt64  = tfpb.DataType_DT_INT64
	dtString = tfpb.DataType_DT_STRING
	dtBool   = tfpb.DataType_DT_BOOL
	dtRes    = tfpb.DataType_DT_RESOURCE
)

// tensor is one output of a node, with its dtype.
type tensor struct {
	ref string
	dt  tfpb.DataType
}

// out returns output i of the node that produced t (t must be output 0).
func (t tensor) out(i int, dt tfpb.DataType) tensor {
	if i == 0 {
		return tensor{ref: t.ref, dt: dt}
	}
	return tensor{ref: fmt.Sprintf("%s:%d", t.ref, i), dt: dt}
}

// builder writes nodes the way TensorFlow's Python graph builder names them:
// a stack of name scopes, and Graph.unique_name's rule for repeated names
// (case-insensitive "name", "name_1", "name_2", ...). Nodes are appended in
// creation order, constants before the op that consumes them.
type builder struct {
	nodes []*tfpb.NodeDef
	used  map[string]int
	scope string // current scope, "" or ending in "/"
	// Shared immutable attribute maps: nodes that have the same attributes
	// share one map (the graph is never edited after it is built).
	tMaps     map[tfpb.DataType]map[string]*tfpb.AttrValue
	constMaps map[*tfpb.AttrValue]map[string]*tfpb.AttrValue
	i32       map[i32Key]*tfpb.AttrValue
}

// newBuilder returns a builder for about n nodes.
func newBuilder(n int) *builder {
	return &builder{
		used:      make(map[string]int, n),
		nodes:     make([]*tfpb.NodeDef, 0, n),
		tMaps:     map[tfpb.DataType]map[string]*tfpb.AttrValue{},
		constMaps: map[*tfpb.AttrValue]map[string]*tfpb.AttrValue{},
		i32:       map[i32Key]*tfpb.AttrValue{},
	}
}

// unique mirrors tf.Graph.unique_name(name, mark_as_used=True) for a full name.
func (b *builder) unique(name string) string {
	key := strings.ToLower(name)
	i := b.used[key]
	b.used[key] = i + 1
	if i == 0 {
		return name
	}
	base := key
	for {
		key = fmt.Sprintf("%s_%d", base, i)
		i++
		if _, ok := b.used[key]; !ok {
			break
		}
	}
	b.used[key] = 1
	return fmt.Sprintf("%s_%d", name, i-1)
}

// enter opens name_scope(name) and returns the scope's full name (without
// the trailing slash) and the scope to restore.
func (b *builder) enter(name string) (full, saved string) {
	full = b.unique(b.scope + name)
	saved = b.scope
	b.scope = full + "/"
	return full, saved
}

// enterAbs opens an absolute scope (a name ending in "/" in TensorFlow):
// used again as is, not made unique.
func (b *builder) enterAbs(full string) (saved string) {
	saved = b.scope
	b.scope = full + "/"
	return saved
}

func (b *builder) exit(saved string) { b.scope = saved }

// emit appends a node with a full name.
func (b *builder) emit(name, op string, inputs []tensor, attrs map[string]*tfpb.AttrValue) tensor {
	in := make([]string, len(inputs))
	for i, t := range inputs {
		in[i] = t.ref
	}
	n := &tfpb.NodeDef{Name: name, Op: op, Input: in, Attr: attrs}
	b.nodes = append(b.nodes, n)
	return tensor{ref: name}
}

// op appends a node named name (made unique in the current scope) whose
// inputs need no constants of their own.
func (b *builder) op(op, name string, inputs []tensor, attrs map[string]*tfpb.AttrValue) tensor {
	return b.emit(b.unique(b.scope+name), op, inputs, attrs)
}

// control adds a control input to the last node named name.
func (b *builder) control(node string, dep string) {
	for i := len(b.nodes) - 1; i >= 0; i-- {
		if b.nodes[i].Name == node {
			b.nodes[i].Input = append(b.nodes[i].Input, "^"+dep)
			return
		}
	}
}

// --- attribute values ---

// Attribute values are immutable once made: types, bools and small ints
// are shared singletons.
var (
	typeAttrs  sync.Map // tfpb.DataType -> *tfpb.AttrValue
	intAttrs   sync.Map // int64 -> *tfpb.AttrValue, beyond smallInts
	boolAttrs  = [2]*tfpb.AttrValue{{Value: &tfpb.AttrValue_B{B: false}}, {Value: &tfpb.AttrValue_B{B: true}}}
	smallInts  [130]*tfpb.AttrValue // -1 ... 128
	emptyList  = &tfpb.AttrValue{Value: &tfpb.AttrValue_List{List: &tfpb.AttrValue_ListValue{}}}
	emptyStrAt = &tfpb.AttrValue{Value: &tfpb.AttrValue_S{S: []byte{}}}
)

func init() {
	for i := range smallInts {
		smallInts[i] = &tfpb.AttrValue{Value: &tfpb.AttrValue_I{I: int64(i - 1)}}
	}
}

func aType(t tfpb.DataType) *tfpb.AttrValue {
	if a, ok := typeAttrs.Load(t); ok {
		return a.(*tfpb.AttrValue)
	}
	a, _ := typeAttrs.LoadOrStore(t, &tfpb.AttrValue{Value: &tfpb.AttrValue_Type{Type: t}})
	return a.(*tfpb.AttrValue)
}
func aInt(i int64) *tfpb.AttrValue {
	if i >= -1 && i < int64(len(smallInts))-1 {
		return smallInts[i+1]
	}
	if a, ok := intAttrs.Load(i); ok {
		return a.(*tfpb.AttrValue)
	}
	a, _ := intAttrs.LoadOrStore(i, &tfpb.AttrValue{Value: &tfpb.AttrValue_I{I: i}})
	return a.(*tfpb.AttrValue)
}
func aBool(v bool) *tfpb.AttrValue {
	if v {
		return boolAttrs[1]
	}
	return boolAttrs[0]
}
func aStr(s string) *tfpb.AttrValue {
	if s == "" {
		return emptyStrAt
	}
	return &tfpb.AttrValue{Value: &tfpb.AttrValue_S{S: []byte(s)}}
}
func aShape(dims ...int64) *tfpb.AttrValue {
	return &tfpb.AttrValue{Value: &tfpb.AttrValue_Shape{Shape: shapeProto(dims)}}
}
func aFloats(f []float32) *tfpb.AttrValue {
	return &tfpb.AttrValue{Value: &tfpb.AttrValue_List{List: &tfpb.AttrValue_ListValue{F: f}}}
}
func aEmptyList() *tfpb.AttrValue { return emptyList }

func shapeProto(dims []int64) *tfpb.TensorShapeProto {
	s := &tfpb.TensorShapeProto{}
	for _, d := range dims {
		s.Dim = append(s.Dim, &tfpb.TensorShapeProto_Dim{Size: d})
	}
	return s
}

// attrs builds an attr map from alternating names and values. Maps whose
// values are all shared singletons (types, bools, ints, the empty list and
// string) are themselves shared: made once per combination.
func attrs(kv ...any) map[string]*tfpb.AttrValue {
	if len(kv) <= 2*len(attrKey{}.n) {
		var k attrKey
		shared := true
		for i := 0; i+1 < len(kv); i += 2 {
			v := kv[i+1].(*tfpb.AttrValue)
			if !singleton(v) {
				shared = false
				break
			}
			k.n[i/2], k.v[i/2] = kv[i].(string), v
		}
		if shared {
			attrCache.Lock()
			defer attrCache.Unlock()
			if m, ok := attrCache.m[k]; ok {
				return m
			}
			m := makeAttrs(kv)
			attrCache.m[k] = m
			return m
		}
	}
	return makeAttrs(kv)
}

func makeAttrs(kv []any) map[string]*tfpb.AttrValue {
	m := make(map[string]*tfpb.AttrValue, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1].(*tfpb.AttrValue)
	}
	return m
}

// attrKey identifies a combination of up to eight shared attr values.
type attrKey struct {
	n [8]string
	v [8]*tfpb.AttrValue
}

var attrCache = struct {
	sync.Mutex
	m map[attrKey]map[string]*tfpb.AttrValue
}{m: map[attrKey]map[string]*tfpb.AttrValue{}}

// singleton reports whether v is one of the shared attr values.
func singleton(v *tfpb.AttrValue) bool {
	switch v.GetValue().(type) {
	case *tfpb.AttrValue_Type, *tfpb.AttrValue_B, *tfpb.AttrValue_I:
		return true // aType, aBool and aInt share every value
	}
	return v == emptyList || v == emptyStrAt
}

// tAttr is the common attrs map {"T": dt} (shared).
func (b *builder) tAttr(dt tfpb.DataType) map[string]*tfpb.AttrValue {
	m, ok := b.tMaps[dt]
	if !ok {
		m = attrs("T", aType(dt))
		b.tMaps[dt] = m
	}
	return m
}

// --- constants, as tf.constant writes them (make_tensor_proto: numeric
// tensors of more than one element in tensor_content, others in *_val) ---

func (b *builder) constProto(name string, tp *tfpb.TensorProto) tensor {
	return b.constAttr(name, tp.Dtype, &tfpb.AttrValue{Value: &tfpb.AttrValue_Tensor{Tensor: tp}})
}

func (b *builder) constAttr(name string, dt tfpb.DataType, value *tfpb.AttrValue) tensor {
	t := b.op("Const", name, nil, attrs("dtype", aType(dt), "value", value))
	t.dt = dt
	return t
}

// constShared is constAttr for a shared value: nodes with the same value
// share their attrs map.
func (b *builder) constShared(name string, dt tfpb.DataType, value *tfpb.AttrValue) tensor {
	m, ok := b.constMaps[value]
	if !ok {
		m = attrs("dtype", aType(dt), "value", value)
		b.constMaps[value] = m
	}
	t := b.op("Const", name, nil, m)
	t.dt = dt
	return t
}

// i32Key identifies a small int32 constant: its rank (0 or 1), length and
// up to four values.
type i32Key struct {
	rank, n int8
	v       [4]int32
}

// i32Attr returns the value attr of an int32 constant, shared between the
// constants of the same shape and contents when they are small.
func (b *builder) i32Attr(shape []int64, v []int32) *tfpb.AttrValue {
	if len(shape) > 1 || len(v) > 4 {
		return &tfpb.AttrValue{Value: &tfpb.AttrValue_Tensor{Tensor: i32Proto(shape, v)}}
	}
	k := i32Key{rank: int8(len(shape)), n: int8(len(v))}
	copy(k.v[:], v)
	if a, ok := b.i32[k]; ok {
		return a
	}
	a := &tfpb.AttrValue{Value: &tfpb.AttrValue_Tensor{Tensor: i32Proto(shape, v)}}
	b.i32[k] = a
	return a
}

func i32Proto(shape []int64, v []int32) *tfpb.TensorProto {
	tp := &tfpb.TensorProto{Dtype: dtInt32, TensorShape: shapeProto(shape)}
	if len(v) > 1 {
		tp.TensorContent = make([]byte, 4*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint32(tp.TensorContent[4*i:], uint32(x))
		}
	} else {
		tp.IntVal = v
	}
	return tp
}

// scalarI32 / vecI32 make int32 constants.
func (b *builder) scalarI32(name string, v int32) tensor {
	return b.constShared(name, dtInt32, b.i32Attr(nil, []int32{v}))
}
func (b *builder) vecI32(name string, v ...int32) tensor {
	return b.constShared(name, dtInt32, b.i32Attr([]int64{int64(len(v))}, v))
}
func (b *builder) scalarI64(name string, v int64) tensor {
	return b.constProto(name, &tfpb.TensorProto{Dtype: dtInt64, TensorShape: shapeProto(nil), Int64Val: []int64{v}})
}
func (b *builder) scalarF32(name string, v float32) tensor {
	return b.constProto(name, &tfpb.TensorProto{Dtype: dtFloat, TensorShape: shapeProto(nil), FloatVal: []float32{v}})
}
func (b *builder) scalarBool(name string, v bool) tensor {
	return b.constProto(name, &tfpb.TensorProto{Dtype: dtBool, TensorShape: shapeProto(nil), BoolVal: []bool{v}})
}
func (b *builder) scalarStr(name string, v string) tensor {
	return b.constProto(name, &tfpb.TensorProto{Dtype: dtString, TensorShape: shapeProto(nil), StringVal: [][]byte{[]byte(v)}})
}
func (b *builder) vecStr(name string, v []string) tensor {
	tp := &tfpb.TensorProto{Dtype: dtString, TensorShape: shapeProto([]int64{int64(len(v))})}
	for _, s := range v {
		tp.StringVal = append(tp.StringVal, []byte(s))
	}
	return b.constProto(name, tp)
}

// f32Proto is a float32 tensor in tensor_content.
func f32Proto(shape []int64, v []float32) *tfpb.TensorProto {
	tp := &tfpb.TensorProto{Dtype: dtFloat, TensorShape: shapeProto(shape)}
	if len(v) <= 1 {
		tp.FloatVal = v
		return tp
	}
	tp.TensorContent = make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(tp.TensorContent[4*i:], math.Float32bits(x))
	}
	return tp
}

// --- ops, each named and scoped as its Python wrapper does ---

func (b *builder) placeholder(name string, dt tfpb.DataType, shape ...int64) tensor {
	t := b.op("Placeholder", name, nil, attrs("dtype", aType(dt), "shape", aShape(shape...)))
	t.dt = dt
	return t
}

func (b *builder) identity(name string, x tensor) tensor {
	t := b.op("Identity", name, []tensor{x}, b.tAttr(x.dt))
	t.dt = x.dt
	return t
}

// expandDims is array_ops.expand_dims(x, dim).
func (b *builder) expandDims(x tensor, dim int32) tensor {
	full, s := b.enter("ExpandDims")
	d := b.scalarI32("dim", dim)
	b.exit(s)
	t := b.emit(full, "ExpandDims", []tensor{x, d}, attrs("T", aType(x.dt), "Tdim", aType(dtInt32)))
	t.dt = x.dt
	return t
}

// cast is math_ops.cast of a tensor (no node when the dtype already matches).
func (b *builder) cast(name string, x tensor, dst tfpb.DataType) tensor {
	if x.dt == dst {
		return x
	}
	t := b.op("Cast", name, []tensor{x}, attrs("SrcT", aType(x.dt), "DstT", aType(dst), "Truncate", aBool(false)))
	t.dt = dst
	return t
}

func (b *builder) shape(name string, x tensor, outType tfpb.DataType) tensor {
	t := b.op("Shape", name, []tensor{x}, attrs("T", aType(x.dt), "out_type", aType(outType)))
	t.dt = outType
	return t
}

// stridedSlice writes x[begin:end:strides] with int32 index constants
// stack, stack_1, stack_2.
func (b *builder) stridedSlice(x tensor, begin, end, strides []int32, beginMask, endMask, shrink int64) tensor {
	full, s := b.enter("strided_slice")
	st := b.vecI32("stack", begin...)
	st1 := b.vecI32("stack_1", end...)
	st2 := b.vecI32("stack_2", strides...)
	b.exit(s)
	t := b.emit(full, "StridedSlice", []tensor{x, st, st1, st2}, attrs(
		"Index", aType(dtInt32), "T", aType(x.dt),
		"begin_mask", aInt(beginMask), "ellipsis_mask", aInt(0), "end_mask", aInt(endMask),
		"new_axis_mask", aInt(0), "shrink_axis_mask", aInt(shrink)))
	t.dt = x.dt
	return t
}

// dim0 is array_ops.shape(x)[0] (a Shape and a StridedSlice).
func (b *builder) dim0(x tensor) tensor {
	sh := b.shape("Shape", x, dtInt32)
	return b.stridedSlice(sh, []int32{0}, []int32{1}, []int32{1}, 0, 0, 1)
}

// pack is array_ops.stack / auto-packing of a list under scope name: Python
// ints become "name/<i>" int32 constants.
func (b *builder) pack(name string, elems ...any) tensor {
	full, s := b.enter(name)
	var ins []tensor
	dt := dtInt32
	for i, e := range elems {
		switch v := e.(type) {
		case tensor:
			ins = append(ins, v)
			dt = v.dt
		case int:
			ins = append(ins, b.scalarI32(fmt.Sprint(i), int32(v)))
		}
	}
	b.exit(s)
	t := b.emit(full, "Pack", ins, attrs("N", aInt(int64(len(ins))), "T", aType(dt), "axis", aInt(0)))
	t.dt = dt
	return t
}

// reshapeConst is array_ops.reshape(x, <python list>).
func (b *builder) reshapeConst(x tensor, shape ...int32) tensor {
	full, s := b.enter("Reshape")
	sh := b.vecI32("shape", shape...)
	b.exit(s)
	t := b.emit(full, "Reshape", []tensor{x, sh}, attrs("T", aType(x.dt), "Tshape", aType(dtInt32)))
	t.dt = x.dt
	return t
}

// reshape is array_ops.reshape(x, shapeTensor).
func (b *builder) reshape(x, shape tensor) tensor {
	t := b.op("Reshape", "Reshape", []tensor{x, shape}, attrs("T", aType(x.dt), "Tshape", aType(shape.dt)))
	t.dt = x.dt
	return t
}

// reshapePacked is array_ops.reshape(x, (tensor, int)): the shape is
// auto-packed as "Reshape/shape".
func (b *builder) reshapePacked(x tensor, elems ...any) tensor {
	full, s := b.enter("Reshape")
	sh := b.pack("shape", elems...)
	b.exit(s)
	t := b.emit(full, "Reshape", []tensor{x, sh}, attrs("T", aType(x.dt), "Tshape", aType(dtInt32)))
	t.dt = x.dt
	return t
}

// binary writes a two-input op whose result has x's type, or outDT if set.
func (b *builder) binary(op, name string, x, y tensor, outDT tfpb.DataType) tensor {
	t := b.op(op, name, []tensor{x, y}, b.tAttr(x.dt))
	t.dt = x.dt
	if outDT != tfpb.DataType_DT_INVALID {
		t.dt = outDT
	}
	return t
}

// binaryConstY is x <op> <python scalar> through the operator overloads:
// scope name, the constant named "name/y".
func (b *builder) binaryConstY(op, name string, x tensor, mk func(b *builder, n string) tensor, outDT tfpb.DataType) tensor {
	full, s := b.enter(name)
	y := mk(b, "y")
	b.exit(s)
	t := b.emit(full, op, []tensor{x, y}, b.tAttr(x.dt))
	t.dt = x.dt
	if outDT != tfpb.DataType_DT_INVALID {
		t.dt = outDT
	}
	return t
}

// gatherV2 is array_ops.gather(params, indices) with an axis constant.
func (b *builder) gatherV2(name string, params, indices tensor) tensor {
	full, s := b.enter(name)
	axis := b.scalarI32("axis", 0)
	b.exit(s)
	return b.gatherV2Named(full, params, indices, axis)
}

func (b *builder) gatherV2Named(full string, params, indices, axis tensor) tensor {
	t := b.emit(full, "GatherV2", []tensor{params, indices, axis}, attrs(
		"Taxis", aType(dtInt32), "Tindices", aType(indices.dt), "Tparams", aType(params.dt), "batch_dims", aInt(0)))
	t.dt = params.dt
	return t
}

// where is array_ops.where(cond) (one input): int64 coordinates.
func (b *builder) where(name string, cond tensor) tensor {
	t := b.op("Where", name, []tensor{cond}, b.tAttr(dtBool))
	t.dt = dtInt64
	return t
}

// slice is array_ops.slice(x, [begin], [size]).
func (b *builder) slice(x tensor, begin, size int32) tensor {
	full, s := b.enter("Slice")
	bg := b.vecI32("begin", begin)
	sz := b.vecI32("size", size)
	b.exit(s)
	t := b.emit(full, "Slice", []tensor{x, bg, sz}, attrs("Index", aType(dtInt32), "T", aType(x.dt)))
	t.dt = x.dt
	return t
}

// concatV2 is array_ops.concat(values, axis) under scope name.
func (b *builder) concatV2(name string, values []tensor, axis int32) tensor {
	full, s := b.enter(name)
	ax := b.scalarI32("axis", axis)
	b.exit(s)
	t := b.emit(full, "ConcatV2", append(append([]tensor{}, values...), ax), attrs(
		"N", aInt(int64(len(values))), "T", aType(values[0].dt), "Tidx", aType(dtInt32)))
	t.dt = values[0].dt
	return t
}

// castConst is math_ops.cast(<python int>, dst, name): a "name/x" Const
// (int32, or int64 when the value does not fit) and a Cast named name when
// the dtypes differ.
func (b *builder) castConst(name string, v int64, dst tfpb.DataType) tensor {
	full, s := b.enter(name)
	var x tensor
	if v >= math.MinInt32 && v <= math.MaxInt32 {
		x = b.scalarI32("x", int32(v))
	} else {
		x = b.scalarI64("x", v)
	}
	b.exit(s)
	if x.dt == dst {
		return x
	}
	t := b.emit(full, "Cast", []tensor{x}, attrs("SrcT", aType(x.dt), "DstT", aType(dst), "Truncate", aBool(false)))
	t.dt = dst
	return t
}

// nodeEstimate is about how many nodes the spec's graph has (a capacity
// hint): at most 110 a column, plus the dense part.
func nodeEstimate(s *Spec) int {
	n := 110*s.NumColumns() + 16
	if d := s.Dense; d != nil {
		n += 12 * (len(d.Bottom) + len(d.Top) + 2)
	}
	for _, t := range s.Towers {
		n += 12 * (len(t.Hidden) + 1)
	}
	return n
}
