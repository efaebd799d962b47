package importer

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
	"github.com/recom-compiler/recom/textir"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// refOffset is the distance between DT_X and DT_X_REF.
const refOffset = 100

var dtypeElem = map[tfpb.DataType]func() textir.Type{
	tfpb.DataType_DT_FLOAT:    textir.F32,
	tfpb.DataType_DT_DOUBLE:   textir.F64,
	tfpb.DataType_DT_HALF:     textir.F16,
	tfpb.DataType_DT_BFLOAT16: textir.BF16,
	tfpb.DataType_DT_INT8:     textir.I8,
	tfpb.DataType_DT_INT16:    textir.I16,
	tfpb.DataType_DT_INT32:    textir.I32,
	tfpb.DataType_DT_INT64:    textir.I64,
	tfpb.DataType_DT_BOOL:     textir.I1,
	tfpb.DataType_DT_UINT8:    func() textir.Type { return textir.IntegerTypeOf(8, textir.Unsigned) },
	tfpb.DataType_DT_UINT16:   func() textir.Type { return textir.IntegerTypeOf(16, textir.Unsigned) },
	tfpb.DataType_DT_UINT32:   func() textir.Type { return textir.IntegerTypeOf(32, textir.Unsigned) },
	tfpb.DataType_DT_UINT64:   func() textir.Type { return textir.IntegerTypeOf(64, textir.Unsigned) },
	tfpb.DataType_DT_INT4:     func() textir.Type { return textir.IntegerTypeOf(4, textir.Signed) },
	tfpb.DataType_DT_UINT4:    func() textir.Type { return textir.IntegerTypeOf(4, textir.Unsigned) },
	tfpb.DataType_DT_INT2:     func() textir.Type { return textir.IntegerTypeOf(2, textir.Signed) },
	tfpb.DataType_DT_UINT2:    func() textir.Type { return textir.IntegerTypeOf(2, textir.Unsigned) },
	tfpb.DataType_DT_STRING:   tfg.String,
	tfpb.DataType_DT_RESOURCE: tfg.Resource,
	tfpb.DataType_DT_VARIANT:  tfg.Variant,
}

// ElemType maps a TensorFlow dtype to the element type tfg uses for it.
func ElemType(dt tfpb.DataType) (textir.Type, error) {
	if dt > refOffset {
		base, err := ElemType(dt - refOffset)
		if err != nil {
			return nil, err
		}
		return tfg.Ref(base), nil
	}
	if mk, ok := dtypeElem[dt]; ok {
		return mk(), nil
	}
	name, ok := tfpb.DataType_name[int32(dt)]
	if !ok || dt == tfpb.DataType_DT_INVALID {
		return nil, fmt.Errorf("unknown dtype %d", int32(dt))
	}
	// Complex, quantized and float8/float4 types: !tfg.<name without DT_, lower case>.
	return textir.OpaqueTypeOf(tfg.Name, strings.ToLower(strings.TrimPrefix(name, "DT_")), ""), nil
}

// DType maps an element type back to its TensorFlow dtype.
func DType(t textir.Type) (tfpb.DataType, error) {
	if o, ok := t.(*textir.OpaqueType); ok && o.Dialect == tfg.Name && o.Name == "ref" {
		base, err := DTypeOfText(o.Params)
		if err != nil {
			return 0, err
		}
		return base + refOffset, nil
	}
	for dt, mk := range dtypeElem {
		if mk() == t {
			return dt, nil
		}
	}
	if o, ok := t.(*textir.OpaqueType); ok && o.Dialect == tfg.Name && o.Params == "" {
		if v, ok := tfpb.DataType_value["DT_"+strings.ToUpper(o.Name)]; ok {
			return tfpb.DataType(v), nil
		}
	}
	return 0, fmt.Errorf("type %s has no TensorFlow dtype", t)
}

