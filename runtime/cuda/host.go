package cuda

import (
	"fmt"
	"sync"
	"unsafe"
)

// memHostAllocPortable is CU_MEMHOSTALLOC_PORTABLE: the memory is pinned
// for every context, not only the one that allocated it.
const memHostAllocPortable = 0x1

// HostBuffer is page-locked ("pinned") host memory (cuMemHostAlloc,
// portable), freed by Close. The device reads and writes it directly, so
// copies between it and device memory run asynchronously on a stream
// (CopyHostToDeviceAsync, CopyDeviceToHostAsync) and can be captured into
// a graph: such a copy reads (or writes) the buffer when it runs, not
// when it is enqueued, and the buffer must not be touched in between.
type HostBuffer struct {
	ctx    *Context
	p      unsafe.Pointer
	size   int64
	mu     sync.Mutex
	closed bool
}

// AllocHost allocates bytes of pinned host memory.
func (c *Context) AllocHost(bytes int64) (*HostBuffer, error) {
	what := fmt.Sprintf("alloc %d bytes of pinned host memory", bytes)
	if bytes <= 0 {
		return nil, fmt.Errorf("cuda: %s: the size must be positive", what)
	}
	h := &HostBuffer{ctx: c, size: bytes}
	err := c.do(what, func(a *api) error {
		return a.check("cuMemHostAlloc", a.cuMemHostAlloc(&h.p, uint64(bytes), memHostAllocPortable))
	})
	if err != nil {
		return nil, err
	}
	return h, nil
}

// Bytes is the buffer's memory; nil once the buffer is closed. The slice
// must not be used after Close.
func (h *HostBuffer) Bytes() []byte {
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil
	}
	return unsafe.Slice((*byte)(h.p), h.size)
}

// Size is the buffer's size in bytes.
func (h *HostBuffer) Size() int64 { return h.size }

// Close frees the memory (cuMemFreeHost). The copies that use it must
// have run.
func (h *HostBuffer) Close() error {
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil
	}
	h.closed = true
	return h.ctx.do(fmt.Sprintf("free %d bytes of pinned host memory", h.size), func(a *api) error {
		return a.check("cuMemFreeHost", a.cuMemFreeHost(h.p))
	})
}

// hostRange checks that [off, off+n) lies in h and returns its address.
func (h *HostBuffer) hostRange(what string, off, n int64) (unsafe.Pointer, error) {
	if h == nil {
		return nil, fmt.Errorf("cuda: %s: nil HostBuffer", what)
	}
	h.mu.Lock()
	closed := h.closed
	h.mu.Unlock()
	if closed {
		return nil, fmt.Errorf("cuda: %s: %w", what, errClosed("HostBuffer"))
	}
	if off < 0 || n < 0 || off > h.size || n > h.size-off {
		return nil, fmt.Errorf("cuda: %s: bytes [%d, %d) are not inside the %d-byte host buffer", what, off, off+n, h.size)
	}
	return unsafe.Add(h.p, off), nil
}

// deviceRange checks that [off, off+n) lies in p.
func (p *DevicePtr) deviceRange(what string, off, n int64) error {
	if err := p.usable(what, 0); err != nil {
		return err
	}
	if off < 0 || n < 0 || off > p.size || n > p.size-off {
		return fmt.Errorf("cuda: %s: bytes [%d, %d) are not inside the %d-byte allocation", what, off, off+n, p.size)
	}
	return nil
}

// CopyHostToDeviceAsync enqueues on s the copy of bytes [srcOff,
// srcOff+n) of the pinned buffer src to dst at dstOff
// (cuMemcpyHtoDAsync_v2). The copy reads src when it runs.
func CopyHostToDeviceAsync(dst *DevicePtr, dstOff int64, src *HostBuffer, srcOff, n int64, s *Stream) error {
	what := fmt.Sprintf("copy %d pinned bytes to the device asynchronously", n)
	if err := dst.deviceRange(what, dstOff, n); err != nil {
		return err
	}
	hp, err := src.hostRange(what, srcOff, n)
	if err != nil || n == 0 {
		return err
	}
	return dst.ctx.do(what, func(a *api) error {
		h, err := streamHandle(s)
		if err != nil {
			return err
		}
		return a.check("cuMemcpyHtoDAsync_v2", a.cuMemcpyHtoDAsync(dst.addr+uint64(dstOff), hp, uint64(n), h))
	})
}

// CopyDeviceToHostAsync enqueues on s the copy of bytes [srcOff,
// srcOff+n) of src into the pinned buffer dst at dstOff
// (cuMemcpyDtoHAsync_v2). The copy writes dst when it runs: read it only
// after waiting for the stream (or an event recorded after the copy).
func CopyDeviceToHostAsync(dst *HostBuffer, dstOff int64, src *DevicePtr, srcOff, n int64, s *Stream) error {
	what := fmt.Sprintf("copy %d bytes from the device to pinned memory asynchronously", n)
	if err := src.deviceRange(what, srcOff, n); err != nil {
		return err
	}
	hp, err := dst.hostRange(what, dstOff, n)
	if err != nil || n == 0 {
		return err
	}
	return src.ctx.do(what, func(a *api) error {
		h, err := streamHandle(s)
		if err != nil {
			return err
		}
		return a.check("cuMemcpyDtoHAsync_v2", a.cuMemcpyDtoHAsync(hp, src.addr+uint64(srcOff), uint64(n), h))
	})
}

// CopyDeviceToDeviceAsync enqueues on s the copy of bytes [srcOff,
// srcOff+n) of src to dst at dstOff (cuMemcpyDtoDAsync_v2). With unified
// addressing the two may be on different devices of the host.
func CopyDeviceToDeviceAsync(dst *DevicePtr, dstOff int64, src *DevicePtr, srcOff, n int64, s *Stream) error {
	what := fmt.Sprintf("copy %d bytes between device buffers asynchronously", n)
	if err := dst.deviceRange(what, dstOff, n); err != nil {
		return err
	}
	if err := src.deviceRange(what, srcOff, n); err != nil || n == 0 {
		return err
	}
	return dst.ctx.do(what, func(a *api) error {
		h, err := streamHandle(s)
		if err != nil {
			return err
		}
		return a.check("cuMemcpyDtoDAsync_v2", a.cuMemcpyDtoDAsync(dst.addr+uint64(dstOff), src.addr+uint64(srcOff), uint64(n), h))
	})
}
