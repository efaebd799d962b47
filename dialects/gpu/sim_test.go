package gpu_test

import (
	"context"
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/dialects/gpu"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/textir"
)

// kernel parses src (a gpu.module), verifies it and compiles @name.
func kernel(t testing.TB, src, name string) *gpu.Kernel {
	t.Helper()
	ctx := newCtx()
	m := parse(t, ctx, src)
	if err := textir.Verify(ctx, m); err != nil {
		t.Fatalf("verify: %v", err)
	}
	var fn *textir.Operation
	m.Walk(func(op *textir.Operation) bool {
		if n, ok := textir.SymbolName(op); ok && n == name && op.Name() == gpu.FuncOp {
			fn = op
		}
		return true
	})
	k, err := gpu.Compile(fn)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return k
}

func f32Bytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func bytesF32(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}

func i64Bytes(v []int64) []byte {
	b := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(x))
	}
	return b
}

func poisoned(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = 0xff
	}
	return b
}

// The global thread index, i64, in %g.
const gid = `
    %tid = gpu.thread_id x
    %bid = gpu.block_id x
    %bdim = gpu.block_dim x
    %t = arith.extsi %tid : i32 to i64
    %bb = arith.extsi %bid : i32 to i64
    %bd = arith.extsi %bdim : i32 to i64
    %g0 = arith.muli %bb, %bd : i64
    %g = arith.addi %g0, %t : i64
`

const vaddSrc = `gpu.module @m {
  gpu.func @vadd(%a: !gpu.ptr<f32, global>, %b: !gpu.ptr<f32, global>, %c: !gpu.ptr<f32, global>, %n: i64) kernel attributes {max_threads = 64 : i64} {` + gid + `
    %c4 = arith.constant 4 : i64
    %i = arith.muli %g, %c4 : i64
    %nv = arith.divsi %n, %c4 : i64
    %nfull = arith.muli %nv, %c4 : i64
    %in = arith.cmpi slt, %i, %nfull : i64
    gpu.if %in {
      %x0, %x1, %x2, %x3 = gpu.load %a[%i] {width = 4, readonly} : !gpu.ptr<f32, global> -> f32, f32, f32, f32
      %y0, %y1, %y2, %y3 = gpu.load %b[%i] {width = 4} : !gpu.ptr<f32, global> -> f32, f32, f32, f32
      %s0 = arith.addf %x0, %y0 : f32
      %s1 = arith.addf %x1, %y1 : f32
      %s2 = arith.addf %x2, %y2 : f32
      %s3 = arith.addf %x3, %y3 : f32
      gpu.store %s0, %s1, %s2, %s3, %c[%i] {width = 4} : f32, f32, f32, f32, !gpu.ptr<f32, global>
      gpu.yield
    }
    %c0 = arith.constant 0 : i64
    %first = arith.cmpi eq, %g, %c0 : i64
    gpu.if %first {
      %c1 = arith.constant 1 : i64
      gpu.for %j = %nfull to %n step %c1 {
        %x = gpu.load %a[%j] : !gpu.ptr<f32, global> -> f32
        %y = gpu.load %b[%j] : !gpu.ptr<f32, global> -> f32
        %s = arith.addf %x, %y : f32
        gpu.store %s, %c[%j] : f32, !gpu.ptr<f32, global>
        gpu.yield
      }
      gpu.yield
    }
    gpu.return
  }
}`

func TestVectorAdd(t *testing.T) {
	k := kernel(t, vaddSrc, "vadd")
	const n = 1003
	a, b := make([]float32, n), make([]float32, n)
	for i := range a {
		a[i], b[i] = float32(i)*0.5, float32(n-i)
	}
	c := poisoned(4 * n)
	grid := int64((n/4 + 63) / 64)
	for _, workers := range []int{1, 4} {
		if err := k.Launch(grid, 64, []any{gpu.Buf{Data: f32Bytes(a)}, gpu.Buf{Data: f32Bytes(b)}, gpu.Buf{Data: c}, int64(n)},
			&gpu.LaunchOptions{Workers: workers}); err != nil {
			t.Fatal(err)
		}
		for i, v := range bytesF32(c) {
			if v != a[i]+b[i] {
				t.Fatalf("c[%d] = %v, want %v", i, v, a[i]+b[i])
			}
		}
	}
	// The launch bound is enforced.
	if err := k.Launch(1, 128, []any{gpu.Buf{Data: f32Bytes(a)}, gpu.Buf{Data: f32Bytes(b)}, gpu.Buf{Data: c}, int64(n)}, nil); err == nil ||
		!strings.Contains(err.Error(), "max_threads") {
		t.Errorf("block of 128 > max_threads: got %v", err)
	}
}

