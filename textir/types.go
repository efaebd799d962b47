package textir

import (
	"strconv"
	"strings"
	"sync"
)

// Type is an IR type. Types are uniqued: equal types are identical values, so
// they compare with ==. Build them with the constructors in this file
// (IntegerType, F32, TensorOf, ...), never with composite literals.
type Type interface {
	// String returns the type in MLIR's textual syntax.
	String() string
	isType()
}

// Signedness of an integer type: signless (iN), signed (siN), unsigned (uiN).
type Signedness uint8

const (
	Signless Signedness = iota
	Signed
	Unsigned
)

// IntType is iN, siN or uiN.
type IntType struct {
	Width      int
	Signedness Signedness
	str        string
}

// FloatKind names a builtin float type.
type FloatKind uint8

const (
	KindF16 FloatKind = iota
	KindBF16
	KindF32
	KindF64
)

// FloatType is f16, bf16, f32 or f64.
type FloatType struct {
	Kind FloatKind
	str  string
}

// IndexType is the builtin index type.
type IndexType struct{}

// NoneType is the builtin none type.
type NoneType struct{}

// Dynamic marks an unknown dimension (printed as ?).
const Dynamic int64 = -1

// TensorType is a ranked tensor: tensor<2x?xf32>.
type TensorType struct {
	Shape []int64 // Dynamic for ?
	Elem  Type
	str   string
}

// UnrankedTensorType is tensor<*xT>.
type UnrankedTensorType struct {
	Elem Type
	str  string
}

// FunctionType is (T1, T2) -> (R1, R2).
type FunctionType struct {
	Inputs  []Type
	Results []Type
	str     string
}

// OpaqueType is a dialect type kept as text: !dialect.name or
// !dialect.name<body>. Dialects that need structure parse Body themselves.
type OpaqueType struct {
	Dialect string // "tfg"
	Name    string // "string" in !tfg.string, or "" for !tfg<"...">
	Params  string // the text between < and >, without them; "" if absent
	str     string
}

func (*IntType) isType()            {}
func (*FloatType) isType()          {}
func (*IndexType) isType()          {}
func (*NoneType) isType()           {}
func (*TensorType) isType()         {}
func (*UnrankedTensorType) isType() {}
func (*FunctionType) isType()       {}
func (*OpaqueType) isType()         {}

func (t *IntType) String() string            { return t.str }
func (t *FloatType) String() string          { return t.str }
func (*IndexType) String() string            { return "index" }
func (*NoneType) String() string             { return "none" }
func (t *TensorType) String() string         { return t.str }
func (t *UnrankedTensorType) String() string { return t.str }
func (t *FunctionType) String() string       { return t.str }
func (t *OpaqueType) String() string         { return t.str }

// The type uniquer. Types are immutable and shared by every Context.
var typeUniq struct {
	sync.Mutex
	m map[string]Type
}

func uniqueType(key string, mk func() Type) Type {
	typeUniq.Lock()
	defer typeUniq.Unlock()
	if t, ok := typeUniq.m[key]; ok {
		return t
	}
	if typeUniq.m == nil {
		typeUniq.m = map[string]Type{}
	}
	t := mk()
	typeUniq.m[key] = t
	return t
}

var (
	indexType = &IndexType{}
	noneType  = &NoneType{}
	f16Type   = &FloatType{KindF16, "f16"}
	bf16Type  = &FloatType{KindBF16, "bf16"}
	f32Type   = &FloatType{KindF32, "f32"}
	f64Type   = &FloatType{KindF64, "f64"}
)

// Index returns the index type.
func Index() Type { return indexType }

// None returns the none type.
func None() Type { return noneType }

// F16 returns f16.
func F16() Type { return f16Type }

// BF16 returns bf16.
func BF16() Type { return bf16Type }

// F32 returns f32.
func F32() Type { return f32Type }

// F64 returns f64.
func F64() Type { return f64Type }

// MaxIntWidth is the widest integer type accepted (as MLIR's limit).
const MaxIntWidth = 1 << 24

// IntegerType returns the signless integer type iN.
func IntegerType(width int) Type { return IntegerTypeOf(width, Signless) }

// IntegerTypeOf returns iN, siN or uiN.
func IntegerTypeOf(width int, s Signedness) Type {
	prefix := "i"
	switch s {
	case Signed:
		prefix = "si"
	case Unsigned:
		prefix = "ui"
	}
	key := prefix + strconv.Itoa(width)
	return uniqueType(key, func() Type { return &IntType{Width: width, Signedness: s, str: key} })
}