// DTypeOfText maps the text of an element type (as inside !tfg.ref<...>).
func DTypeOfText(s string) (tfpb.DataType, error) {
	for dt, mk := range dtypeElem {
		if mk().String() == s {
			return dt, nil
		}
	}
	if name, ok := strings.CutPrefix(s, "!tfg."); ok {
		if v, ok := tfpb.DataType_value["DT_"+strings.ToUpper(name)]; ok {
			return tfpb.DataType(v), nil
		}
	}
	return 0, fmt.Errorf("type %s has no TensorFlow dtype", s)
}

// TensorType builds tensor<shape x elem> (tensor<*xelem> for unknown rank).
func TensorType(s tfg.Shape, elem textir.Type) textir.Type {
	if s.UnknownRank {
		return textir.UnrankedTensorOf(elem)
	}
	return textir.TensorOf(s.Dims, elem)
}

// shapeOf converts a TensorShapeProto.
func shapeOf(p *tfpb.TensorShapeProto) tfg.Shape {
	if p == nil {
		return tfg.Shape{Dims: []int64{}}
	}
	if p.UnknownRank {
		return tfg.Shape{UnknownRank: true}
	}
	s := tfg.Shape{Dims: make([]int64, len(p.Dim))}
	named := false
	names := make([]string, len(p.Dim))
	for i, d := range p.Dim {
		s.Dims[i] = d.Size
		if d.Size < -1 {
			s.Dims[i] = -1 // TF treats any negative size as unknown; keep -1.
		}
		names[i] = d.Name
		named = named || d.Name != ""
	}
	if named {
		s.Names = names
	}
	return s
}

func shapeProto(s tfg.Shape) *tfpb.TensorShapeProto {
	if s.UnknownRank {
		return &tfpb.TensorShapeProto{UnknownRank: true}
	}
	p := &tfpb.TensorShapeProto{}
	for i, d := range s.Dims {
		dim := &tfpb.TensorShapeProto_Dim{Size: d}
		if s.Names != nil {
			dim.Name = s.Names[i]
		}
		p.Dim = append(p.Dim, dim)
	}
	return p
}

// converter converts attribute values with one budget of elements that
// tensors storing fewer values than their shape has may expand to: an
// import shares it across the whole GraphDef.
type converter struct {
	expanded int64 // elements expanded so far
	// deferExpand: a tensor to expand is not converted but refused with
	// errDeferred (a parallel import converts the nodes that expand
	// tensors afterwards, in node order, so that the budget is charged as
	// one converter going through the graph would).
	deferExpand bool
}

// errDeferred refuses a conversion a parallel import leaves for later.
var errDeferred = errors.New("importer: deferred")

// AttrFromProto converts a TensorFlow attribute value.
func AttrFromProto(v *tfpb.AttrValue) (textir.Attribute, error) {
	return new(converter).attr(v)
}

func (c *converter) attr(v *tfpb.AttrValue) (textir.Attribute, error) {
	switch x := v.GetValue().(type) {
	case nil:
		return textir.UnitAttr{}, nil
	case *tfpb.AttrValue_S:
		return textir.StringAttr{Value: string(x.S)}, nil
	case *tfpb.AttrValue_I:
		return textir.I64Attr(x.I), nil
	case *tfpb.AttrValue_F:
		return textir.FloatAttr{Value: float64(x.F), Type: textir.F32()}, nil
	case *tfpb.AttrValue_B:
		return textir.BoolAttr{Value: x.B}, nil
	case *tfpb.AttrValue_Type:
		t, err := ElemType(x.Type)
		if err != nil {
			return nil, err
		}
		return textir.TypeAttr{Type: t}, nil
	case *tfpb.AttrValue_Shape:
		return tfg.ShapeAttr(shapeOf(x.Shape)), nil
	case *tfpb.AttrValue_Tensor:
		return c.tensor(x.Tensor)
	case *tfpb.AttrValue_Placeholder:
		return textir.OpaqueAttr{Dialect: tfg.Name, Name: "placeholder", Params: textir.Quote(x.Placeholder)}, nil
	case *tfpb.AttrValue_Func:
		return c.funcAttr(x.Func)
	case *tfpb.AttrValue_List:
		return c.listAttr(x.List)
	}
	return nil, fmt.Errorf("unsupported attribute value %T", v.GetValue())
}

