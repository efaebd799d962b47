package gpu

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/recom-compiler/recom/textir"
)

// Space is an address space of a pointer.
type Space uint8

// The address spaces, numbered as NVPTX numbers them.
const (
	Generic Space = 0
	Global  Space = 1
	Shared  Space = 3
)

func (s Space) String() string {
	switch s {
	case Global:
		return "global"
	case Shared:
		return "shared"
	}
	return "generic"
}

// Buffer returns !gpu.buffer, a device allocation of bytes.
func Buffer() textir.Type { return textir.OpaqueTypeOf(Name, "buffer", "") }

// IsBuffer reports whether t is !gpu.buffer.
func IsBuffer(t textir.Type) bool { return t == Buffer() }

// PtrType returns !gpu.ptr<elem, space>. elem must be a builtin scalar
// type (IsElemType) and space Global or Shared.
func PtrType(elem textir.Type, space Space) textir.Type {
	t := textir.OpaqueTypeOf(Name, "ptr", elem.String()+", "+space.String())
	ptrCache.Store(t, ptrInfo{elem, space})
	return t
}

type ptrInfo struct {
	elem  textir.Type
	space Space
}

// ptrCache maps pointer types (uniqued) to their parts.
var ptrCache sync.Map

func ptrOf(t textir.Type) (ptrInfo, bool) {
	ot, ok := t.(*textir.OpaqueType)
	if !ok || ot.Dialect != Name || ot.Name != "ptr" {
		return ptrInfo{}, false
	}
	if v, ok := ptrCache.Load(t); ok {
		return v.(ptrInfo), true
	}
	elem, space, err := parsePtrParams(ot.Params)
	if err != nil {
		return ptrInfo{}, false
	}
	pi := ptrInfo{elem, space}
	ptrCache.Store(t, pi)
	return pi, true
}

// IsPtr reports whether t is a well-formed !gpu.ptr type.
func IsPtr(t textir.Type) bool { _, ok := ptrOf(t); return ok }

// PtrElem returns the element type of a pointer type, nil for other types.
func PtrElem(t textir.Type) textir.Type {
	pi, _ := ptrOf(t)
	return pi.elem
}

// PtrSpace returns the address space of a pointer type (Generic for
// other types).
func PtrSpace(t textir.Type) Space {
	pi, _ := ptrOf(t)
	return pi.space
}

// IsElemType reports whether t may be the element type of a pointer: a
// signless integer of 8, 16, 32 or 64 bits, or f16, bf16, f32, f64.
func IsElemType(t textir.Type) bool {
	switch t := t.(type) {
	case *textir.IntType:
		return t.Signedness == textir.Signless && (t.Width == 8 || t.Width == 16 || t.Width == 32 || t.Width == 64)
	case *textir.FloatType:
		return true
	}
	return false
}

// ElemBytes returns the size of a pointer element type in bytes.
func ElemBytes(t textir.Type) int { return textir.BitWidth(t) / 8 }

// parseType is the dialect's type hook: !gpu.buffer and !gpu.ptr<T, space>,
// checked and printed canonically ("T, space").
func parseType(name, params string) (textir.Type, error) {
	switch name {
	case "buffer":
		if params != "" {
			return nil, fmt.Errorf("!gpu.buffer takes no parameters")
		}
		return Buffer(), nil
	case "ptr":
		elem, space, err := parsePtrParams(params)
		if err != nil {
			return nil, err
		}
		return PtrType(elem, space), nil
	}
	return nil, fmt.Errorf("unknown gpu type '%s'", name)
}

func parsePtrParams(params string) (textir.Type, Space, error) {
	e, s, ok := strings.Cut(params, ",")
	if !ok {
		return nil, 0, fmt.Errorf("expected !gpu.ptr<element type, global|shared>, got !gpu.ptr<%s>", params)
	}
	elem := scalarType(strings.TrimSpace(e))
	if elem == nil || !IsElemType(elem) {
		return nil, 0, fmt.Errorf("!gpu.ptr element type must be i8, i16, i32, i64, f16, bf16, f32 or f64, got '%s'", strings.TrimSpace(e))
	}
	var space Space
	switch strings.TrimSpace(s) {
	case "global":
		space = Global
	case "shared":
		space = Shared
	default:
		return nil, 0, fmt.Errorf("!gpu.ptr address space must be global or shared, got '%s'", strings.TrimSpace(s))
	}
	return elem, space, nil
}

// scalarType reads a builtin scalar type name (iN, f16, bf16, f32, f64).
func scalarType(s string) textir.Type {
	switch s {
	case "f16":
		return textir.F16()
	case "bf16":
		return textir.BF16()
	case "f32":
		return textir.F32()
	case "f64":
		return textir.F64()
	}
	if strings.HasPrefix(s, "i") {
		if w, err := strconv.Atoi(s[1:]); err == nil && w > 0 && w <= 64 && s[1] != '0' && s[1] != '+' {
			return textir.IntegerType(w)
		}
	}
	return nil
}
