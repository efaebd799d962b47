package nccl

import (
	"errors"
	"os"
	"slices"
	"testing"

	"github.com/recom-compiler/recom/runtime/cuda"
)

// The real NCCL on the host's GPUs (bench/experiments/shard.sh runs this
// test's binary on the GPU machine with RECOM_GPU=1): a communicator per
// visible device, an all-reduce of every rank's buffer, and in one group
// every rank's send to rank 0 and rank 0's receives into a gather buffer
// (the sharded layer's exchange; with one GPU, rank 0 sends to itself).
// Without a driver or libnccl the test is skipped and says why, unless
// RECOM_GPU=1 demands both.
func TestRealNCCL(t *testing.T) {
	demand := os.Getenv("RECOM_GPU") == "1"
	drv, err := cuda.Open()
	if errors.Is(err, cuda.ErrNoDriver) && !demand {
		t.Skipf("%v: set RECOM_GPU=1 to make the driver's absence a failure", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	lib, err := Open()
	if errors.Is(err, ErrNotFound) && !demand {
		t.Skipf("%v: set RECOM_GPU=1 to make NCCL's absence a failure", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	n, err := drv.DeviceCount()
	if err != nil {
		t.Fatal(err)
	}
	n = min(n, 8)
	devices := make([]int, n)
	ctxs := make([]*cuda.Context, n)
	strs := make([]*cuda.Stream, n)
	for d := range n {
		devices[d] = d
		if ctxs[d], err = drv.NewContext(d); err != nil {
			t.Fatal(err)
		}
		defer ctxs[d].Close()
		if strs[d], err = ctxs[d].NewStream(); err != nil {
			t.Fatal(err)
		}
		defer strs[d].Close()
	}
	comms, err := lib.InitAll(devices)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, c := range comms {
			c.Close()
		}
	}()
	t.Logf("%s at %s: %d ranks", lib, lib.Path(), n)
	const count = 1024
	bufs := make([]*cuda.DevicePtr, n)
	sums := make([]*cuda.DevicePtr, n)
	want := make([]float32, count)
	for d := range n {
		v := make([]float32, count)
		for i := range v {
			v[i] = float32(i*(d+1)) + 0.5
			want[i] += v[i]
		}
		if bufs[d], err = ctxs[d].Alloc(4 * count); err != nil {
			t.Fatal(err)
		}
		defer bufs[d].Close()
		if err := cuda.CopyToDevice(bufs[d], v); err != nil {
			t.Fatal(err)
		}
		if sums[d], err = ctxs[d].Alloc(4 * count); err != nil {
			t.Fatal(err)
		}
		defer sums[d].Close()
	}
	if err := lib.Group(func() error {
		for d, c := range comms {
			if err := c.AllReduce(bufs[d], sums[d], count, Float32, Sum, strs[d]); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	gathered, err := ctxs[0].Alloc(int64(4 * count * n))
	if err != nil {
		t.Fatal(err)
	}
	defer gathered.Close()
	if err := lib.Group(func() error {
		for d, c := range comms {
			if err := c.Send(bufs[d], count, Float32, 0, strs[d]); err != nil {
				return err
			}
			if err := comms[0].Recv(At(gathered, int64(4*count*d)), count, Float32, d, strs[0]); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for d := range n {
		if err := strs[d].Synchronize(); err != nil {
			t.Fatal(err)
		}
	}
	for d := range n {
		got := make([]float32, count)
		if err := cuda.CopyFromDevice(got, sums[d]); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("rank %d: all-reduce gave %v..., want %v...", d, got[:4], want[:4])
		}
	}
	all := make([]float32, count*n)
	if err := cuda.CopyFromDevice(all, gathered); err != nil {
		t.Fatal(err)
	}
	for d := range n {
		for i := range count {
			if w := float32(i*(d+1)) + 0.5; all[d*count+i] != w {
				t.Fatalf("gathered[%d][%d] = %v, want %v", d, i, all[d*count+i], w)
			}
		}
	}
}
