package cuda

import (
	"fmt"
	"runtime"
	"sync"
)

// Driver is the loaded and initialised CUDA driver.
type Driver struct {
	api     *api
	version int
}

// Open loads libcuda.so.1 and initialises the driver (cuInit). Without the
// library the error wraps ErrNoDriver; without a device it is the driver's
// CUDA_ERROR_NO_DEVICE.
func Open() (*Driver, error) { return OpenLibrary(DefaultLibrary) }

// OpenLibrary is Open with the driver library at path.
func OpenLibrary(path string) (*Driver, error) {
	a, err := loadAPI(path)
	if err != nil {
		return nil, err
	}
	return newDriver(a)
}

func newDriver(a *api) (*Driver, error) {
	if err := a.check("cuInit", a.cuInit(0)); err != nil {
		return nil, fmt.Errorf("cuda: initialise the driver: %w", err)
	}
	var v int32
	if err := a.check("cuDriverGetVersion", a.cuDriverGetVersion(&v)); err != nil {
		return nil, fmt.Errorf("cuda: driver version: %w", err)
	}
	return &Driver{api: a, version: int(v)}, nil
}

// Version is the CUDA version the driver supports, as 1000*major +
// 10*minor (13000 for CUDA 13.0).
func (d *Driver) Version() int { return d.version }

// DeviceCount returns the number of CUDA devices.
func (d *Driver) DeviceCount() (int, error) {
	var n int32
	if err := d.api.check("cuDeviceGetCount", d.api.cuDeviceGetCount(&n)); err != nil {
		return 0, fmt.Errorf("cuda: count devices: %w", err)
	}
	return int(n), nil
}

// Device describes one GPU.
type Device struct {
	Ordinal      int
	Name         string
	Major, Minor int    // compute capability
	SMs          int    // multiprocessors
	L2Bytes      int    // L2 cache size
	TotalMem     uint64 // bytes of device memory
	MaxThreads   int    // per block
	ClockKHz     int    // peak SM clock
	MemClockKHz  int    // peak memory clock
	MemBusWidth  int    // bits
	handle       int32
}

// Device attributes (CUdevice_attribute) read by Driver.Device.
const (
	attrMaxThreadsPerBlock = 1
	attrClockRate          = 13
	attrMultiprocessors    = 16
	attrMemClockRate       = 36
	attrMemBusWidth        = 37
	attrL2CacheSize        = 38
	attrCCMajor            = 75
	attrCCMinor            = 76
)

// Device returns the description of device ordinal.
func (d *Driver) Device(ordinal int) (*Device, error) {
	a := d.api
	var h int32
	if err := a.check("cuDeviceGet", a.cuDeviceGet(&h, int32(ordinal))); err != nil {
		return nil, fmt.Errorf("cuda: device %d: %w", ordinal, err)
	}
	dev := &Device{Ordinal: ordinal, handle: h}
	name := make([]byte, 256)
	if err := a.check("cuDeviceGetName", a.cuDeviceGetName(&name[0], int32(len(name)), h)); err != nil {
		return nil, fmt.Errorf("cuda: device %d: name: %w", ordinal, err)
	}
	dev.Name = goString(&name[0])
	if err := a.check("cuDeviceTotalMem_v2", a.cuDeviceTotalMem(&dev.TotalMem, h)); err != nil {
		return nil, fmt.Errorf("cuda: device %d: memory size: %w", ordinal, err)
	}
	for _, at := range []struct {
		attr int32
		dst  *int
	}{
		{attrCCMajor, &dev.Major}, {attrCCMinor, &dev.Minor}, {attrMultiprocessors, &dev.SMs},
		{attrL2CacheSize, &dev.L2Bytes}, {attrMaxThreadsPerBlock, &dev.MaxThreads},
		{attrClockRate, &dev.ClockKHz}, {attrMemClockRate, &dev.MemClockKHz}, {attrMemBusWidth, &dev.MemBusWidth},
	} {
		var v int32
		if err := a.check("cuDeviceGetAttribute", a.cuDeviceGetAttribute(&v, at.attr, h)); err != nil {
			return nil, fmt.Errorf("cuda: device %d: attribute %d: %w", ordinal, at.attr, err)
		}
		*at.dst = int(v)
	}
	return dev, nil
}

func (dev *Device) String() string {
	return fmt.Sprintf("%s (sm_%d%d, %d SMs, %.1f GiB, %d MiB L2)", dev.Name, dev.Major, dev.Minor, dev.SMs,
		float64(dev.TotalMem)/(1<<30), dev.L2Bytes>>20)
}

// Context is a device's primary context, retained by NewContext and
// released by Close. Every object made from it holds it.
type Context struct {
	api    *api
	dev    *Device
	ctx    uintptr
	mu     sync.Mutex
	closed bool
}

// NewContext retains the primary context of device ordinal.
func (d *Driver) NewContext(ordinal int) (*Context, error) {
	dev, err := d.Device(ordinal)
	if err != nil {
		return nil, err
	}
	c := &Context{api: d.api, dev: dev}
	if err := d.api.check("cuDevicePrimaryCtxRetain", d.api.cuDevicePrimaryCtxRetain(&c.ctx, dev.handle)); err != nil {
		return nil, fmt.Errorf("cuda: retain the primary context of device %d: %w", ordinal, err)
	}
	return c, nil
}

// Device returns the context's device.
func (c *Context) Device() *Device { return c.dev }

// do runs f with the goroutine locked to its OS thread and the context
// current on it.
func (c *Context) do(what string, f func(a *api) error) error {
	if c == nil {
		return fmt.Errorf("cuda: %s: nil Context", what)
	}
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		return fmt.Errorf("%s: %w", what, errClosed("Context"))
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := c.api.check("cuCtxSetCurrent", c.api.cuCtxSetCurrent(c.ctx)); err != nil {
		return fmt.Errorf("cuda: %s: make the context current: %w", what, err)
	}
	if err := f(c.api); err != nil {
		return fmt.Errorf("cuda: %s: %w", what, err)
	}
	return nil
}

// Current runs f with the goroutine locked to its OS thread and the
// context current on it, for libraries that work on the calling thread's
// current context (cuBLASLt). f's error is returned as it is; only a
// failure to make the context current is this package's error.
func (c *Context) Current(f func() error) error {
	var ferr error
	if err := c.do("make the context current", func(*api) error { ferr = f(); return nil }); err != nil {
		return err
	}
	return ferr
}

// Synchronize waits for all work of the context (cuCtxSynchronize).
func (c *Context) Synchronize() error {
	return c.do("synchronize", func(a *api) error { return a.check("cuCtxSynchronize", a.cuCtxSynchronize()) })
}

// Close releases the primary context. The objects made from it must be
// closed first.
func (c *Context) Close() error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	if err := c.api.check("cuDevicePrimaryCtxRelease_v2", c.api.cuDevicePrimaryCtxRelease(c.dev.handle)); err != nil {
		return fmt.Errorf("cuda: release the primary context: %w", err)
	}
	return nil
}