// attrNestingMargin is the nesting the printed module puts around an
// attribute value (module, graph region, op, attribute dictionary, ...).
const attrNestingMargin = 8

// attrDepth is the nesting depth of v's textual form: one level per list,
// two per function (#tfg.func<...> and its attribute dictionary).
func attrDepth(v *tfpb.AttrValue) int64 {
	var d int64
	switch x := v.GetValue().(type) {
	case *tfpb.AttrValue_List:
		for _, f := range x.List.GetFunc() {
			d = max(d, funcDepth(f))
		}
		return 1 + d
	case *tfpb.AttrValue_Func:
		return funcDepth(x.Func)
	}
	return 0
}

func funcDepth(f *tfpb.NameAttrList) int64 {
	var d int64
	for _, v := range f.GetAttr() {
		d = max(d, attrDepth(v))
	}
	return 2 + d
}

func (c *converter) listAttr(l *tfpb.AttrValue_ListValue) (textir.Attribute, error) {
	var es []textir.Attribute
	for _, s := range l.S {
		es = append(es, textir.StringAttr{Value: string(s)})
	}
	for _, i := range l.I {
		es = append(es, textir.I64Attr(i))
	}
	for _, f := range l.F {
		es = append(es, textir.FloatAttr{Value: float64(f), Type: textir.F32()})
	}
	for _, b := range l.B {
		es = append(es, textir.BoolAttr{Value: b})
	}
	for _, dt := range l.Type {
		t, err := ElemType(dt)
		if err != nil {
			return nil, err
		}
		es = append(es, textir.TypeAttr{Type: t})
	}
	for _, s := range l.Shape {
		es = append(es, tfg.ShapeAttr(shapeOf(s)))
	}
	for _, t := range l.Tensor {
		a, err := c.tensor(t)
		if err != nil {
			return nil, err
		}
		es = append(es, a)
	}
	for _, f := range l.Func {
		a, err := c.funcAttr(f)
		if err != nil {
			return nil, err
		}
		es = append(es, a)
	}
	return textir.ArrayAttr{Elems: es}, nil
}

func (c *converter) funcAttr(f *tfpb.NameAttrList) (textir.Attribute, error) {
	d, err := c.attrDict(f.Attr)
	if err != nil {
		return nil, fmt.Errorf("function %q: %w", f.Name, err)
	}
	return textir.OpaqueAttr{Dialect: tfg.Name, Name: "func",
		Params: textir.AttrString(textir.SymbolRefAttr{Root: f.Name}) + ", " + textir.AttrString(d)}, nil
}

func (c *converter) attrDict(m map[string]*tfpb.AttrValue) (textir.DictAttr, error) {
	var es []textir.NamedAttribute
	for k, v := range m {
		if k == "" {
			return textir.DictAttr{}, fmt.Errorf("attribute with an empty name")
		}
		a, err := c.attr(v)
		if err != nil {
			return textir.DictAttr{}, fmt.Errorf("attribute %q: %w", k, err)
		}
		es = append(es, textir.NamedAttribute{Name: k, Value: a})
	}
	return textir.NewDictAttr(es), nil
}

// TensorAttr converts a TensorProto into a dense attribute, or into
// #tfg.tensor_proto<"0x..."> (its deterministic binary encoding) when the
// dtype has no builtin element type or the proto holds what dense cannot.
// A string tensor may store its values in tensor_content, as TensorFlow's
// C++ side writes them (the lengths as varints, then the bytes).
func TensorAttr(t *tfpb.TensorProto) (textir.Attribute, error) {
	return new(converter).tensor(t)
}

