package nccl

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/ebitengine/purego"
	"github.com/recom-compiler/recom/runtime/internal/dlbind"

	"github.com/recom-compiler/recom/runtime/cuda"
)

// ErrNotFound is wrapped by every error of Open when no NCCL library can
// be loaded.
var ErrNotFound = errors.New("NCCL not found")

// Result is an ncclResult_t.
type Result int32

// The ncclResult_t codes (nccl.h).
const (
	Success            Result = 0 // ncclSuccess
	UnhandledCudaError Result = 1 // ncclUnhandledCudaError
	SystemError        Result = 2 // ncclSystemError
	InternalError      Result = 3 // ncclInternalError
	InvalidArgument    Result = 4 // ncclInvalidArgument
	InvalidUsage       Result = 5 // ncclInvalidUsage
	RemoteError        Result = 6 // ncclRemoteError
	InProgress         Result = 7 // ncclInProgress
)

// DataType is an ncclDataType_t.
type DataType int32

// The ncclDataType_t values (nccl.h).
const (
	Int8     DataType = 0 // ncclInt8, ncclChar
	Uint8    DataType = 1 // ncclUint8
	Int32    DataType = 2 // ncclInt32, ncclInt
	Uint32   DataType = 3 // ncclUint32
	Int64    DataType = 4 // ncclInt64
	Uint64   DataType = 5 // ncclUint64
	Float16  DataType = 6 // ncclFloat16, ncclHalf
	Float32  DataType = 7 // ncclFloat32, ncclFloat
	Float64  DataType = 8 // ncclFloat64, ncclDouble
	Bfloat16 DataType = 9 // ncclBfloat16
)

// Size is the bytes of one element of t (0 for an unknown type).
func (t DataType) Size() int64 {
	switch t {
	case Int8, Uint8:
		return 1
	case Float16, Bfloat16:
		return 2
	case Int32, Uint32, Float32:
		return 4
	case Int64, Uint64, Float64:
		return 8
	}
	return 0
}

// RedOp is an ncclRedOp_t (the built-in ones).
type RedOp int32

// The ncclRedOp_t values (nccl.h).
const (
	Sum  RedOp = 0 // ncclSum
	Prod RedOp = 1 // ncclProd
	Max  RedOp = 2 // ncclMax
	Min  RedOp = 3 // ncclMin
	Avg  RedOp = 4 // ncclAvg (NCCL 2.10 and later)
)

// Error is a failed NCCL call.
type Error struct {
	Func   string // the entry point, e.g. "ncclAllReduce"
	Result Result
	Text   string // ncclGetErrorString's
	Last   string // ncclGetLastError's, where the library has it
}

func (e *Error) Error() string {
	s := fmt.Sprintf("%s: ncclResult_t %d", e.Func, int32(e.Result))
	if e.Text != "" {
		s += ": " + e.Text
	}
	if e.Last != "" {
		s += " (" + e.Last + ")"
	}
	return s
}

// api is the table of NCCL entry points. Open fills it from the library
// through purego; Sim fills it with Go functions. ncclComm_t and
// cudaStream_t are uintptr, device pointers uint64, size_t uint64.
type api struct {
	ncclGetVersion     func(v *int32) Result
	ncclGetErrorString func(r Result) string
	ncclGetLastError   func(comm uintptr) string // optional (2.13)
	ncclCommInitAll    func(comms *uintptr, ndev int32, devlist *int32) Result
	ncclCommDestroy    func(comm uintptr) Result
	ncclCommCount      func(comm uintptr, n *int32) Result
	ncclCommCuDevice   func(comm uintptr, dev *int32) Result
	ncclCommUserRank   func(comm uintptr, rank *int32) Result
	ncclAllReduce      func(send, recv, count uint64, dt DataType, op RedOp, comm, stream uintptr) Result
	ncclReduceScatter  func(send, recv, recvcount uint64, dt DataType, op RedOp, comm, stream uintptr) Result
	ncclAllGather      func(send, recv, sendcount uint64, dt DataType, comm, stream uintptr) Result
	ncclSend           func(send, count uint64, dt DataType, peer int32, comm, stream uintptr) Result
	ncclRecv           func(recv, count uint64, dt DataType, peer int32, comm, stream uintptr) Result
	ncclGroupStart     func() Result
	ncclGroupEnd       func() Result
}

