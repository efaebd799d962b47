package textir

import (
	"encoding/binary"
	"math"
	"slices"
	"sort"
)

// Attribute is an immutable compile-time value attached to an operation.
// Compare attributes with AttrEqual; hash them with AttrHash.
type Attribute interface{ isAttr() }

// IntegerAttr is a typed integer, e.g. 5 : i64 or 3 : index. Values of
// unsigned 64-bit types are stored as their bit pattern.
type IntegerAttr struct {
	Value int64
	Type  Type
}

// FloatAttr is a typed float, e.g. 1.5 : f32.
type FloatAttr struct {
	Value float64
	Type  Type
}

// StringAttr is a string (arbitrary bytes), e.g. "abc". Type is usually nil.
type StringAttr struct {
	Value string
	Type  Type
}

// BoolAttr is true or false.
type BoolAttr struct{ Value bool }

// UnitAttr is the unit attribute (present, no value).
type UnitAttr struct{}

// ArrayAttr is [a, b, c].
type ArrayAttr struct{ Elems []Attribute }

// NamedAttribute is one name = value entry.
type NamedAttribute struct {
	Name  string
	Value Attribute
}

// DictAttr is {a = 1, b}. Entries are sorted by name and unique; build it
// with NewDictAttr.
type DictAttr struct{ Entries []NamedAttribute }

// TypeAttr holds a type, e.g. f32 or tensor<2xi64>.
type TypeAttr struct{ Type Type }

// SymbolRefAttr is @root or @root::@nested.
type SymbolRefAttr struct {
	Root   string
	Nested []string
}

// OpaqueAttr is a dialect attribute kept as text: #dialect.name<params>.
type OpaqueAttr struct {
	Dialect string
	Name    string
	Params  string
}

// DenseElementsAttr is dense<...> : tensor<...>. Numeric elements are stored
// little-endian in Data, each element in BitWidth/8 bytes (i1 in one byte,
// 0 or 1); elements of any non-builtin element type (strings such as
// !tfg.string) are in Strings. A splat stores exactly one element.
type DenseElementsAttr struct {
	Type    *TensorType
	Splat   bool
	Data    []byte
	Strings []string
}

func (IntegerAttr) isAttr()        {}
func (FloatAttr) isAttr()          {}
func (StringAttr) isAttr()         {}
func (BoolAttr) isAttr()           {}
func (UnitAttr) isAttr()           {}
func (ArrayAttr) isAttr()          {}
func (DictAttr) isAttr()           {}
func (TypeAttr) isAttr()           {}
func (SymbolRefAttr) isAttr()      {}
func (OpaqueAttr) isAttr()         {}
func (*DenseElementsAttr) isAttr() {}

// NewDictAttr returns a dictionary with the entries sorted by name. A later
// entry with the same name replaces an earlier one.
func NewDictAttr(entries []NamedAttribute) DictAttr {
	es := slices.Clone(entries)
	sort.SliceStable(es, func(i, j int) bool { return es[i].Name < es[j].Name })
	out := es[:0]
	for _, e := range es {
		if len(out) > 0 && out[len(out)-1].Name == e.Name {
			out[len(out)-1] = e
			continue
		}
		out = append(out, e)
	}
	return DictAttr{Entries: out}
}

// Get returns the value named name, or nil.
func (d DictAttr) Get(name string) Attribute {
	i := sort.Search(len(d.Entries), func(i int) bool { return d.Entries[i].Name >= name })
	if i < len(d.Entries) && d.Entries[i].Name == name {
		return d.Entries[i].Value
	}
	return nil
}

// I64Attr returns name = v : i64.
func I64Attr(v int64) IntegerAttr { return IntegerAttr{Value: v, Type: I64()} }

// Str returns a StringAttr.
func Str(s string) StringAttr { return StringAttr{Value: s} }

// ElemBytes returns the storage size of one element of a dense attribute
// with element type t, or 0 when t's elements are stored as strings.
func ElemBytes(t Type) int {
	w := BitWidth(t)
	switch {
	case w == 0:
		return 0
	case w <= 8:
		return 1
	}
	return (w + 7) / 8
}

// NumElements returns the number of elements the attribute denotes.
func (d *DenseElementsAttr) NumElements() int64 { return d.Type.NumElements() }

// IsString reports whether the elements are stored as strings.
func (d *DenseElementsAttr) IsString() bool { return ElemBytes(d.Type.Elem) == 0 }

// storedIndex maps element i to its stored position (0 for a splat).
func (d *DenseElementsAttr) storedIndex(i int64) int64 {
	if d.Splat {
		return 0
	}
	return i
}