const blockSumSrc = `gpu.module @m {
  gpu.func @bsum(%a: !gpu.ptr<f32, global>, %out: !gpu.ptr<f32, global>, %total: !gpu.ptr<f32, global>, %n: i64) kernel {` + gid + `
    %sh = gpu.shared_alloc {count = 128 : i64} : !gpu.ptr<f32, shared>
    %zero = arith.constant 0.0 : f32
    %in = arith.cmpi slt, %g, %n : i64
    %v = gpu.if %in -> (f32) {
      %x = gpu.load %a[%g] : !gpu.ptr<f32, global> -> f32
      gpu.yield %x : f32
    } else {
      gpu.yield %zero : f32
    }
    gpu.store %v, %sh[%t] : f32, !gpu.ptr<f32, shared>
    gpu.barrier
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %c7 = arith.constant 7 : i64
    %c64 = arith.constant 64 : i64
    gpu.for %k = %c0 to %c7 step %c1 {
      %s = arith.shrui %c64, %k : i64
      %act = arith.cmpi slt, %t, %s : i64
      gpu.if %act {
        %j = arith.addi %t, %s : i64
        %p = gpu.ptr_offset %sh, %j : !gpu.ptr<f32, shared>
        %y = gpu.load %p[%c0] : !gpu.ptr<f32, shared> -> f32
        %x = gpu.load %sh[%t] : !gpu.ptr<f32, shared> -> f32
        %z = arith.addf %x, %y : f32
        gpu.store %z, %sh[%t] : f32, !gpu.ptr<f32, shared>
        gpu.yield
      }
      gpu.barrier
      gpu.yield
    }
    %lead = arith.cmpi eq, %t, %c0 : i64
    gpu.if %lead {
      %r = gpu.load %sh[%c0] : !gpu.ptr<f32, shared> -> f32
      gpu.store %r, %out[%bb] : f32, !gpu.ptr<f32, global>
      %old = gpu.atomic_add %total[%c0], %r : !gpu.ptr<f32, global>, f32
      gpu.yield
    }
    gpu.return
  }
}`

func TestBlockReduction(t *testing.T) {
	k := kernel(t, blockSumSrc, "bsum")
	const n, blocks = 1000, 8
	a := make([]float32, n)
	for i := range a {
		a[i] = float32(i%17) - 3
	}
	out := poisoned(4 * blocks)
	total := f32Bytes([]float32{0})
	if err := k.Launch(blocks, 128, []any{gpu.Buf{Data: f32Bytes(a)}, gpu.Buf{Data: out}, gpu.Buf{Data: total}, int64(n)}, nil); err != nil {
		t.Fatal(err)
	}
	var all float32
	for b, got := range bytesF32(out) {
		var want float32
		for i := b * 128; i < min((b+1)*128, n); i++ {
			want += a[i]
		}
		all += want
		if got != want { // small integers: exact in any order
			t.Errorf("block %d: sum %v, want %v", b, got, want)
		}
	}
	if got := bytesF32(total)[0]; got != all {
		t.Errorf("atomic total %v, want %v", got, all)
	}
}