func (a *api) symbols() []dlbind.Symbol {
	s := func(name string, fptr any) dlbind.Symbol { return dlbind.Symbol{Names: []string{name}, Fptr: fptr} }
	return []dlbind.Symbol{
		s("ncclGetVersion", &a.ncclGetVersion),
		s("ncclGetErrorString", &a.ncclGetErrorString),
		{Names: []string{"ncclGetLastError"}, Fptr: &a.ncclGetLastError, Optional: true},
		s("ncclCommInitAll", &a.ncclCommInitAll),
		s("ncclCommDestroy", &a.ncclCommDestroy),
		s("ncclCommCount", &a.ncclCommCount),
		s("ncclCommCuDevice", &a.ncclCommCuDevice),
		s("ncclCommUserRank", &a.ncclCommUserRank),
		s("ncclAllReduce", &a.ncclAllReduce),
		s("ncclReduceScatter", &a.ncclReduceScatter),
		s("ncclAllGather", &a.ncclAllGather),
		s("ncclSend", &a.ncclSend),
		s("ncclRecv", &a.ncclRecv),
		s("ncclGroupStart", &a.ncclGroupStart),
		s("ncclGroupEnd", &a.ncclGroupEnd),
	}
}

func (a *api) bind(lookup func(name string) (uintptr, error)) error {
	return dlbind.Bind(lookup, a.symbols(), func(name string, err error) error {
		return fmt.Errorf("the library has no %s (%v): it is older than this runtime needs (NCCL 2.7 or later)", name, err)
	})
}

// Names are the library file names Open tries.
var Names = []string{"libnccl.so.2", "libnccl.so"}

// Dirs returns the folders Open searches before the dynamic loader's
// path: $NCCL_HOME/lib, $CUDA_HOME/lib64, then the CUDA toolkit's and the
// system's usual places (the NCCL packages install into the system's).
func Dirs(ncclHome, cudaHome string) []string {
	var d []string
	if ncclHome != "" {
		d = append(d, filepath.Join(ncclHome, "lib"))
	}
	if cudaHome != "" {
		d = append(d, filepath.Join(cudaHome, "lib64"))
	}
	return append(d, "/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib", "/usr/lib/x86_64-linux-gnu", "/usr/local/lib")
}

// Library is a loaded NCCL.
type Library struct {
	api     *api
	path    string
	version int
	mu      sync.Mutex // one group at a time
}

// Open loads NCCL: each of Names in each of Dirs where the file exists,
// then each of Names through the dynamic loader's search. When none
// loads, the error wraps ErrNotFound and lists what was tried.
func Open() (*Library, error) {
	dirs := Dirs(os.Getenv("NCCL_HOME"), os.Getenv("CUDA_HOME"))
	var tried []string
	for _, dir := range dirs {
		for _, n := range Names {
			p := filepath.Join(dir, n)
			if _, err := os.Stat(p); err != nil {
				continue
			}
			l, err := OpenLibrary(p)
			if err == nil {
				return l, nil
			}
			if !errors.Is(err, ErrNotFound) {
				return nil, err
			}
			tried = append(tried, strings.TrimPrefix(err.Error(), ErrNotFound.Error()+": "))
		}
	}
	for _, n := range Names {
		l, err := OpenLibrary(n)
		if err == nil {
			return l, nil
		}
		if !errors.Is(err, ErrNotFound) {
			return nil, err
		}
	}
	msg := fmt.Sprintf("%s: none of %s in %s, nor on the dynamic loader's path (LD_LIBRARY_PATH, ld.so.cache); install NCCL (libnccl2) or set NCCL_HOME",
		ErrNotFound, strings.Join(Names, ", "), strings.Join(dirs, ", "))
	if len(tried) > 0 {
		msg += "; present but not loadable: " + strings.Join(tried, "; ")
	}
	return nil, fmt.Errorf("%w%s", ErrNotFound, strings.TrimPrefix(msg, ErrNotFound.Error()))
}

// OpenLibrary loads the NCCL library at path (a file, or a name for the
// dynamic loader) and binds its entry points. A library that cannot be
// loaded is ErrNotFound; one that lacks an entry point is another error.
func OpenLibrary(path string) (*Library, error) {
	h, err := purego.Dlopen(path, purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		return nil, fmt.Errorf("%w: cannot load %s: %v", ErrNotFound, path, err)
	}
	a := &api{}
	if err := a.bind(func(name string) (uintptr, error) { return purego.Dlsym(h, name) }); err != nil {
		return nil, fmt.Errorf("nccl: %s: %w", path, err)
	}
	return newLibrary(a, path)
}

func newLibrary(a *api, path string) (*Library, error) {
	l := &Library{api: a, path: path}
	var v int32
	if err := l.check("ncclGetVersion", 0, a.ncclGetVersion(&v)); err != nil {
		return nil, err
	}
	l.version = int(v)
	return l, nil
}

// Path is what the library was loaded from.
func (l *Library) Path() string { return l.path }

// Version is ncclGetVersion's code: 10000*major + 100*minor + patch from
// NCCL 2.9 on (22805 for 2.28.5), 1000*major + 100*minor + patch before.
func (l *Library) Version() int { return l.version }

