package nccl

import (
	"errors"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/runtime/cuda"
)

type simRig struct {
	gpu   *cuda.Sim
	ctx   *cuda.Context
	nccl  *Sim
	lib   *Library
	comms []*Comm
	strs  []*cuda.Stream
}

func newRig(t *testing.T, ranks int) *simRig {
	t.Helper()
	r := &simRig{gpu: cuda.NewSim()}
	r.gpu.Deferred = true // a missing order between streams shows
	drv, err := r.gpu.Driver()
	if err != nil {
		t.Fatal(err)
	}
	if r.ctx, err = drv.NewContext(0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.ctx.Close() })
	r.nccl = NewSim(r.gpu)
	if r.lib, err = r.nccl.Library(); err != nil {
		t.Fatal(err)
	}
	devs := make([]int, ranks)
	for i := range devs {
		devs[i] = i
	}
	if r.comms, err = r.lib.InitAll(devs); err != nil {
		t.Fatal(err)
	}
	for range ranks {
		s, err := r.ctx.NewStream()
		if err != nil {
			t.Fatal(err)
		}
		r.strs = append(r.strs, s)
	}
	return r
}

func (r *simRig) buf(t *testing.T, v []float32) *cuda.DevicePtr {
	t.Helper()
	p, err := r.ctx.Alloc(int64(4 * len(v)))
	if err != nil {
		t.Fatal(err)
	}
	if err := cuda.CopyToDevice(p, v); err != nil {
		t.Fatal(err)
	}
	return p
}

func read(t *testing.T, p *cuda.DevicePtr) []float32 {
	t.Helper()
	out := make([]float32, p.Size()/4)
	if err := cuda.CopyFromDevice(out, p); err != nil {
		t.Fatal(err)
	}
	return out
}