// IntAt returns element i of an integer/index/bool attribute, sign-extended
// for signless and signed types and zero-extended for unsigned ones and i1.
// Elements of any width (i24, i48, ...) are stored in (width+7)/8 bytes.
func (d *DenseElementsAttr) IntAt(i int64) int64 {
	eb := int64(ElemBytes(d.Type.Elem))
	off := d.storedIndex(i) * eb
	b := d.Data[off : off+eb]
	var u uint64
	for k := eb - 1; k >= 0; k-- {
		u = u<<8 | uint64(b[k])
	}
	width := BitWidth(d.Type.Elem)
	if width >= 64 {
		return int64(u)
	}
	u &= 1<<uint(width) - 1
	if it, ok := d.Type.Elem.(*IntType); ok && (it.Signedness == Unsigned || it.Width == 1) {
		return int64(u)
	}
	if u&(1<<uint(width-1)) != 0 { // sign-extend
		u |= ^uint64(0) << uint(width)
	}
	return int64(u)
}

// FloatAt returns element i of a float attribute (f16 and bf16 widened).
func (d *DenseElementsAttr) FloatAt(i int64) float64 {
	ft := d.Type.Elem.(*FloatType)
	eb := ElemBytes(ft)
	off := d.storedIndex(i) * int64(eb)
	b := d.Data[off : off+int64(eb)]
	switch ft.Kind {
	case KindF16:
		return float64(HalfToFloat32(binary.LittleEndian.Uint16(b)))
	case KindBF16:
		return float64(math.Float32frombits(uint32(binary.LittleEndian.Uint16(b)) << 16))
	case KindF32:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
	default:
		return math.Float64frombits(binary.LittleEndian.Uint64(b))
	}
}

// StringAt returns element i of a string attribute.
func (d *DenseElementsAttr) StringAt(i int64) string { return d.Strings[d.storedIndex(i)] }

// DenseInts builds a dense integer (or index/i1) attribute of type t from vals;
// a single value makes a splat.
func DenseInts(t *TensorType, vals []int64) *DenseElementsAttr {
	eb := ElemBytes(t.Elem)
	data := make([]byte, len(vals)*eb)
	for i, v := range vals {
		putInt(data[i*eb:], eb, v)
	}
	return &DenseElementsAttr{Type: t, Splat: len(vals) == 1 && t.NumElements() != 1, Data: data}
}

// DenseFloats builds a dense float attribute of type t from vals; a single
// value makes a splat.
func DenseFloats(t *TensorType, vals []float64) *DenseElementsAttr {
	ft := t.Elem.(*FloatType)
	eb := ElemBytes(ft)
	data := make([]byte, len(vals)*eb)
	for i, v := range vals {
		PutFloat(data[i*eb:], ft, v)
	}
	return &DenseElementsAttr{Type: t, Splat: len(vals) == 1 && t.NumElements() != 1, Data: data}
}

// DenseStrings builds a dense attribute of string elements.
func DenseStrings(t *TensorType, vals []string) *DenseElementsAttr {
	return &DenseElementsAttr{Type: t, Splat: len(vals) == 1 && t.NumElements() != 1, Strings: slices.Clone(vals)}
}

func putInt(b []byte, eb int, v int64) {
	for k := 0; k < eb; k++ {
		b[k] = byte(v >> (8 * uint(k)))
	}
}

// PutFloat stores v in b in the layout of float type ft.
func PutFloat(b []byte, ft *FloatType, v float64) {
	switch ft.Kind {
	case KindF16:
		binary.LittleEndian.PutUint16(b, Float32ToHalf(float32(v)))
	case KindBF16:
		binary.LittleEndian.PutUint16(b, uint16(math.Float32bits(float32(v))>>16))
	case KindF32:
		binary.LittleEndian.PutUint32(b, math.Float32bits(float32(v)))
	default:
		binary.LittleEndian.PutUint64(b, math.Float64bits(v))
	}
}

// HalfToFloat32 converts IEEE binary16 bits to float32.
func HalfToFloat32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h) & 0x3ff
	switch {
	case exp == 0 && mant == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal
		for mant&0x400 == 0 {
			mant <<= 1
			exp--
		}
		exp++
		mant &= 0x3ff
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	}
	return math.Float32frombits(sign | (exp+112)<<23 | mant<<13)
}

// Float32ToHalf converts float32 to IEEE binary16 bits, rounding to nearest even.
func Float32ToHalf(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23&0xff) - 127 + 15
	mant := b & 0x7fffff
	switch {
	case b&0x7fffffff > 0x7f800000: // NaN
		return sign | 0x7e00
	case exp >= 0x1f:
		return sign | 0x7c00
	case exp <= 0:
		if exp < -10 {
			return sign
		}
		mant |= 0x800000
		shift := uint32(14 - exp)
		half := uint32(1) << (shift - 1)
		r := mant >> shift
		if rem := mant & (1<<shift - 1); rem > half || (rem == half && r&1 == 1) {
			r++
		}
		return sign | uint16(r)
	}
	r := uint32(exp)<<10 | mant>>13
	if rem := mant & 0x1fff; rem > 0x1000 || (rem == 0x1000 && r&1 == 1) {
		r++
	}
	return sign | uint16(r)
}

