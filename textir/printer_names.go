package textir

import "unsafe"

// valTable maps values to their printed names: an open-addressing table
// keyed by the value's address. A Go map[*Value] spent most of the time of
// printing 1M ops in its probing (6.4 s); this table holds no pointers (the
// IR keeps the values alive and Go's heap does not move objects), so the
// garbage collector does not scan it, keys are hashed at random (Fibonacci
// hashing) so that no heap layout makes long probe chains, and a small
// direct-mapped cache in front catches the common case of an operand
// defined a few ops earlier (it cut the time of the lookups by ~40%).
type valTable struct {
	slots []vtEntry
	mask  uintptr
	shift uint
	near  []vtEntry // direct-mapped cache of recent lookups
}

// nearSize is the size of the cache in front of a large table; a small
// table gets a cache of its own size, so that printing many small
// modules (a file split into thousands of chunks) costs no more per
// module than its values.
const nearSize = 4096

// vtEntry is one value's name: num >= 0 prints %num, num < 0 prints the
// name at index -num-1 of the printer's names. res holds the result number
// plus one (0: no #n suffix) in its low 31 bits, and in its top bit whether
// the op of result 0 has several result groups.
type vtEntry struct {
	key uintptr
	num int32
	res uint32
}

const vtGrouped = 1 << 31

func (e vtEntry) resNo() int32  { return int32(e.res&^vtGrouped) - 1 }
func (e vtEntry) grouped() bool { return e.res&vtGrouped != 0 }

func (t *valTable) init(n int) {
	size := 64
	for size < 2*n {
		size <<= 1
	}
	t.slots = make([]vtEntry, size)
	t.near = make([]vtEntry, min(size, nearSize))
	t.mask = uintptr(size - 1)
	t.shift = 64
	for s := size; s > 1; s >>= 1 {
		t.shift--
	}
}

func (t *valTable) hash(k uintptr) uintptr {
	return uintptr(uint64(k>>4) * 0x9E3779B97F4A7C15 >> t.shift)
}

func (t *valTable) put(v *Value, num int32, resNo int32, grouped bool) {
	k := uintptr(unsafe.Pointer(v))
	e := vtEntry{key: k, num: num, res: uint32(resNo + 1)}
	if grouped {
		e.res |= vtGrouped
	}
	for i := t.hash(k); ; i = (i + 1) & t.mask {
		s := &t.slots[i]
		if s.key == 0 || s.key == k {
			*s = e
			return
		}
	}
}

func (t *valTable) get(v *Value) (vtEntry, bool) {
	if len(t.slots) == 0 {
		return vtEntry{}, false
	}
	k := uintptr(unsafe.Pointer(v))
	c := &t.near[k>>4&uintptr(len(t.near)-1)]
	if c.key == k {
		return *c, true
	}
	for i := t.hash(k); ; i = (i + 1) & t.mask {
		s := &t.slots[i]
		if s.key == k {
			*c = *s
			return *s, true
		}
		if s.key == 0 {
			return vtEntry{}, false
		}
	}
}