func (c *converter) tensor(t *tfpb.TensorProto) (textir.Attribute, error) {
	elem, err := ElemType(t.Dtype)
	if err != nil {
		return nil, err
	}
	s := shapeOf(t.TensorShape)
	if s.UnknownRank || s.Names != nil || t.VersionNumber != 0 || textir.ElemBytes(elem) == 0 && elem != tfg.String() {
		return opaqueTensor(t)
	}
	for _, d := range t.TensorShape.GetDim() {
		if d.GetSize() < 0 {
			return nil, fmt.Errorf("tensor shape has a negative dimension (%d)", d.GetSize())
		}
	}
	ty := textir.TensorOf(s.Dims, elem)
	n := ty.NumElements()
	if n < 0 {
		return nil, fmt.Errorf("tensor shape %s: element count overflows", s)
	}
	if elem == tfg.String() {
		if len(t.TensorContent) > 0 {
			// TensorFlow reads tensor_content before string_val, as here.
			vals, err := decodeStringList(t.TensorContent, n)
			if err != nil {
				return nil, fmt.Errorf("tensor of shape %s: %w", s, err)
			}
			return textir.DenseStrings(ty, vals), nil
		}
		vals := make([]string, len(t.StringVal))
		for i, v := range t.StringVal {
			vals[i] = string(v)
		}
		if int64(len(vals)) > n {
			return nil, fmt.Errorf("tensor of shape %s has %d string values", s, len(vals))
		}
		if int64(len(vals)) < n && allEqual(vals) {
			vals = vals[:min(len(vals), 1)]
		} else if err := c.checkExpand(s, int64(len(vals)), n); err != nil {
			return nil, err
		}
		return textir.DenseStrings(ty, expand(vals, n)), nil
	}
	eb := int64(textir.ElemBytes(elem))
	if len(t.TensorContent) > 0 {
		if int64(len(t.TensorContent)) != n*eb {
			return nil, fmt.Errorf("tensor_content has %d bytes, shape %s of %s needs %d", len(t.TensorContent), s, elem, n*eb)
		}
		return &textir.DenseElementsAttr{Type: ty, Data: append([]byte(nil), t.TensorContent...)}, nil
	}
	ft, isFloat := elem.(*textir.FloatType)
	var ints []int64
	var floats []float64
	switch t.Dtype {
	case tfpb.DataType_DT_FLOAT:
		for _, v := range t.FloatVal {
			floats = append(floats, float64(v))
		}
	case tfpb.DataType_DT_DOUBLE:
		floats = t.DoubleVal
	case tfpb.DataType_DT_HALF, tfpb.DataType_DT_BFLOAT16:
		for _, v := range t.HalfVal { // raw 16-bit patterns
			ints = append(ints, int64(uint16(v)))
		}
	case tfpb.DataType_DT_INT32, tfpb.DataType_DT_INT16, tfpb.DataType_DT_INT8, tfpb.DataType_DT_UINT8, tfpb.DataType_DT_UINT16:
		for _, v := range t.IntVal {
			ints = append(ints, int64(v))
		}
	case tfpb.DataType_DT_INT64:
		ints = t.Int64Val
	case tfpb.DataType_DT_UINT32:
		for _, v := range t.Uint32Val {
			ints = append(ints, int64(v))
		}
	case tfpb.DataType_DT_UINT64:
		for _, v := range t.Uint64Val {
			ints = append(ints, int64(v))
		}
	case tfpb.DataType_DT_BOOL:
		for _, v := range t.BoolVal {
			if v {
				ints = append(ints, 1)
			} else {
				ints = append(ints, 0)
			}
		}
	default:
		return opaqueTensor(t)
	}
	k := int64(len(ints) + len(floats))
	if k > n {
		return nil, fmt.Errorf("tensor of shape %s has %d values", s, k)
	}
	// Values all equal make a splat (TensorFlow repeats the last value);
	// anything else fewer than n is expanded, within the limit.
	if k < n && allEqual(ints) && allEqualBits(floats) {
		ints, floats = ints[:min(len(ints), 1)], floats[:min(len(floats), 1)]
		k = int64(len(ints) + len(floats))
	} else if err := c.checkExpand(s, k, n); err != nil {
		return nil, err
	}
	if isFloat && (t.Dtype == tfpb.DataType_DT_FLOAT || t.Dtype == tfpb.DataType_DT_DOUBLE) {
		return &textir.DenseElementsAttr{Type: ty, Splat: splatOf(k, n), Data: floatBytes(ft, expand(floats, n))}, nil
	}
	return &textir.DenseElementsAttr{Type: ty, Splat: splatOf(k, n), Data: intBytes(eb, expand(ints, n))}, nil
}