const warpSumSrc = `gpu.module @m {
  gpu.func @wsum(%a: !gpu.ptr<f32, global>, %out: !gpu.ptr<f32, global>) kernel {` + gid + `
    %x = gpu.load %a[%g] : !gpu.ptr<f32, global> -> f32
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %c5 = arith.constant 5 : i64
    %c16 = arith.constant 16 : i32
    %c32 = arith.constant 32 : i32
    %sum = gpu.for %k = %c0 to %c5 step %c1 iter_args(%v = %x) -> (f32) {
      %k32 = arith.trunci %k : i64 to i32
      %off = arith.shrui %c16, %k32 : i32
      %o = gpu.shuffle xor %v, %off, %c32 : f32
      %s = arith.addf %v, %o : f32
      gpu.yield %s : f32
    }
    %lane = gpu.lane_id
    %z = arith.constant 0 : i32
    %lead = arith.cmpi eq, %lane, %z : i32
    gpu.if %lead {
      %c32l = arith.constant 32 : i64
      %w = arith.divui %g, %c32l : i64
      gpu.store %sum, %out[%w] : f32, !gpu.ptr<f32, global>
      gpu.yield
    }
    gpu.return
  }
  gpu.func @shfl(%out: !gpu.ptr<i32, global>, %mode: i32) kernel {` + gid + `
    %lane = gpu.lane_id
    %c3 = arith.constant 3 : i32
    %c8 = arith.constant 8 : i32
    %x = gpu.shuffle xor %lane, %c3, %c8 : i32
    %d = gpu.shuffle down %lane, %c3, %c8 : i32
    %u = gpu.shuffle up %lane, %c3, %c8 : i32
    %i = gpu.shuffle idx %lane, %c3, %c8 : i32
    %c4 = arith.constant 4 : i64
    %base = arith.muli %g, %c4 : i64
    gpu.store %x, %d, %u, %i, %out[%base] {width = 4} : i32, i32, i32, i32, !gpu.ptr<i32, global>
    gpu.return
  }
}`

func TestWarpReduction(t *testing.T) {
	k := kernel(t, warpSumSrc, "wsum")
	a := make([]float32, 64)
	for i := range a {
		a[i] = float32(i)
	}
	out := poisoned(8)
	if err := k.Launch(1, 64, []any{gpu.Buf{Data: f32Bytes(a)}, gpu.Buf{Data: out}}, nil); err != nil {
		t.Fatal(err)
	}
	got := bytesF32(out)
	if got[0] != 496 || got[1] != 1520 { // 0+..+31, 32+..+63
		t.Errorf("warp sums %v, want [496 1520]", got)
	}
}

// TestShuffleModes checks shfl.sync's segment rules against their
// definition for width 8.
func TestShuffleModes(t *testing.T) {
	k := kernel(t, warpSumSrc, "shfl")
	out := poisoned(32 * 16)
	if err := k.Launch(1, 32, []any{gpu.Buf{Data: out}, int64(0)}, nil); err != nil {
		t.Fatal(err)
	}
	for lane := 0; lane < 32; lane++ {
		seg := lane &^ 7
		xor, down, up, idx := lane^3, lane+3, lane-3, seg|3
		if xor > seg+7 {
			xor = lane
		}
		if down > seg+7 {
			down = lane
		}
		if up < seg {
			up = lane
		}
		want := []int{xor, down, up, idx}
		for m := range 4 {
			got := int(int32(binary.LittleEndian.Uint32(out[16*lane+4*m:])))
			if got != want[m] {
				t.Errorf("lane %d mode %d: got %d, want %d", lane, m, got, want[m])
			}
		}
	}
}

// One warp per bag (CSR row), lanes over the embedding width, rows read by
// a device function: an embedding bag with sum pooling.
const bagSrc = `gpu.module @m {
  gpu.func @row(%table: !gpu.ptr<f32, global>, %id: i64, %d: i64, %dim: i64) -> f32 {
    %base = arith.muli %id, %dim : i64
    %p = gpu.ptr_offset %table, %base : !gpu.ptr<f32, global>
    %v = gpu.load %p[%d] {readonly} : !gpu.ptr<f32, global> -> f32
    gpu.return %v : f32
  }
  gpu.func @bag(%ids: !gpu.ptr<i64, global>, %offsets: !gpu.ptr<i64, global>, %table: !gpu.ptr<f32, global>,
                %out: !gpu.ptr<f32, global>, %bags: i64, %dim: i64) kernel {` + gid + `
    %c32 = arith.constant 32 : i64
    %c1 = arith.constant 1 : i64
    %bag = arith.divsi %g, %c32 : i64
    %lane = arith.remsi %g, %c32 : i64
    %ok = arith.cmpi slt, %bag, %bags : i64
    gpu.if %ok {
      %next = arith.addi %bag, %c1 : i64
      %lo = gpu.load %offsets[%bag] : !gpu.ptr<i64, global> -> i64
      %hi = gpu.load %offsets[%next] : !gpu.ptr<i64, global> -> i64
      gpu.for %d = %lane to %dim step %c32 {
        %zero = arith.constant 0.0 : f32
        %sum = gpu.for %p = %lo to %hi step %c1 iter_args(%acc = %zero) -> (f32) {
          %id = gpu.load %ids[%p] : !gpu.ptr<i64, global> -> i64
          %v = gpu.call @row(%table, %id, %d, %dim) : (!gpu.ptr<f32, global>, i64, i64, i64) -> f32
          %s = arith.addf %acc, %v : f32
          gpu.yield %s : f32
        }
        %o0 = arith.muli %bag, %dim : i64
        %o = arith.addi %o0, %d : i64
        gpu.store %sum, %out[%o] : f32, !gpu.ptr<f32, global>
        gpu.yield
      }
      gpu.yield
    }
    gpu.return
  }
}`

