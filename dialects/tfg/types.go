// Package tfg is the TensorFlow graph dialect: one op per GraphDef node, in a
// graph region, with nothing lost.
//
// A GraphDef becomes
//
//	module {
//	  "tfg.graph"() ({
//	    %0:2 = "tfg.Const"() {_mlir_name = "c", dtype = f32, value = dense<1.0> : tensor<f32>} : () -> (tensor<f32>, !tfg.control)
//	    ...
//	  }) {versions = {min_consumer = 12 : i32, producer = 27 : i32}} : () -> ()
//	}
//
// Node n becomes an op named "tfg.<n.op>" whose operands are its data inputs
// followed by its control inputs (values of type !tfg.control), and whose
// results are its data outputs followed by one !tfg.control result. The node
// name is the op's location (loc("name")) and its "_mlir_name" attribute; the
// device, when set, is "_mlir_device"; experimental_type is "_mlir_fulltype"
// (a dictionary {type_id = N : i32, args = [...], s = "..." or i = N}) and
// experimental_debug_info is "_mlir_debug_info" (a dictionary of two string
// arrays, original_node_names and original_func_names). Every TensorFlow attribute
// keeps its name and maps as follows: s → string, i → i64 integer, f → f32
// float, b → bool, type → type attribute (see element types below), shape →
// #tfg.shape<2x?x3> (#tfg.shape<*> for unknown rank), tensor → dense<...>
// (or #tfg.tensor_proto<"0x..."> for dtypes without a builtin element
// type), func → #tfg.func<@name, {attrs}>, placeholder →
// #tfg.placeholder<"T">, list → array of the above, an empty AttrValue →
// unit.
//
// Element types: DT_FLOAT f32, DT_DOUBLE f64, DT_HALF f16, DT_BFLOAT16 bf16,
// DT_INT8/16/32/64 i8/i16/i32/i64, DT_UINT8/16/32/64 ui8/ui16/ui32/ui64,
// DT_BOOL i1, DT_INT4 si4, DT_UINT4 ui4, DT_INT2 si2, DT_UINT2 ui2, and
// !tfg.string, !tfg.resource, !tfg.variant, !tfg.complex64, !tfg.complex128,
// !tfg.qint8 (and the other quantized types), !tfg.float8_e5m2 (and the other
// float8 and float4 types); reference dtypes (DT_X_REF) are !tfg.ref<x>.
package tfg

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/recom-compiler/recom/dialects/tfg/optab"
	"github.com/recom-compiler/recom/textir"
)

// Name is the dialect namespace (the op table's, package optab).
const Name = optab.Dialect

// The dialect's plain types, uniqued once (IsControl runs for every
// operand of every tfg op a pass looks at).
var (
	controlType  textir.Type = textir.OpaqueTypeOf(Name, "control", "")
	stringType   textir.Type = textir.OpaqueTypeOf(Name, "string", "")
	resourceType textir.Type = textir.OpaqueTypeOf(Name, "resource", "")
	variantType  textir.Type = textir.OpaqueTypeOf(Name, "variant", "")
)

// Control returns !tfg.control, the type of control results and inputs.
func Control() textir.Type { return controlType }

// String returns !tfg.string.
func String() textir.Type { return stringType }

// Resource returns !tfg.resource.
func Resource() textir.Type { return resourceType }

// Variant returns !tfg.variant.
func Variant() textir.Type { return variantType }

// Ref returns !tfg.ref<elem>, the element type of a reference dtype.
func Ref(elem textir.Type) textir.Type { return textir.OpaqueTypeOf(Name, "ref", elem.String()) }

// IsControl reports whether t is !tfg.control.
func IsControl(t textir.Type) bool { return t == Control() }

// IsString reports whether t is !tfg.string or a tensor of it.
func IsString(t textir.Type) bool { return textir.ElementType(t) == String() }

// Shape is the value of a TensorFlow shape attribute.
type Shape struct {
	UnknownRank bool
	Dims        []int64  // -1 for unknown
	Names       []string // per dim; nil when no dim is named
}