func equal(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// The communicators of InitAll know their rank, clique and device; the
// version decodes.
func TestInitAll(t *testing.T) {
	r := newRig(t, 3)
	for i, c := range r.comms {
		if c.Rank() != i || c.Count() != 3 || c.Device() != i {
			t.Errorf("comm %d: rank %d of %d on %d", i, c.Rank(), c.Count(), c.Device())
		}
	}
	if got := r.lib.String(); !strings.HasPrefix(got, "NCCL 2.28.0") {
		t.Errorf("String() = %q", got)
	}
	if _, err := r.lib.InitAll([]int{0, 0}); err == nil || !strings.Contains(err.Error(), "distinct") {
		t.Errorf("repeated devices: %v", err)
	}
	if _, err := r.lib.InitAll(nil); err == nil {
		t.Error("no devices accepted")
	}
}

// Sends and receives in a group gather every rank's buffer on rank 0 (the
// sharded layer's exchange); the collectives reduce, scatter and gather.
func TestGroupCalls(t *testing.T) {
	r := newRig(t, 3)
	parts := [][]float32{{1, 2}, {3, 4, 5}, {6}}
	var srcs []*cuda.DevicePtr
	for _, p := range parts {
		srcs = append(srcs, r.buf(t, p))
	}
	gathered := r.buf(t, make([]float32, 6))
	err := r.lib.Group(func() error {
		off := int64(0)
		for k, p := range parts {
			n := int64(len(p))
			if k > 0 {
				if err := r.comms[k].Send(srcs[k], n, Float32, 0, r.strs[k]); err != nil {
					return err
				}
			}
			if err := r.comms[0].Recv(At(gathered, 4*off), n, Float32, k, r.strs[0]); err != nil {
				return err
			}
			if k == 0 {
				if err := r.comms[0].Send(srcs[0], n, Float32, 0, r.strs[0]); err != nil {
					return err
				}
			}
			off += n
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.ctx.Synchronize(); err != nil {
		t.Fatal(err)
	}
	if got := read(t, gathered); !equal(got, []float32{1, 2, 3, 4, 5, 6}) {
		t.Errorf("gathered %v", got)
	}

	in := []*cuda.DevicePtr{r.buf(t, []float32{1, 2, 3}), r.buf(t, []float32{10, 20, 30}), r.buf(t, []float32{100, 200, 300})}
	sum := []*cuda.DevicePtr{r.buf(t, make([]float32, 3)), r.buf(t, make([]float32, 3)), r.buf(t, make([]float32, 3))}
	one := []*cuda.DevicePtr{r.buf(t, make([]float32, 1)), r.buf(t, make([]float32, 1)), r.buf(t, make([]float32, 1))}
	all := []*cuda.DevicePtr{r.buf(t, make([]float32, 9)), r.buf(t, make([]float32, 9)), r.buf(t, make([]float32, 9))}
	err = r.lib.Group(func() error {
		for k, c := range r.comms {
			if err := c.AllReduce(in[k], sum[k], 3, Float32, Sum, r.strs[k]); err != nil {
				return err
			}
			if err := c.ReduceScatter(in[k], one[k], 1, Float32, Sum, r.strs[k]); err != nil {
				return err
			}
			if err := c.AllGather(in[k], all[k], 3, Float32, r.strs[k]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for k := range 3 {
		if got := read(t, sum[k]); !equal(got, []float32{111, 222, 333}) {
			t.Errorf("rank %d all-reduce %v", k, got)
		}
		if got := read(t, one[k]); !equal(got, []float32{[]float32{111, 222, 333}[k]}) {
			t.Errorf("rank %d reduce-scatter %v", k, got)
		}
		if got := read(t, all[k]); !equal(got, []float32{1, 2, 3, 10, 20, 30, 100, 200, 300}) {
			t.Errorf("rank %d all-gather %v", k, got)
		}
	}
	if r.nccl.Calls["ncclGroupStart"] != 2 || r.nccl.Calls["ncclGroupEnd"] != 2 || r.nccl.Calls["ncclSend"] != 3 || r.nccl.Calls["ncclRecv"] != 3 {
		t.Errorf("calls %v", r.nccl.Calls)
	}
}

// Mistakes are errors before NCCL sees them, or NCCL's errors with its
// text; a failing call in a group still ends the group.
func TestErrors(t *testing.T) {
	r := newRig(t, 2)
	small := r.buf(t, make([]float32, 2))
	c := r.comms[0]
	for name, err := range map[string]error{
		"short buffer": c.AllReduce(small, small, 3, Float32, Sum, r.strs[0]),
		"bad type":     c.Send(small, 1, DataType(42), 1, r.strs[0]),
		"bad peer":     c.Send(small, 1, Float32, 2, r.strs[0]),
		"no stream":    c.Recv(small, 1, Float32, 1, nil),
		"offset":       c.Recv(At(small, 12), 1, Float32, 1, r.strs[0]),
		"negative":     c.Recv(small, -1, Float32, 1, r.strs[0]),
	} {
		if err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	// Two ranks from one thread outside a group: NCCL's invalid usage.
	err := c.AllReduce(small, small, 2, Float32, Sum, r.strs[0])
	var ne *Error
	if !errors.As(err, &ne) || ne.Result != InvalidUsage || !strings.Contains(err.Error(), "ncclAllReduce: ncclResult_t 5: invalid usage") {
		t.Errorf("outside a group: %v", err)
	}
	// An unmatched send fails the group; the group is ended.
	err = r.lib.Group(func() error { return c.Send(small, 2, Float32, 1, r.strs[0]) })
	if !errors.As(err, &ne) || ne.Func != "ncclGroupEnd" {
		t.Errorf("unmatched send: %v", err)
	}
	boom := errors.New("boom")
	if err := r.lib.Group(func() error { return boom }); err != boom || r.nccl.depth != 0 {
		t.Errorf("failing group: %v, depth %d", err, r.nccl.depth)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second close: %v", err)
	}
	if err := c.Send(small, 1, Float32, 1, r.strs[0]); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("closed comm: %v", err)
	}
}

// A library that is absent is ErrNotFound with its path; one that lacks
// an entry point names it.
func TestOpenErrors(t *testing.T) {
	_, err := OpenLibrary("/nonexistent/libnccl.so.2")
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "/nonexistent/libnccl.so.2") {
		t.Errorf("OpenLibrary: %v", err)
	}
	a := &api{}
	err = a.bind(func(name string) (uintptr, error) {
		if name == "ncclRecv" {
			return 0, errors.New("undefined symbol")
		}
		return 0, nil
	})
	if err == nil || !strings.Contains(err.Error(), "ncclGetVersion") {
		t.Errorf("bind: %v", err)
	}
	if got := Dirs("/opt/nccl", "/opt/cuda")[:2]; got[0] != "/opt/nccl/lib" || got[1] != "/opt/cuda/lib64" {
		t.Errorf("Dirs = %v", got)
	}
}
