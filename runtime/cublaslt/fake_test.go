package cublaslt

import (
	"encoding/binary"
	"math"
)

// fakeLt is the simulated cuBLASLt (Sim) over a device of its own:
// device memory is byte slices at made-up addresses, a product runs at
// the call (a failure is the call's CUBLAS_STATUS_INVALID_VALUE), and a
// context is current only inside current, the Handle's hook.
type fakeLt struct {
	*Sim
	mem   map[uint64][]byte
	next  uint64
	inCtx bool
}

func newFakeLt() *fakeLt {
	g := &fakeLt{mem: map[uint64][]byte{}, next: 0x10000}
	g.Sim = newSim(g)
	return g
}

func (g *fakeLt) inContext() bool { return g.inCtx }

func (g *fakeLt) run(_ uintptr, work func(mem func(addr, n uint64) []byte) error) Status {
	if work(g.find) != nil {
		return StatusInvalidValue
	}
	return StatusSuccess
}

// current is the Handle's context hook: f runs with the context current.
func (g *fakeLt) current(f func() error) error {
	g.inCtx = true
	defer func() { g.inCtx = false }()
	return f()
}

// fakeBuf is an allocation of the fake's memory.
type fakeBuf struct {
	addr uint64
	size int64
}

func (b fakeBuf) Addr() uint64 { return b.addr }
func (b fakeBuf) Size() int64  { return b.size }

// alloc returns n bytes at a 256-byte aligned address.
func (g *fakeLt) alloc(n int64) fakeBuf {
	b := fakeBuf{addr: g.next, size: n}
	g.mem[g.next] = make([]byte, n)
	g.next += (uint64(n) + 511) / 256 * 256
	return b
}

// find returns the n bytes at addr, nil when no allocation holds them.
func (g *fakeLt) find(addr, n uint64) []byte {
	for base, b := range g.mem {
		if addr >= base && addr+n <= base+uint64(len(b)) {
			return b[addr-base : addr-base+n]
		}
	}
	return nil
}

// putF32 and putBF16 store host values at b; getF32 and getBF16 read them.
func (g *fakeLt) putF32(b fakeBuf, v []float32) {
	m := g.find(b.addr, uint64(4*len(v)))
	for i, x := range v {
		binary.LittleEndian.PutUint32(m[4*i:], math.Float32bits(x))
	}
}

func (g *fakeLt) putBF16(b fakeBuf, v []Bfloat16) {
	m := g.find(b.addr, uint64(2*len(v)))
	for i, x := range v {
		binary.LittleEndian.PutUint16(m[2*i:], uint16(x))
	}
}

func (g *fakeLt) getF32(b fakeBuf, n int) []float32 {
	m := g.find(b.addr, uint64(4*n))
	v := make([]float32, n)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(m[4*i:]))
	}
	return v
}

func (g *fakeLt) getBF16(b fakeBuf, n int) []float32 {
	m := g.find(b.addr, uint64(2*n))
	v := make([]float32, n)
	for i := range v {
		v[i] = Bfloat16(binary.LittleEndian.Uint16(m[2*i:])).Float32()
	}
	return v
}