// ShapeAttr returns #tfg.shape<...> for s.
func ShapeAttr(s Shape) textir.OpaqueAttr {
	return textir.OpaqueAttr{Dialect: Name, Name: "shape", Params: s.String()}
}

// String prints the shape as in #tfg.shape<...>: "*", "" (a scalar), or dims
// joined by 'x' with ? for unknown and an optional quoted name after a dim.
func (s Shape) String() string {
	if s.UnknownRank {
		return "*"
	}
	var b strings.Builder
	for i, d := range s.Dims {
		if i > 0 {
			b.WriteByte('x')
		}
		if d < 0 {
			b.WriteByte('?')
		} else {
			b.WriteString(strconv.FormatInt(d, 10))
		}
		if s.Names != nil && s.Names[i] != "" {
			b.WriteString(textir.Quote(s.Names[i]))
		}
	}
	return b.String()
}

// ParseShape reads the text of a #tfg.shape<...> attribute.
func ParseShape(text string) (Shape, error) {
	if text == "*" {
		return Shape{UnknownRank: true}, nil
	}
	s := Shape{Dims: []int64{}}
	if text == "" {
		return s, nil
	}
	named := false
	for len(text) > 0 {
		var d int64 = -1
		switch {
		case text[0] == '?':
			text = text[1:]
		default:
			i := 0
			for i < len(text) && text[i] >= '0' && text[i] <= '9' {
				i++
			}
			if i == 0 {
				return Shape{}, fmt.Errorf("bad shape %q: expected a dimension", text)
			}
			v, err := strconv.ParseInt(text[:i], 10, 64)
			if err != nil {
				return Shape{}, fmt.Errorf("bad shape dimension %q", text[:i])
			}
			d, text = v, text[i:]
		}
		name := ""
		if len(text) > 0 && text[0] == '"' {
			n, rest, err := unquotePrefix(text)
			if err != nil {
				return Shape{}, fmt.Errorf("bad shape: %v", err)
			}
			name, text = n, rest
			named = true
		}
		s.Dims = append(s.Dims, d)
		s.Names = append(s.Names, name)
		if len(text) > 0 {
			if text[0] != 'x' {
				return Shape{}, fmt.Errorf("bad shape: expected 'x', got %q", text)
			}
			text = text[1:]
			if text == "" {
				return Shape{}, fmt.Errorf("bad shape: trailing 'x'")
			}
		}
	}
	if !named {
		s.Names = nil
	}
	return s, nil
}

// unquotePrefix reads a string literal written by textir.Quote at the start
// of s and returns its value and the rest of s.
func unquotePrefix(s string) (string, string, error) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			return b.String(), s[i+1:], nil
		case c != '\\':
			b.WriteByte(c)
		case i+1 >= len(s):
			return "", "", fmt.Errorf("unterminated string")
		default:
			i++
			switch e := s[i]; e {
			case '"', '\\':
				b.WriteByte(e)
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				if i+1 >= len(s) {
					return "", "", fmt.Errorf("bad escape")
				}
				v, err := strconv.ParseUint(s[i:i+2], 16, 8)
				if err != nil {
					return "", "", fmt.Errorf("bad escape \\%s", s[i:i+2])
				}
				b.WriteByte(byte(v))
				i++
			}
		}
	}
	return "", "", fmt.Errorf("unterminated string")
}

// ShapeOf decodes a #tfg.shape attribute.
func ShapeOf(a textir.Attribute) (Shape, bool) {
	o, ok := a.(textir.OpaqueAttr)
	if !ok || o.Dialect != Name || o.Name != "shape" {
		return Shape{}, false
	}
	s, err := ParseShape(o.Params)
	return s, err == nil
}

// Unquote reads a string literal written by textir.Quote (MLIR's escapes).
func Unquote(s string) (string, error) {
	if len(s) < 2 || s[0] != '"' {
		return "", fmt.Errorf("expected a string literal, got %q", s)
	}
	v, rest, err := unquotePrefix(s)
	if err != nil {
		return "", err
	}
	if rest != "" {
		return "", fmt.Errorf("trailing text after string literal: %q", rest)
	}
	return v, nil
}
