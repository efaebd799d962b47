package nvptx

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"

	"github.com/recom-compiler/recom/textir"
)

const linkageInternal = enum.LinkageInternal

// NVPTX address spaces.
const (
	addrGeneric  = 0
	addrGlobal   = 1
	addrShared   = 3
	addrConstant = 4
	addrLocal    = 5
)

var addrSpaces = map[string]types.AddrSpace{
	"generic":  addrGeneric,
	"global":   addrGlobal,
	"shared":   addrShared,
	"constant": addrConstant,
	"local":    addrLocal,
}

// ptrInfo describes a !gpu.ptr<T, space> type.
type ptrInfo struct {
	elem  types.Type
	space types.AddrSpace
}

// parsePtr recognises !gpu.ptr<T, space>, whatever Go type carries it (an
// opaque dialect type or one the gpu dialect defines): it reads the type's
// textual form.
func parsePtr(t textir.Type) (ptrInfo, bool, error) {
	s := t.String()
	body, ok := strings.CutPrefix(s, "!gpu.ptr<")
	if !ok || !strings.HasSuffix(body, ">") {
		return ptrInfo{}, false, nil
	}
	body = strings.TrimSuffix(body, ">")
	elemText, spaceText, hasSpace := strings.Cut(body, ",")
	elem, err := scalarFromText(strings.TrimSpace(elemText))
	if err != nil {
		return ptrInfo{}, true, fmt.Errorf("%s: %v", s, err)
	}
	space := types.AddrSpace(addrGlobal)
	if hasSpace {
		st := strings.TrimSpace(spaceText)
		if sp, ok := addrSpaces[st]; ok {
			space = sp
		} else if n, err := strconv.ParseUint(st, 10, 32); err == nil {
			space = types.AddrSpace(n)
		} else {
			return ptrInfo{}, true, fmt.Errorf("%s: unknown address space %q", s, st)
		}
	}
	return ptrInfo{elem: elem, space: space}, true, nil
}

// scalarFromText maps a builtin scalar type's text to its LLVM type.
func scalarFromText(s string) (types.Type, error) {
	switch s {
	case "f16":
		return types.Half, nil
	case "f32":
		return types.Float, nil
	case "f64":
		return types.Double, nil
	case "index":
		return types.I64, nil
	}
	if w, ok := strings.CutPrefix(s, "i"); ok {
		if n, err := strconv.Atoi(w); err == nil && n > 0 && n <= 128 {
			return types.NewInt(uint64(n)), nil
		}
	}
	return nil, fmt.Errorf("unsupported element type %s", s)
}

// llvmType maps a scalar or !gpu.ptr type to its LLVM type. Pointers are
// typed pointers in their address space (float addrspace(1)*).
func llvmType(t textir.Type) (types.Type, error) {
	switch t := t.(type) {
	case *textir.IntType:
		if t.Signedness != textir.Signless {
			return nil, fmt.Errorf("unsupported type %s (only signless integers)", t)
		}
		if t.Width <= 0 || t.Width > 128 {
			return nil, fmt.Errorf("unsupported integer width in %s", t)
		}
		if t.Width == 1 {
			return types.I1, nil
		}
		return types.NewInt(uint64(t.Width)), nil
	case *textir.IndexType:
		return types.I64, nil
	case *textir.FloatType:
		return scalarFromText(t.String())
	}
	p, isPtr, err := parsePtr(t)
	if err != nil {
		return nil, err
	}
	if isPtr {
		pt := types.NewPointer(p.elem)
		pt.AddrSpace = p.space
		return pt, nil
	}
	return nil, fmt.Errorf("unsupported type %s", t)
}

// Attribute helpers: attributes may live in properties or be discardable.

func stringAttr(op *textir.Operation, name string) (string, bool) {
	switch a := op.LookupAttr(name).(type) {
	case textir.StringAttr:
		return a.Value, true
	case textir.SymbolRefAttr:
		if len(a.Nested) == 0 {
			return a.Root, true
		}
		return a.Nested[len(a.Nested)-1], true
	case textir.OpaqueAttr:
		// #gpu<dim x> or #gpu.dim<x>: the last word names the value.
		s := strings.TrimSpace(a.Params)
		if i := strings.LastIndexAny(s, " \t"); i >= 0 {
			s = s[i+1:]
		}
		return s, s != ""
	}
	return "", false
}

func intAttr(op *textir.Operation, name string) (int64, bool) {
	switch a := op.LookupAttr(name).(type) {
	case textir.IntegerAttr:
		return a.Value, true
	}
	return 0, false
}

func hasUnit(op *textir.Operation, name string) bool {
	switch a := op.LookupAttr(name).(type) {
	case nil:
		return false
	case textir.BoolAttr:
		return a.Value
	}
	return true
}