func TestSegmentedSum(t *testing.T) {
	k := kernel(t, bagSrc, "bag")
	const rows, dim = 50, 40
	table := make([]float32, rows*dim)
	for i := range table {
		table[i] = float32(i%97) * 0.25
	}
	lens := []int{3, 0, 1, 7, 2, 0, 5, 4, 10, 1} // empty and long bags
	var ids, offsets []int64
	offsets = append(offsets, 0)
	for b, l := range lens {
		for j := range l {
			ids = append(ids, int64((b*7+j*13)%rows))
		}
		offsets = append(offsets, int64(len(ids)))
	}
	bags := len(lens)
	out := poisoned(4 * bags * dim)
	grid := int64((bags*32 + 127) / 128)
	if err := k.Launch(grid, 128, []any{gpu.Buf{Data: i64Bytes(ids)}, gpu.Buf{Data: i64Bytes(offsets)}, gpu.Buf{Data: f32Bytes(table)},
		gpu.Buf{Data: out}, int64(bags), int64(dim)}, nil); err != nil {
		t.Fatal(err)
	}
	got := bytesF32(out)
	for b := range bags {
		for d := range dim {
			var want float32
			for p := offsets[b]; p < offsets[b+1]; p++ {
				want += table[int(ids[p])*dim+d]
			}
			if got[b*dim+d] != want {
				t.Fatalf("out[%d][%d] = %v, want %v", b, d, got[b*dim+d], want)
			}
		}
	}
}