func (l *Library) String() string {
	v := l.version
	if v >= 20900 {
		return fmt.Sprintf("NCCL %d.%d.%d (%s)", v/10000, v/100%100, v%100, l.path)
	}
	return fmt.Sprintf("NCCL %d.%d.%d (%s)", v/1000, v/100%10, v%100, l.path)
}

func (l *Library) check(fn string, comm uintptr, r Result) error {
	if r == Success {
		return nil
	}
	e := &Error{Func: fn, Result: r, Text: l.api.ncclGetErrorString(r)}
	if l.api.ncclGetLastError != nil {
		e.Last = l.api.ncclGetLastError(comm)
	}
	return e
}

// Comm is one rank's communicator.
type Comm struct {
	lib    *Library
	h      uintptr
	rank   int
	count  int
	device int
	closed bool
}

// MaxDevices bounds InitAll's devices (abi.MaxShardDevices: the GPUs of
// one host).
const MaxDevices = 64

// InitAll makes a communicator per device (ncclCommInitAll): comms[i] is
// rank i, on CUDA device devices[i]. The devices must be distinct.
func (l *Library) InitAll(devices []int) ([]*Comm, error) {
	if len(devices) < 1 || len(devices) > MaxDevices {
		return nil, fmt.Errorf("nccl: InitAll takes 1 to %d devices, got %d", MaxDevices, len(devices))
	}
	seen := map[int]bool{}
	devs := make([]int32, len(devices))
	for i, d := range devices {
		if d < 0 || seen[d] {
			return nil, fmt.Errorf("nccl: InitAll's devices must be distinct ordinals, got %v", devices)
		}
		seen[d] = true
		devs[i] = int32(d)
	}
	hs := make([]uintptr, len(devices))
	if err := l.check("ncclCommInitAll", 0, l.api.ncclCommInitAll(&hs[0], int32(len(devs)), &devs[0])); err != nil {
		return nil, err
	}
	comms := make([]*Comm, len(hs))
	for i, h := range hs {
		c := &Comm{lib: l, h: h}
		comms[i] = c
		var rank, count, dev int32
		err := l.check("ncclCommUserRank", h, l.api.ncclCommUserRank(h, &rank))
		if err == nil {
			err = l.check("ncclCommCount", h, l.api.ncclCommCount(h, &count))
		}
		if err == nil {
			err = l.check("ncclCommCuDevice", h, l.api.ncclCommCuDevice(h, &dev))
		}
		if err == nil && (int(rank) != i || int(count) != len(devices) || int(dev) != devices[i]) {
			err = fmt.Errorf("nccl: communicator %d is rank %d of %d on device %d, want rank %d of %d on device %d", i, rank, count, dev, i, len(devices), devices[i])
		}
		if err != nil {
			for _, c := range comms {
				if c != nil {
					c.Close()
				}
			}
			return nil, err
		}
		c.rank, c.count, c.device = int(rank), int(count), int(dev)
	}
	return comms, nil
}

// Rank, Count and Device are the communicator's rank, the ranks of its
// clique and its CUDA device.
func (c *Comm) Rank() int   { return c.rank }
func (c *Comm) Count() int  { return c.count }
func (c *Comm) Device() int { return c.device }

// Close destroys the communicator (ncclCommDestroy); closing twice is a
// no-op.
func (c *Comm) Close() error {
	if c.closed {
		return nil
	}
	c.closed = true
	return c.lib.check("ncclCommDestroy", c.h, c.lib.api.ncclCommDestroy(c.h))
}

// Group runs f between ncclGroupStart and ncclGroupEnd on one locked OS
// thread (the group is the calling thread's), ending the group even when
// f fails. Groups of a Library are serialized.
func (l *Library) Group(f func() error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := l.check("ncclGroupStart", 0, l.api.ncclGroupStart()); err != nil {
		return err
	}
	ferr := f()
	eerr := l.check("ncclGroupEnd", 0, l.api.ncclGroupEnd())
	if ferr != nil {
		return ferr
	}
	return eerr
}

// Buffer is device memory: a cuda.DevicePtr, or a part of one.
type Buffer interface {
	Addr() uint64
	Size() int64
}

// At is the part of b from byte off on.
func At(b Buffer, off int64) Buffer { return sub{b, off} }

type sub struct {
	b   Buffer
	off int64
}

func (s sub) Addr() uint64 { return s.b.Addr() + uint64(max(s.off, 0)) }
func (s sub) Size() int64  { return s.b.Size() - s.off }