// AttrEqual reports whether two attributes are structurally equal.
func AttrEqual(a, b Attribute) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	switch a := a.(type) {
	case IntegerAttr:
		b, ok := b.(IntegerAttr)
		return ok && a == b
	case FloatAttr:
		b, ok := b.(FloatAttr)
		return ok && a.Type == b.Type && math.Float64bits(a.Value) == math.Float64bits(b.Value)
	case StringAttr:
		b, ok := b.(StringAttr)
		return ok && a == b
	case BoolAttr:
		b, ok := b.(BoolAttr)
		return ok && a == b
	case UnitAttr:
		_, ok := b.(UnitAttr)
		return ok
	case TypeAttr:
		b, ok := b.(TypeAttr)
		return ok && a == b
	case OpaqueAttr:
		b, ok := b.(OpaqueAttr)
		return ok && a == b
	case SymbolRefAttr:
		b, ok := b.(SymbolRefAttr)
		return ok && a.Root == b.Root && slices.Equal(a.Nested, b.Nested)
	case ArrayAttr:
		b, ok := b.(ArrayAttr)
		return ok && slices.EqualFunc(a.Elems, b.Elems, AttrEqual)
	case DictAttr:
		b, ok := b.(DictAttr)
		return ok && slices.EqualFunc(a.Entries, b.Entries, func(x, y NamedAttribute) bool {
			return x.Name == y.Name && AttrEqual(x.Value, y.Value)
		})
	case *DenseElementsAttr:
		b, ok := b.(*DenseElementsAttr)
		if !ok || a.Type != b.Type {
			return false
		}
		if a == b {
			return true
		}
		n := a.NumElements()
		if a.Splat == b.Splat {
			return string(a.Data) == string(b.Data) && slices.Equal(a.Strings, b.Strings)
		}
		for i := int64(0); i < n; i++ { // one splat, one not
			if a.IsString() {
				if a.StringAt(i) != b.StringAt(i) {
					return false
				}
				continue
			}
			eb := int64(ElemBytes(a.Type.Elem))
			if string(a.Data[a.storedIndex(i)*eb:][:eb]) != string(b.Data[b.storedIndex(i)*eb:][:eb]) {
				return false
			}
		}
		return true
	}
	return false
}

// AttrHash returns a hash consistent with AttrEqual.
func AttrHash(a Attribute) uint64 {
	h := uint64(14695981039346656037)
	mix := func(v uint64) { h = (h ^ v) * 1099511628211 }
	mixs := func(s string) {
		for i := 0; i < len(s); i++ {
			mix(uint64(s[i]))
		}
		mix(0xff)
	}
	var walk func(a Attribute)
	walk = func(a Attribute) {
		switch a := a.(type) {
		case nil:
			mix(1)
		case IntegerAttr:
			mix(2)
			mix(uint64(a.Value))
			mixs(typeName(a.Type))
		case FloatAttr:
			mix(3)
			mix(math.Float64bits(a.Value))
			mixs(typeName(a.Type))
		case StringAttr:
			mix(4)
			mixs(a.Value)
		case BoolAttr:
			mix(5)
			if a.Value {
				mix(1)
			}
		case UnitAttr:
			mix(6)
		case TypeAttr:
			mix(7)
			mixs(typeName(a.Type))
		case OpaqueAttr:
			mix(8)
			mixs(a.Dialect + "." + a.Name + "<" + a.Params)
		case SymbolRefAttr:
			mix(9)
			mixs(a.Root)
			for _, n := range a.Nested {
				mixs(n)
			}
		case ArrayAttr:
			mix(10)
			for _, e := range a.Elems {
				walk(e)
			}
		case DictAttr:
			mix(11)
			for _, e := range a.Entries {
				mixs(e.Name)
				walk(e.Value)
			}
		case *DenseElementsAttr:
			mix(12) // the type and first element: cheap and consistent with splat/non-splat equality
			mixs(a.Type.String())
			if a.NumElements() > 0 {
				if a.IsString() {
					mixs(a.StringAt(0))
				} else {
					eb := int64(ElemBytes(a.Type.Elem))
					mixs(string(a.Data[:eb]))
				}
			}
		}
	}
	walk(a)
	return h
}

func typeName(t Type) string {
	if t == nil {
		return ""
	}
	return t.String()
}