// allEqual reports whether every value of v equals the first.
func allEqual[T comparable](v []T) bool {
	for _, x := range v[min(len(v), 1):] {
		if x != v[0] {
			return false
		}
	}
	return true
}

// allEqualBits is allEqual for floats, comparing bits (NaN equals itself).
func allEqualBits(v []float64) bool {
	for _, x := range v[min(len(v), 1):] {
		if math.Float64bits(x) != math.Float64bits(v[0]) {
			return false
		}
	}
	return true
}

// checkExpand charges the n elements materialised from k < n stored values
// to the converter's budget, and refuses them when all the tensors expanded
// so far (in one GraphDef) would go beyond textir.MaxDenseElements.
func (c *converter) checkExpand(s tfg.Shape, k, n int64) error {
	if k >= n {
		return nil
	}
	if c.deferExpand {
		return errDeferred
	}
	if n <= textir.MaxDenseElements-c.expanded {
		c.expanded += n
		return nil
	}
	what := fmt.Sprintf("tensor of shape %s with %d values (the last repeated) is too large to materialise", s, k)
	if c.expanded > 0 {
		what += fmt.Sprintf(" after %d elements expanded for other tensors", c.expanded)
	}
	return &textir.LimitError{What: what, Limit: textir.MaxDenseElements, Unit: "elements", Env: textir.EnvMaxDenseElements}
}

// decodeStringList decodes the n strings of a string tensor's
// tensor_content in TensorFlow's encoding (port::EncodeStringList): the n
// lengths as varint32s, then the strings' bytes, which must fill the rest
// exactly. Every length takes at least a byte, so a content of fewer bytes
// than n cannot hold the tensor: it is refused before anything is
// allocated, and the memory taken is linear in the content.
func decodeStringList(b []byte, n int64) ([]string, error) {
	if n > int64(len(b)) {
		return nil, fmt.Errorf("tensor_content of %d bytes cannot hold %d strings (a length takes at least a byte)", len(b), n)
	}
	lens := make([]uint32, n)
	pos := 0
	for i := range lens {
		v, m := protowire.ConsumeVarint(b[pos:])
		if m < 0 || v > math.MaxUint32 {
			return nil, fmt.Errorf("tensor_content: the length of string %d at byte %d is not a varint32", i, pos)
		}
		lens[i] = uint32(v)
		pos += m
	}
	total := int64(0)
	for _, l := range lens {
		total += int64(l)
	}
	if total != int64(len(b)-pos) {
		return nil, fmt.Errorf("tensor_content: the %d string lengths add up to %d bytes, but %d bytes follow them", n, total, len(b)-pos)
	}
	vals := make([]string, n)
	for i, l := range lens {
		vals[i] = string(b[pos : pos+int(l)])
		pos += int(l)
	}
	return vals, nil
}

// splatOf says whether k stored values for n elements make a splat: one
// value (or none, meaning zeros) standing for more than one element.
func splatOf(k, n int64) bool { return k <= 1 && n > 1 }