func (c *Comm) usable(fn string, dt DataType, count int64, bufs ...Buffer) error {
	if c.closed {
		return fmt.Errorf("nccl: %s on a closed communicator", fn)
	}
	es := dt.Size()
	if es == 0 {
		return fmt.Errorf("nccl: %s: unknown data type %d", fn, dt)
	}
	if count < 0 {
		return fmt.Errorf("nccl: %s: negative count %d", fn, count)
	}
	for i, b := range bufs {
		if b == nil {
			return fmt.Errorf("nccl: %s: buffer #%d is nil", fn, i)
		}
		if s, ok := b.(sub); ok && (s.off < 0 || s.off > s.b.Size()) {
			return fmt.Errorf("nccl: %s: buffer #%d: offset %d outside its %d bytes", fn, i, s.off, s.b.Size())
		}
		if count > b.Size()/es {
			return fmt.Errorf("nccl: %s: buffer #%d holds %d bytes, less than %d elements of %d bytes", fn, i, b.Size(), count, es)
		}
	}
	return nil
}

func stream(s *cuda.Stream) (uintptr, error) {
	if s == nil {
		return 0, fmt.Errorf("nccl: a stream is required")
	}
	return s.Handle()
}

// AllReduce reduces count elements of every rank's send with op into
// every rank's recv (ncclAllReduce), on stream s.
func (c *Comm) AllReduce(send, recv Buffer, count int64, dt DataType, op RedOp, s *cuda.Stream) error {
	if err := c.usable("ncclAllReduce", dt, count, send, recv); err != nil {
		return err
	}
	h, err := stream(s)
	if err != nil {
		return err
	}
	return c.lib.check("ncclAllReduce", c.h, c.lib.api.ncclAllReduce(send.Addr(), recv.Addr(), uint64(count), dt, op, c.h, h))
}

// ReduceScatter reduces every rank's send (Count()*recvCount elements)
// with op and leaves block r of the result in rank r's recv
// (ncclReduceScatter).
func (c *Comm) ReduceScatter(send, recv Buffer, recvCount int64, dt DataType, op RedOp, s *cuda.Stream) error {
	if recvCount > 0 && int64(c.count) > (1<<62)/recvCount {
		return fmt.Errorf("nccl: ncclReduceScatter: %d x %d elements overflow", c.count, recvCount)
	}
	if err := c.usable("ncclReduceScatter", dt, recvCount*int64(c.count), send); err != nil {
		return err
	}
	if err := c.usable("ncclReduceScatter", dt, recvCount, recv); err != nil {
		return err
	}
	h, err := stream(s)
	if err != nil {
		return err
	}
	return c.lib.check("ncclReduceScatter", c.h, c.lib.api.ncclReduceScatter(send.Addr(), recv.Addr(), uint64(recvCount), dt, op, c.h, h))
}

// AllGather gathers every rank's sendCount elements into every rank's
// recv, rank r's at element r*sendCount (ncclAllGather).
func (c *Comm) AllGather(send, recv Buffer, sendCount int64, dt DataType, s *cuda.Stream) error {
	if sendCount > 0 && int64(c.count) > (1<<62)/sendCount {
		return fmt.Errorf("nccl: ncclAllGather: %d x %d elements overflow", c.count, sendCount)
	}
	if err := c.usable("ncclAllGather", dt, sendCount, send); err != nil {
		return err
	}
	if err := c.usable("ncclAllGather", dt, sendCount*int64(c.count), recv); err != nil {
		return err
	}
	h, err := stream(s)
	if err != nil {
		return err
	}
	return c.lib.check("ncclAllGather", c.h, c.lib.api.ncclAllGather(send.Addr(), recv.Addr(), uint64(sendCount), dt, c.h, h))
}

func (c *Comm) peer(fn string, p int) error {
	if p < 0 || p >= c.count {
		return fmt.Errorf("nccl: %s: peer %d is not a rank of %d", fn, p, c.count)
	}
	return nil
}

// Send sends count elements of send to rank peer (ncclSend), which must
// post the matching Recv in the same group.
func (c *Comm) Send(send Buffer, count int64, dt DataType, peer int, s *cuda.Stream) error {
	if err := c.usable("ncclSend", dt, count, send); err != nil {
		return err
	}
	if err := c.peer("ncclSend", peer); err != nil {
		return err
	}
	h, err := stream(s)
	if err != nil {
		return err
	}
	return c.lib.check("ncclSend", c.h, c.lib.api.ncclSend(send.Addr(), uint64(count), dt, int32(peer), c.h, h))
}

// Recv receives count elements from rank peer into recv (ncclRecv).
func (c *Comm) Recv(recv Buffer, count int64, dt DataType, peer int, s *cuda.Stream) error {
	if err := c.usable("ncclRecv", dt, count, recv); err != nil {
		return err
	}
	if err := c.peer("ncclRecv", peer); err != nil {
		return err
	}
	h, err := stream(s)
	if err != nil {
		return err
	}
	return c.lib.check("ncclRecv", c.h, c.lib.api.ncclRecv(recv.Addr(), uint64(count), dt, int32(peer), c.h, h))
}
