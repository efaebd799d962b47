package rewrite

import (
	"unsafe"

	"github.com/recom-compiler/recom/textir"
)

// Fingerprint hashes the structure of op and everything nested in it: op
// identities and order, names, operands, result types, attributes,
// properties, successors and block arguments. Two fingerprints differ when
// the IR changed (up to hash collisions). It costs a walk of the IR.
func Fingerprint(op *textir.Operation) uint64 {
	h := uint64(14695981039346656037)
	mix := func(v uint64) { h = (h ^ v) * 1099511628211; h ^= h >> 29 }
	ptr := func(p unsafe.Pointer) { mix(uint64(uintptr(p))) }
	var walk func(o *textir.Operation)
	walk = func(o *textir.Operation) {
		ptr(unsafe.Pointer(o))
		ptr(unsafe.Pointer(o.Info()))
		for i := 0; i < o.NumOperands(); i++ {
			ptr(unsafe.Pointer(o.Operand(i)))
		}
		for i := 0; i < o.NumResults(); i++ {
			mix(typeHash(o.Result(i).Type()))
		}
		mix(textir.AttrHash(o.Props()))
		for _, a := range o.Attrs() {
			mix(textir.AttrHash(textir.Str(a.Name)))
			mix(textir.AttrHash(a.Value))
		}
		for _, s := range o.Successors() {
			ptr(unsafe.Pointer(s))
		}
		for _, r := range o.Regions() {
			mix(0x5e)
			for _, b := range r.Blocks() {
				ptr(unsafe.Pointer(b))
				for _, a := range b.Args() {
					ptr(unsafe.Pointer(a))
					mix(typeHash(a.Type()))
				}
				for n := b.First(); n != nil; n = n.Next() {
					walk(n)
				}
				mix(0xb1)
			}
		}
	}
	walk(op)
	return h
}

func typeHash(t textir.Type) uint64 {
	if t == nil {
		return 0
	}
	return textir.AttrHash(textir.TypeAttr{Type: t})
}