func TestSimulatorErrors(t *testing.T) {
	const head = `gpu.module @m {
  gpu.func @k(%a: !gpu.ptr<f32, global>, %n: i64) kernel {` + gid
	tests := []struct {
		name, body  string
		grid, block int64
		want        []string
	}{
		{"out of bounds", `
    %x = gpu.load %a[%g] : !gpu.ptr<f32, global> -> f32 loc("oob.mlir":7:5)`, 1, 32,
			[]string{"oob.mlir:7:5", "'gpu.load' op out-of-bounds access: bytes [64, 68) of argument #0 (a 64-byte buffer)", "(thread 16 of block 0)"}},
		{"misaligned width 4", `
    %c1 = arith.constant 1 : i64
    %x:4 = gpu.load %a[%c1] {width = 4} : !gpu.ptr<f32, global> -> f32, f32, f32, f32`, 1, 1,
			[]string{"'gpu.load' op misaligned 16-byte access at byte offset 4"}},
		{"store out of bounds", `
    %c0 = arith.constant 0.0 : f32
    %i = arith.subi %n, %g : i64
    gpu.store %c0, %a[%i] : f32, !gpu.ptr<f32, global>`, 1, 1,
			[]string{"'gpu.store' op out-of-bounds access: bytes [64, 68)"}},
		{"barrier divergence", `
    %c5 = arith.constant 5 : i64
    %lt = arith.cmpi slt, %t, %c5 : i64
    gpu.if %lt {
      gpu.barrier
      gpu.yield
    }`, 1, 32, []string{"'gpu.barrier' op barrier divergence in block 0: thread 0 waits here, but thread 5 returned"}},
		{"two barriers", `
    %c5 = arith.constant 5 : i64
    %lt = arith.cmpi slt, %t, %c5 : i64
    gpu.if %lt {
      gpu.barrier
      gpu.yield
    } else {
      gpu.barrier
      gpu.yield
    }`, 1, 8, []string{"barrier divergence", "waits at another barrier"}},
		{"shuffle divergence", `
    %c16 = arith.constant 16 : i64
    %lt = arith.cmpi slt, %t, %c16 : i64
    gpu.if %lt {
      %o = arith.constant 1 : i32
      %w = arith.constant 32 : i32
      %v = arith.constant 1.0 : f32
      %s = gpu.shuffle xor %v, %o, %w : f32
      gpu.yield
    }`, 1, 32, []string{"'gpu.shuffle' op shuffle divergence in block 0, warp 0: lane 0 waits here, but lane 16 returned"}},
		{"division by zero", `
    %c0 = arith.constant 0 : i64
    %q = arith.divsi %n, %c0 : i64`, 1, 1, []string{"'arith.divsi' op division by zero (thread 0 of block 0)"}},
		{"step", `
    %c0 = arith.constant 0 : i64
    gpu.for %i = %c0 to %n step %c0 {
      gpu.yield
    }`, 1, 1, []string{"'gpu.for' op step 0 is not positive"}},
		{"error of the first failing block", `
    %c3 = arith.constant 3 : i64
    %bad = arith.cmpi sge, %bb, %c3 : i64
    gpu.if %bad {
      %x = gpu.load %a[%n] : !gpu.ptr<f32, global> -> f32
      gpu.yield
    }`, 16, 4, []string{"(thread 0 of block 3)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := kernel(t, head+tc.body+"\n    gpu.return\n  }\n}", "k")
			err := k.Launch(tc.grid, tc.block, []any{gpu.Buf{Data: make([]byte, 64)}, int64(16)}, nil)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

// TestHostProgram runs a host function through the interpreter: feeds of
// its arguments, a view of a packed input buffer, an arena from gpu.alloc,
// the launch, and the arena as the output.
func TestHostProgram(t *testing.T) {
	src := strings.Replace(vaddSrc, "gpu.module @m {", "module {\ngpu.module @m {", 1) + `
func.func @host(%packed: !gpu.buffer, %n: i64) {
  %c4 = arith.constant 4 : i64
  %bytes = arith.muli %n, %c4 : i64
  %b = gpu.buffer_view %packed[%bytes] : !gpu.buffer -> !gpu.buffer
  %out = gpu.alloc %bytes : !gpu.buffer loc("out")
  %grid = arith.constant 4 : i64
  %block = arith.constant 64 : i64
  gpu.launch @m::@vadd blocks(%grid) threads(%block) args(%packed, %b, %out, %n) : !gpu.buffer, !gpu.buffer, !gpu.buffer, i64
  func.return
}
}`
	ctx := newCtx()
	m := parse(t, ctx, src)
	if err := textir.Verify(ctx, m); err != nil {
		t.Fatal(err)
	}
	const n = 1000
	packed := make([]float32, 2*n)
	for i := range packed {
		packed[i] = float32(i)
	}
	res, err := exec.Run(context.Background(), m, map[string]*interp.Tensor{
		"@host:0": interp.Must(interp.New([]int64{8 * n}, f32Bytes(packed))),
		"@host:1": interp.Scalar[int64](n),
	}, []string{"out"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := bytesF32(res["out"].Data().([]byte))
	for i, v := range got {
		if v != packed[i]+packed[n+i] {
			t.Fatalf("out[%d] = %v, want %v", i, v, packed[i]+packed[n+i])
		}
	}
	// A misaligned view: 4 bytes past a 16-byte boundary.
	_, err = exec.Run(context.Background(), m, map[string]*interp.Tensor{
		"@host:0": interp.Must(interp.New([]int64{8 * 1001}, make([]byte, 8*1001))),
		"@host:1": interp.Scalar[int64](1001),
	}, []string{"out"}, nil)
	if err == nil || !strings.Contains(err.Error(), "misaligned 16-byte access") {
		t.Errorf("misaligned view: got %v", err)
	}
	// An argument that is not fed.
	_, err = exec.Run(context.Background(), m, map[string]*interp.Tensor{"@host:1": interp.Scalar[int64](n)}, []string{"out"}, nil)
	if err == nil || !strings.Contains(err.Error(), `function argument that was not fed (feed it as "@host:0")`) {
		t.Errorf("unfed argument: got %v", err)
	}
}

// BenchmarkSegmentedSum: the embedding bag of TestSegmentedSum at a
// realistic size (4096 bags of pooling 1..10, width 64, 100k-row table),
// reporting simulated rows (one row = one lane-group read of a bag id) per
// second.
func BenchmarkSegmentedSum(b *testing.B) {
	k := kernel(b, bagSrc, "bag")
	const rows, dim, bags = 100000, 64, 4096
	table := make([]float32, rows*dim)
	for i := range table {
		table[i] = float32(i % 1013)
	}
	var ids, offsets []int64
	offsets = append(offsets, 0)
	for bag := range bags {
		for j := range 1 + bag%10 {
			ids = append(ids, int64((bag*7919+j*104729)%rows))
		}
		offsets = append(offsets, int64(len(ids)))
	}
	args := []any{gpu.Buf{Data: i64Bytes(ids)}, gpu.Buf{Data: i64Bytes(offsets)}, gpu.Buf{Data: f32Bytes(table)},
		gpu.Buf{Data: poisoned(4 * bags * dim)}, int64(bags), int64(dim)}
	b.ResetTimer()
	for range b.N {
		if err := k.Launch(bags*32/256, 256, args, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(ids))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// A launch runs at most MaxSteps loop iterations (of all its threads): a
// loop that never reaches its bound fails, naming the loop, instead of
// running for ever.
func TestSimulatorStepBudget(t *testing.T) {
	const src = `gpu.module @m {
  gpu.func @k(%n: i64) kernel {
    %c0 = arith.constant 0 : i32
    %c2 = arith.constant 2 : i32
    %max = arith.constant 2147483647 : i32
    gpu.for %i = %c0 to %max step %c2 : i32 {
      gpu.yield
    } loc("loop.mlir":4:5)
    gpu.return
  }
  gpu.func @bounded(%n: i64) kernel {
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    gpu.for %i = %c0 to %n step %c1 {
      gpu.yield
    } loc("loop.mlir":12:5)
    gpu.return
  }
}`
	// The i32 induction variable wraps around past 2^31-1: never done.
	k := kernel(t, src, "k")
	for _, workers := range []int{1, 4} {
		err := k.Launch(8, 64, []any{int64(0)}, &gpu.LaunchOptions{MaxSteps: 1 << 20, Workers: workers})
		want := "loop.mlir:4:5: error: 'gpu.for' op the launch ran more than 1048576 loop iterations (set RECOM_MAX_SIM_STEPS to raise the limit; see docs/LIMITS.md)"
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%d workers: got %v, want %s", workers, err, want)
		}
	}
	// The package's MaxSteps is the default; a launch within it runs.
	b := kernel(t, src, "bounded")
	saved := gpu.MaxSteps
	defer func() { gpu.MaxSteps = saved }()
	gpu.MaxSteps = 1000
	if err := b.Launch(2, 50, []any{int64(10)}, nil); err != nil {
		t.Errorf("1000 iterations within a budget of 1000: %v", err)
	}
	if err := b.Launch(2, 50, []any{int64(11)}, &gpu.LaunchOptions{Workers: 1}); err == nil || !strings.Contains(err.Error(), "more than 1000 loop iterations") {
		t.Errorf("1100 iterations: got %v", err)
	}
}

// With no MaxSteps set, a launch's budget is derived from its threads and
// buffers: a loop that never ends over a small launch fails at 2^24
// iterations (a fraction of a second), not at 2^32 (about a minute).
func TestSimulatorDerivedStepBudget(t *testing.T) {
	const src = `gpu.module @m {
  gpu.func @k(%n: i64) kernel {
    %c0 = arith.constant 0 : i32
    %c2 = arith.constant 2 : i32
    %max = arith.constant 2147483647 : i32
    gpu.for %i = %c0 to %max step %c2 : i32 {
      gpu.yield
    } loc("loop.mlir":4:5)
    gpu.return
  }
}`
	saved := gpu.MaxSteps
	defer func() { gpu.MaxSteps = saved }()
	gpu.MaxSteps = 0
	err := kernel(t, src, "k").Launch(1, 1, []any{int64(0)}, nil)
	want := "loop.mlir:4:5: error: 'gpu.for' op the launch ran more than 16777216 loop iterations (set RECOM_MAX_SIM_STEPS"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %v, want %s", err, want)
	}
	for _, c := range []struct{ threads, bytes, want int64 }{
		{1, 0, 1 << 24},
		{1 << 20, 1 << 20, 1 << 32},
		{1 << 16, 1<<10 - 256, 1 << 26},
		{1 << 41, 1 << 40, 1 << 32},
		{0, 0, 1 << 24},
	} {
		if got := gpu.DerivedMaxSteps(c.threads, c.bytes); got != c.want {
			t.Errorf("DerivedMaxSteps(%d, %d) = %d, want %d", c.threads, c.bytes, got, c.want)
		}
	}
}
