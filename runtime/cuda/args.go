package cuda

import (
	"encoding/binary"
	"fmt"
	"math"
)

// packedArgs is a kernel's argument list laid out for cuLaunchKernel: the
// values in one buffer, each at its natural alignment, and the offset and
// size of each.
type packedArgs struct {
	buf     []byte
	offsets []int
	sizes   []int
}

// packArgs lays out args. A value is a *DevicePtr (its address), a uint64
// or uintptr (an address or a 64-bit scalar), a fixed-width integer, a
// float32 or float64, or a bool (one byte). int and uint are refused:
// their width says nothing about the kernel's parameter.
func packArgs(args []any) (*packedArgs, error) {
	p := &packedArgs{offsets: make([]int, len(args)), sizes: make([]int, len(args))}
	var tmp [8]byte
	for i, a := range args {
		var size int
		switch v := a.(type) {
		case *DevicePtr:
			if v == nil {
				return nil, fmt.Errorf("argument %d: nil *DevicePtr", i)
			}
			if v.closed {
				return nil, fmt.Errorf("argument %d: %w", i, errClosed("DevicePtr"))
			}
			size = 8
			binary.LittleEndian.PutUint64(tmp[:], v.addr)
		case uint64:
			size = 8
			binary.LittleEndian.PutUint64(tmp[:], v)
		case uintptr:
			size = 8
			binary.LittleEndian.PutUint64(tmp[:], uint64(v))
		case int64:
			size = 8
			binary.LittleEndian.PutUint64(tmp[:], uint64(v))
		case float64:
			size = 8
			binary.LittleEndian.PutUint64(tmp[:], math.Float64bits(v))
		case int32:
			size = 4
			binary.LittleEndian.PutUint32(tmp[:], uint32(v))
		case uint32:
			size = 4
			binary.LittleEndian.PutUint32(tmp[:], v)
		case float32:
			size = 4
			binary.LittleEndian.PutUint32(tmp[:], math.Float32bits(v))
		case int16:
			size = 2
			binary.LittleEndian.PutUint16(tmp[:], uint16(v))
		case uint16:
			size = 2
			binary.LittleEndian.PutUint16(tmp[:], v)
		case int8:
			size = 1
			tmp[0] = byte(v)
		case uint8:
			size = 1
			tmp[0] = v
		case bool:
			size = 1
			tmp[0] = 0
			if v {
				tmp[0] = 1
			}
		case int, uint:
			return nil, fmt.Errorf("argument %d: %T has no fixed width: pass int32/int64 (or uint32/uint64) as the kernel's parameter is", i, a)
		default:
			return nil, fmt.Errorf("argument %d: cannot pass a %T to a kernel", i, a)
		}
		off := (len(p.buf) + size - 1) / size * size
		for len(p.buf) < off {
			p.buf = append(p.buf, 0)
		}
		p.buf = append(p.buf, tmp[:size]...)
		p.offsets[i], p.sizes[i] = off, size
	}
	if len(p.buf) == 0 {
		p.buf = make([]byte, 8) // a valid address for the pointer array's base
	}
	return p, nil
}

// checkParams compares the packed sizes with the kernel's parameters (nil
// params: the driver cannot tell).
func (p *packedArgs) checkParams(params []paramInfo) error {
	if params == nil {
		return nil
	}
	if len(params) != len(p.sizes) {
		return fmt.Errorf("the kernel takes %d parameters, got %d arguments", len(params), len(p.sizes))
	}
	for i, q := range params {
		if uint64(p.sizes[i]) != q.size {
			return fmt.Errorf("argument %d is %d bytes, but the kernel's parameter %d is %d bytes", i, p.sizes[i], i, q.size)
		}
	}
	return nil
}
