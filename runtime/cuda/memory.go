package cuda

import (
	"fmt"
	"unsafe"
)

// DevicePtr is an allocation of device memory (cuMemAlloc_v2), freed by
// Close. As a kernel argument it passes its address.
type DevicePtr struct {
	ctx    *Context
	addr   uint64
	size   int64
	closed bool
}

// Alloc allocates bytes of device memory (at least 256-byte aligned).
func (c *Context) Alloc(bytes int64) (*DevicePtr, error) {
	if bytes <= 0 {
		return nil, fmt.Errorf("cuda: alloc %d bytes: the size must be positive", bytes)
	}
	p := &DevicePtr{ctx: c, size: bytes}
	err := c.do(fmt.Sprintf("alloc %d bytes", bytes), func(a *api) error {
		return a.check("cuMemAlloc_v2", a.cuMemAlloc(&p.addr, uint64(bytes)))
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// Addr is the device address.
func (p *DevicePtr) Addr() uint64 { return p.addr }

// Size is the allocation's size in bytes.
func (p *DevicePtr) Size() int64 { return p.size }

// Close frees the memory.
func (p *DevicePtr) Close() error {
	if p == nil || p.closed {
		return nil
	}
	p.closed = true
	return p.ctx.do(fmt.Sprintf("free %d bytes", p.size), func(a *api) error { return a.check("cuMemFree_v2", a.cuMemFree(p.addr)) })
}

func (p *DevicePtr) usable(what string, bytes int64) error {
	if p == nil {
		return fmt.Errorf("cuda: %s: nil DevicePtr", what)
	}
	if p.closed {
		return fmt.Errorf("cuda: %s: %w", what, errClosed("DevicePtr"))
	}
	if bytes < 0 || bytes > p.size {
		return fmt.Errorf("cuda: %s: %d bytes do not fit the %d-byte allocation", what, bytes, p.size)
	}
	return nil
}

// Elem is an element type of host slices copied to and from the device.
type Elem interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~float32 | ~float64
}

func sliceBytes[T Elem](s []T) (unsafe.Pointer, int64) {
	if len(s) == 0 {
		return nil, 0
	}
	return unsafe.Pointer(&s[0]), int64(len(s)) * int64(unsafe.Sizeof(s[0]))
}

// streamHandle is s's CUstream; nil is the legacy default stream.
func streamHandle(s *Stream) (uintptr, error) {
	if s == nil {
		return 0, nil
	}
	if s.closed {
		return 0, errClosed("Stream")
	}
	return s.s, nil
}

// CopyToDevice copies src to the start of dst (cuMemcpyHtoD_v2).
func CopyToDevice[T Elem](dst *DevicePtr, src []T) error {
	ptr, n := sliceBytes(src)
	what := fmt.Sprintf("copy %d bytes to the device", n)
	if err := dst.usable(what, n); err != nil || n == 0 {
		return err
	}
	return dst.ctx.do(what, func(a *api) error {
		return a.check("cuMemcpyHtoD_v2", a.cuMemcpyHtoD(dst.addr, ptr, uint64(n)))
	})
}

// CopyFromDevice copies the start of src into dst (cuMemcpyDtoH_v2).
func CopyFromDevice[T Elem](dst []T, src *DevicePtr) error {
	ptr, n := sliceBytes(dst)
	what := fmt.Sprintf("copy %d bytes from the device", n)
	if err := src.usable(what, n); err != nil || n == 0 {
		return err
	}
	return src.ctx.do(what, func(a *api) error {
		return a.check("cuMemcpyDtoH_v2", a.cuMemcpyDtoH(ptr, src.addr, uint64(n)))
	})
}

// CopyToDeviceAsync enqueues the copy of src to dst on s
// (cuMemcpyHtoDAsync_v2). Go memory is pageable: the driver returns once
// src has been staged, so src may be reused at once; such copies cannot
// be captured into a graph.
func CopyToDeviceAsync[T Elem](dst *DevicePtr, src []T, s *Stream) error {
	ptr, n := sliceBytes(src)
	what := fmt.Sprintf("copy %d bytes to the device asynchronously", n)
	if err := dst.usable(what, n); err != nil || n == 0 {
		return err
	}
	return dst.ctx.do(what, func(a *api) error {
		h, err := streamHandle(s)
		if err != nil {
			return err
		}
		return a.check("cuMemcpyHtoDAsync_v2", a.cuMemcpyHtoDAsync(dst.addr, ptr, uint64(n), h))
	})
}

// CopyFromDeviceAsync enqueues the copy of src into dst on s
// (cuMemcpyDtoHAsync_v2). Into pageable (Go) memory the driver returns
// only once the copy is done.
func CopyFromDeviceAsync[T Elem](dst []T, src *DevicePtr, s *Stream) error {
	ptr, n := sliceBytes(dst)
	what := fmt.Sprintf("copy %d bytes from the device asynchronously", n)
	if err := src.usable(what, n); err != nil || n == 0 {
		return err
	}
	return src.ctx.do(what, func(a *api) error {
		h, err := streamHandle(s)
		if err != nil {
			return err
		}
		return a.check("cuMemcpyDtoHAsync_v2", a.cuMemcpyDtoHAsync(ptr, src.addr, uint64(n), h))
	})
}

// CopyFrom copies the first bytes of src into p (cuMemcpyDtoD_v2).
func (p *DevicePtr) CopyFrom(src *DevicePtr, bytes int64) error {
	what := fmt.Sprintf("copy %d bytes on the device", bytes)
	if err := p.usable(what, bytes); err != nil {
		return err
	}
	if err := src.usable(what, bytes); err != nil || bytes == 0 {
		return err
	}
	return p.ctx.do(what, func(a *api) error {
		return a.check("cuMemcpyDtoD_v2", a.cuMemcpyDtoD(p.addr, src.addr, uint64(bytes)))
	})
}

// CopyFromAsync enqueues the device-to-device copy on s
// (cuMemcpyDtoDAsync_v2).
func (p *DevicePtr) CopyFromAsync(src *DevicePtr, bytes int64, s *Stream) error {
	what := fmt.Sprintf("copy %d bytes on the device asynchronously", bytes)
	if err := p.usable(what, bytes); err != nil {
		return err
	}
	if err := src.usable(what, bytes); err != nil || bytes == 0 {
		return err
	}
	return p.ctx.do(what, func(a *api) error {
		h, err := streamHandle(s)
		if err != nil {
			return err
		}
		return a.check("cuMemcpyDtoDAsync_v2", a.cuMemcpyDtoDAsync(p.addr, src.addr, uint64(bytes), h))
	})
}

// Memset8 sets every byte of p to v (cuMemsetD8_v2).
func (p *DevicePtr) Memset8(v uint8) error {
	if err := p.usable("memset", 0); err != nil {
		return err
	}
	return p.ctx.do(fmt.Sprintf("memset %d bytes", p.size), func(a *api) error {
		return a.check("cuMemsetD8_v2", a.cuMemsetD8(p.addr, v, uint64(p.size)))
	})
}

// Memset32 sets every 32-bit word of p to v (cuMemsetD32_v2); the size
// must be a multiple of 4.
func (p *DevicePtr) Memset32(v uint32) error {
	if err := p.usable("memset", 0); err != nil {
		return err
	}
	if p.size%4 != 0 {
		return fmt.Errorf("cuda: memset32: the size %d is not a multiple of 4", p.size)
	}
	return p.ctx.do(fmt.Sprintf("memset %d words", p.size/4), func(a *api) error {
		return a.check("cuMemsetD32_v2", a.cuMemsetD32(p.addr, v, uint64(p.size/4)))
	})
}

// Memset8Async enqueues Memset8 on s (cuMemsetD8Async).
func (p *DevicePtr) Memset8Async(v uint8, s *Stream) error {
	if err := p.usable("memset", 0); err != nil {
		return err
	}
	return p.ctx.do(fmt.Sprintf("memset %d bytes asynchronously", p.size), func(a *api) error {
		h, err := streamHandle(s)
		if err != nil {
			return err
		}
		return a.check("cuMemsetD8Async", a.cuMemsetD8Async(p.addr, v, uint64(p.size), h))
	})
}

// Memset32Async enqueues Memset32 on s (cuMemsetD32Async).
func (p *DevicePtr) Memset32Async(v uint32, s *Stream) error {
	if err := p.usable("memset", 0); err != nil {
		return err
	}
	if p.size%4 != 0 {
		return fmt.Errorf("cuda: memset32: the size %d is not a multiple of 4", p.size)
	}
	return p.ctx.do(fmt.Sprintf("memset %d words asynchronously", p.size/4), func(a *api) error {
		h, err := streamHandle(s)
		if err != nil {
			return err
		}
		return a.check("cuMemsetD32Async", a.cuMemsetD32Async(p.addr, v, uint64(p.size/4), h))
	})
}