// expand returns the n elements that the k = len(v) stored values of a
// TensorProto stand for: TF repeats the last value; none stands for zeros,
// kept as one value, and so is one value (splatOf says these are splats).
func expand[T any](v []T, n int64) []T {
	if int64(len(v)) == n {
		return v
	}
	if len(v) == 0 {
		if n == 0 {
			return nil
		}
		return make([]T, 1)
	}
	if len(v) == 1 {
		return v
	}
	out := make([]T, n) // TF: the last value repeats
	copy(out, v)
	for i := int64(len(v)); i < n; i++ {
		out[i] = v[len(v)-1]
	}
	return out
}

func intBytes(eb int64, v []int64) []byte {
	b := make([]byte, int64(len(v))*eb)
	for i, x := range v {
		switch eb {
		case 1:
			b[i] = byte(x)
		case 2:
			binary.LittleEndian.PutUint16(b[int64(i)*2:], uint16(x))
		case 4:
			binary.LittleEndian.PutUint32(b[int64(i)*4:], uint32(x))
		default:
			binary.LittleEndian.PutUint64(b[int64(i)*8:], uint64(x))
		}
	}
	return b
}

func floatBytes(ft *textir.FloatType, v []float64) []byte {
	eb := textir.ElemBytes(ft)
	b := make([]byte, len(v)*eb)
	for i, x := range v {
		textir.PutFloat(b[i*eb:], ft, x)
	}
	return b
}

func opaqueTensor(t *tfpb.TensorProto) (textir.Attribute, error) {
	raw, err := proto.MarshalOptions{Deterministic: true}.Marshal(t)
	if err != nil {
		return nil, err
	}
	return textir.OpaqueAttr{Dialect: tfg.Name, Name: "tensor_proto", Params: textir.Quote(fmt.Sprintf("0x%X", raw))}, nil
}

// TensorProto converts a dense attribute back into TensorFlow's encoding:
// strings in string_val (one value for a splat); other dtypes with a single
// stored value (a splat, or a one-element tensor) in the *_val field, as
// TensorFlow writes scalars; everything else in tensor_content.
func TensorProto(d *textir.DenseElementsAttr) (*tfpb.TensorProto, error) {
	dt, err := DType(d.Type.Elem)
	if err != nil {
		return nil, err
	}
	t := &tfpb.TensorProto{Dtype: dt, TensorShape: shapeProto(tfg.Shape{Dims: d.Type.Shape})}
	n := d.NumElements()
	if d.IsString() {
		for _, s := range d.Strings {
			t.StringVal = append(t.StringVal, []byte(s))
		}
		return t, nil
	}
	if n == 0 {
		return t, nil
	}
	if !d.Splat && n > 1 {
		t.TensorContent = append([]byte(nil), d.Data...)
		return t, nil
	}
	switch dt {
	case tfpb.DataType_DT_FLOAT:
		t.FloatVal = []float32{float32(d.FloatAt(0))}
	case tfpb.DataType_DT_DOUBLE:
		t.DoubleVal = []float64{d.FloatAt(0)}
	case tfpb.DataType_DT_HALF, tfpb.DataType_DT_BFLOAT16:
		t.HalfVal = []int32{int32(binary.LittleEndian.Uint16(d.Data))}
	case tfpb.DataType_DT_INT32, tfpb.DataType_DT_INT16, tfpb.DataType_DT_INT8, tfpb.DataType_DT_UINT8, tfpb.DataType_DT_UINT16:
		t.IntVal = []int32{int32(d.IntAt(0))}
	case tfpb.DataType_DT_INT64:
		t.Int64Val = []int64{d.IntAt(0)}
	case tfpb.DataType_DT_UINT32:
		t.Uint32Val = []uint32{uint32(d.IntAt(0))}
	case tfpb.DataType_DT_UINT64:
		t.Uint64Val = []uint64{uint64(d.IntAt(0))}
	case tfpb.DataType_DT_BOOL:
		t.BoolVal = []bool{d.IntAt(0) != 0}
	default:
		t.TensorContent = append([]byte(nil), d.Data...)
	}
	return t, nil
}
