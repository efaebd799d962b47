package cuda

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"unsafe"
)

// Module is loaded device code: PTX text (compiled by the driver's JIT) or
// a cubin/fatbin.
type Module struct {
	ctx     *Context
	mod     uintptr
	kind    string
	infoLog string
	closed  bool
}

// JIT options (CUjit_option) used by LoadModule.
const (
	jitInfoLogBuffer       = 3
	jitInfoLogBufferBytes  = 4
	jitErrorLogBuffer      = 5
	jitErrorLogBufferBytes = 6
	jitLogVerbose          = 12
)

const jitLogBytes = 1 << 16

// imageKind names what image holds: "cubin" (ELF), "fatbin", or "PTX".
func imageKind(image []byte) string {
	switch {
	case bytes.HasPrefix(image, []byte("\x7fELF")):
		return "cubin"
	case bytes.HasPrefix(image, []byte{0x50, 0xed, 0x55, 0xba}), bytes.HasPrefix(image, []byte{0xba, 0x55, 0xed, 0x50}):
		return "fatbin"
	}
	return "PTX"
}

// LoadModule loads image, PTX text or a cubin (cuModuleLoadDataEx). The
// JIT's error log is part of the error when the PTX does not compile, and
// its info log (ptxas -v's report with verbose) is kept in InfoLog.
func (c *Context) LoadModule(image []byte) (*Module, error) {
	if len(image) == 0 {
		return nil, fmt.Errorf("cuda: load module: empty image")
	}
	kind := imageKind(image)
	data := image
	if kind == "PTX" && image[len(image)-1] != 0 {
		data = make([]byte, len(image)+1)
		copy(data, image)
	}
	m := &Module{ctx: c, kind: kind}
	infoLog := make([]byte, jitLogBytes)
	errLog := make([]byte, jitLogBytes)
	opts := []int32{jitInfoLogBuffer, jitInfoLogBufferBytes, jitErrorLogBuffer, jitErrorLogBufferBytes, jitLogVerbose}
	// The values are pointers to the pinned logs and sizes passed by value;
	// the driver overwrites the sizes with the bytes it wrote.
	var pin runtime.Pinner
	pin.Pin(&data[0])
	pin.Pin(&infoLog[0])
	pin.Pin(&errLog[0])
	defer pin.Unpin()
	vals := []uintptr{
		uintptr(unsafe.Pointer(&infoLog[0])), uintptr(len(infoLog)),
		uintptr(unsafe.Pointer(&errLog[0])), uintptr(len(errLog)),
		1,
	}
	what := fmt.Sprintf("load module (%s, %d bytes)", kind, len(image))
	err := c.do(what, func(a *api) error {
		r := a.cuModuleLoadDataEx(&m.mod, unsafe.Pointer(&data[0]), uint32(len(opts)), &opts[0], &vals[0])
		runtime.KeepAlive(infoLog)
		runtime.KeepAlive(errLog)
		m.infoLog = logText(infoLog, vals[1])
		if err := a.check("cuModuleLoadDataEx", r); err != nil {
			if l := logText(errLog, vals[3]); l != "" {
				return fmt.Errorf("%w\nJIT error log:\n%s", err, l)
			}
			return err
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}

// logText returns the first n bytes of a JIT log (up to its NUL), trimmed.
func logText(buf []byte, n uintptr) string {
	if n > uintptr(len(buf)) {
		n = uintptr(len(buf))
	}
	b := buf[:n]
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return strings.TrimSpace(string(b))
}

// InfoLog is what the JIT reported while loading PTX (registers, spills);
// empty for a cubin.
func (m *Module) InfoLog() string { return m.infoLog }

// Function is a kernel of a Module.
type Function struct {
	mod    *Module
	name   string
	fn     uintptr
	params []paramInfo // nil when the driver cannot tell
}

type paramInfo struct{ offset, size uint64 }

// Function looks up the kernel name (cuModuleGetFunction).
func (m *Module) Function(name string) (*Function, error) {
	if m == nil || m.closed {
		return nil, fmt.Errorf("cuda: function %q: %w", name, errClosed("Module"))
	}
	f := &Function{mod: m, name: name}
	cname := cString(name)
	err := m.ctx.do(fmt.Sprintf("function %q", name), func(a *api) error {
		if err := a.check("cuModuleGetFunction", a.cuModuleGetFunction(&f.fn, m.mod, &cname[0])); err != nil {
			return err
		}
		if a.cuFuncGetParamInfo == nil {
			return nil
		}
		f.params = []paramInfo{}
		for i := uint64(0); i < 4096; i++ {
			var p paramInfo
			r := a.cuFuncGetParamInfo(f.fn, i, &p.offset, &p.size)
			if r == ErrorInvalidValue {
				break // past the last parameter
			}
			if err := a.check("cuFuncGetParamInfo", r); err != nil {
				f.params = nil // the driver cannot tell: launch unchecked
				break
			}
			f.params = append(f.params, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return f, nil
}

// Name is the kernel's name.
func (f *Function) Name() string { return f.name }

// NumParams is the kernel's parameter count, or -1 when the driver cannot
// tell (no cuFuncGetParamInfo).
func (f *Function) NumParams() int {
	if f.params == nil {
		return -1
	}
	return len(f.params)
}

// Function attributes (CUfunction_attribute).
const (
	FuncMaxThreadsPerBlock = 0
	FuncSharedSizeBytes    = 1
	FuncConstSizeBytes     = 2
	FuncLocalSizeBytes     = 3
	FuncNumRegs            = 4
)

// Attribute reads a function attribute (cuFuncGetAttribute), e.g.
// FuncNumRegs.
func (f *Function) Attribute(attr int) (int, error) {
	if f == nil || f.mod.closed {
		return 0, fmt.Errorf("cuda: function attribute: %w", errClosed("Module"))
	}
	var v int32
	err := f.mod.ctx.do(fmt.Sprintf("attribute %d of %q", attr, f.name), func(a *api) error {
		return a.check("cuFuncGetAttribute", a.cuFuncGetAttribute(&v, int32(attr), f.fn))
	})
	return int(v), err
}

// Close unloads the module; its Functions become unusable.
func (m *Module) Close() error {
	if m == nil || m.closed {
		return nil
	}
	m.closed = true
	return m.ctx.do("unload module", func(a *api) error { return a.check("cuModuleUnload", a.cuModuleUnload(m.mod)) })
}