// I1, I32 and I64 are shorthands.
func I1() Type  { return IntegerType(1) }
func I8() Type  { return IntegerType(8) }
func I16() Type { return IntegerType(16) }
func I32() Type { return IntegerType(32) }
func I64() Type { return IntegerType(64) }

// TensorOf returns the ranked tensor type with the given shape (Dynamic for ?).
func TensorOf(shape []int64, elem Type) *TensorType {
	var b strings.Builder
	b.WriteString("tensor<")
	for _, d := range shape {
		if d < 0 {
			b.WriteString("?")
		} else {
			b.WriteString(strconv.FormatInt(d, 10))
		}
		b.WriteByte('x')
	}
	b.WriteString(elem.String())
	b.WriteByte('>')
	key := b.String()
	return uniqueType(key, func() Type {
		return &TensorType{Shape: append([]int64(nil), shape...), Elem: elem, str: key}
	}).(*TensorType)
}

// UnrankedTensorOf returns tensor<*xT>.
func UnrankedTensorOf(elem Type) *UnrankedTensorType {
	key := "tensor<*x" + elem.String() + ">"
	return uniqueType(key, func() Type { return &UnrankedTensorType{Elem: elem, str: key} }).(*UnrankedTensorType)
}

// FunctionTypeOf returns the function type (inputs) -> (results).
func FunctionTypeOf(inputs, results []Type) *FunctionType {
	var b strings.Builder
	b.WriteByte('(')
	for i, t := range inputs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(t.String())
	}
	b.WriteString(") -> ")
	if len(results) == 1 {
		if _, isFn := results[0].(*FunctionType); !isFn {
			b.WriteString(results[0].String())
		} else {
			b.WriteString("(" + results[0].String() + ")")
		}
	} else {
		b.WriteByte('(')
		for i, t := range results {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(t.String())
		}
		b.WriteByte(')')
	}
	key := b.String()
	return uniqueType(key, func() Type {
		return &FunctionType{Inputs: append([]Type(nil), inputs...), Results: append([]Type(nil), results...), str: key}
	}).(*FunctionType)
}

// OpaqueTypeOf returns !dialect.name<params> (params without the angle
// brackets; "" prints none). With name "" it is !dialect<params>.
func OpaqueTypeOf(dialect, name, params string) *OpaqueType {
	key := "!" + dialect
	if name != "" {
		key += "." + name
	}
	if params != "" {
		key += "<" + params + ">"
	}
	return uniqueType(key, func() Type {
		return &OpaqueType{Dialect: dialect, Name: name, Params: params, str: key}
	}).(*OpaqueType)
}

// ElementType returns the element type of a tensor type, or t itself.
func ElementType(t Type) Type {
	switch t := t.(type) {
	case *TensorType:
		return t.Elem
	case *UnrankedTensorType:
		return t.Elem
	}
	return t
}

// IsIntOrIndex reports whether t is an integer or index type.
func IsIntOrIndex(t Type) bool {
	switch t.(type) {
	case *IntType, *IndexType:
		return true
	}
	return false
}

// IsFloat reports whether t is a builtin float type.
func IsFloat(t Type) bool { _, ok := t.(*FloatType); return ok }

// BitWidth returns the width of an integer or float type, 64 for index, and
// 0 for anything else.
func BitWidth(t Type) int {
	switch t := t.(type) {
	case *IntType:
		return t.Width
	case *IndexType:
		return 64
	case *FloatType:
		switch t.Kind {
		case KindF16, KindBF16:
			return 16
		case KindF32:
			return 32
		case KindF64:
			return 64
		}
	}
	return 0
}

// HasStaticShape reports whether t is a ranked tensor without dynamic dims.
func (t *TensorType) HasStaticShape() bool {
	for _, d := range t.Shape {
		if d < 0 {
			return false
		}
	}
	return true
}

// NumElements returns the element count of a static shape, or -1 if any
// dimension is dynamic or the count overflows int64.
func (t *TensorType) NumElements() int64 { return NumElements(t.Shape) }

// NumElements returns the product of dims, -1 if a dim is dynamic or the
// product overflows int64.
func NumElements(shape []int64) int64 {
	n := int64(1)
	for _, d := range shape {
		if d < 0 {
			return -1
		}
		if d != 0 && n > (1<<63-1)/d {
			return -1
		}
		n *= d
	}
	return n
}
