package hostpack

import (
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
)

// A value the plan cannot compute is an *UnsupportedError naming the op
// and its node; a partial plan starts at it, and packs what the
// interpreter's inputs pack to once the caller computes it.
func TestPlanUnsupported(t *testing.T) {
	m := fuseFile(t, "testdata/unsupported.mlir", "")
	_, err := NewForModule(m, nil)
	var u *UnsupportedError
	if !errors.As(err, &u) || u.Op.Name() != "tfg.Cast" || !strings.Contains(err.Error(), `(node "cast_ids")`) || !IsUnsupported(err) {
		t.Fatalf("New: %v, want an *UnsupportedError naming tfg.Cast and its node", err)
	}
	plan, err := NewForModule(m, &Options{Partial: true})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, in := range plan.Inputs() {
		if in.Computed {
			names = append(names, in.Name)
		}
	}
	if len(names) != 1 || names[0] != "cast_ids" {
		t.Fatalf("computed inputs %v, want [cast_ids]", names)
	}
	md := &model{name: "unsupported", m: m, opts: &exec.Options{}}
	feeds := map[string]*interp.Tensor{
		"@f:0": interp.Vector[int32](-1, 3, 12, -1, 9),
		"@f:1": interp.Vector("a", "", "a long string", "b", ""),
	}
	mustCheck(t, md, plan, plan.NewPacker(), feeds)
}

// Gather orders feeds by input, takes "n" for "n:0" and the reverse, and
// names what is missing; Measure and Pack refuse feeds and buffers that
// do not fit, and Pack before a successful Measure.
func TestPackerErrors(t *testing.T) {
	plan, err := NewForModule(fuseFile(t, "testdata/limits.mlir", ""), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := plan.Inputs(); len(got) != 2 || got[0].Name != "@f:0" || got[1].Name != "@f:1" || got[0].DType != interp.Int64 {
		t.Fatalf("inputs %+v", got)
	}
	a := interp.Must(interp.New([]int64{2, 2}, []int64{1, -1, 3, 4}))
	b := interp.Must(interp.New([]int64{2, 1}, []string{"x", ""}))
	if _, err := plan.Gather(map[string]*interp.Tensor{"@f:0": a}); err == nil || !strings.Contains(err.Error(), `"@f:1"`) {
		t.Errorf("Gather without @f:1: %v", err)
	}
	in, err := plan.Gather(map[string]*interp.Tensor{"@f": a, "@f:1": b})
	if err != nil || in[0] != a || in[1] != b {
		t.Fatalf("Gather: %v", err)
	}
	pk := plan.NewPacker()
	if _, err := pk.Pack(make([]byte, 1<<10)); err == nil {
		t.Error("Pack before Measure packs")
	}
	for _, c := range []struct {
		in   []*interp.Tensor
		want string
	}{
		{[]*interp.Tensor{a}, "1 feeds for 2 inputs"},
		{[]*interp.Tensor{b, a}, "has dtype string, but the tensor is int64"},
		{[]*interp.Tensor{interp.Vector[int64](1, 2), b}, "shape [2] is incompatible"},
		{[]*interp.Tensor{interp.Must(interp.New([]int64{3, 1}, []int64{1, 2, 3})), b}, "ConcatV2 needs equal batch sizes"},
		{[]*interp.Tensor{interp.Must(interp.New([]int64{2, 1}, []int64{1, 2})), interp.Must(interp.New([]int64{2, 1}, []string{strings.Repeat("x", 1<<24), "y"}))}, "16777216 bytes"},
	} {
		if _, err := pk.Measure(c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Measure: %v, want %q", err, c.want)
		}
	}
	if _, err := pk.Pack(make([]byte, 1<<10)); err == nil {
		t.Error("Pack after a failed Measure packs")
	}
	lay, err := pk.Measure(in)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pk.Pack(make([]byte, 4*lay.Words-1)); err == nil || !strings.Contains(err.Error(), "the buffer has") {
		t.Errorf("Pack into a short buffer: %v", err)
	}
	p, err := pk.PackFeeds(in, nil)
	if err != nil || int64(len(p.Inputs)) != 4*lay.Words || p.Batch != 2 {
		t.Fatalf("PackFeeds: %v", err)
	}
}

// Sizes a feed declares beyond the layer's limits are refused before
// memory is taken: more rows than the kernel's 32-bit row splits hold,
// or than the interpreter's tensors (a computed column), packed inputs of
// more than 2^31 words, a sparse tensor's dense_shape.
func TestPackLimits(t *testing.T) {
	empty := func(rows int64) []*interp.Tensor {
		return []*interp.Tensor{interp.Must(interp.New([]int64{rows, 0}, []int64{})), interp.Must(interp.New([]int64{rows, 0}, []string{}))}
	}
	for _, c := range []struct {
		opts string
		rows int64
		want string
	}{
		{"", 1 << 31, "rows exceed the kernel's 32-bit offsets"},
		{"", 1 << 30, "words at column \"b\") exceed the kernel's 32-bit offsets"},
		{"ids-in-kernel=false", 1 << 31, "rows exceed the layer's limit"},
		{"ids-in-kernel=false", 1 << 29, "rows exceed the layer's limit"},
	} {
		plan, err := NewForModule(fuseFile(t, "testdata/limits.mlir", c.opts), nil)
		if err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err = plan.NewPacker().Measure(empty(c.rows))
		runtime.ReadMemStats(&after)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %d rows: %v, want %q", c.opts, c.rows, err, c.want)
		}
		if took := after.TotalAlloc - before.TotalAlloc; took > 1<<20 {
			t.Errorf("%s %d rows: %d bytes taken before the refusal", c.opts, c.rows, took)
		}
	}
	plan, err := NewForModule(fuseFile(t, "testdata/transforms.mlir", ""), nil)
	if err != nil {
		t.Fatal(err)
	}
	feeds := transformFeeds(3, 1, true)
	feeds["@f:8"] = interp.Vector[int64](1<<40, 5)
	in, err := plan.Gather(feeds)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plan.NewPacker().Measure(in); err == nil || !strings.Contains(err.Error(), "dense_shape[0] = 1099511627776 is out of range") {
		t.Errorf("a dense_shape of 2^40 rows: %v", err)
	}
}

// Packers of one plan pack at once, alike.
func TestPackersConcurrent(t *testing.T) {
	md := smallModel(t, "ids-in-kernel=false")
	plan, err := NewForModule(md.m, nil)
	if err != nil {
		t.Fatal(err)
	}
	in, err := plan.Gather(md.feeds(t, 300, 5))
	if err != nil {
		t.Fatal(err)
	}
	want, err := plan.NewPacker().PackFeeds(in, nil)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pk := plan.NewPacker()
			for range 5 {
				got, err := pk.PackFeeds(in, nil)
				if err != nil {
					t.Errorf("packer %d: %v", g, err)
					return
				}
				if string(got.Inputs) != string(want.Inputs) {
					t.Errorf("packer %d packs other bytes", g)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// A short string's slot holds its bytes and, in byte 7, its length.
func TestShortSlot(t *testing.T) {
	s := "\x01\x82\x03\xff\x05\x06\x07"
	for n := range 8 {
		x := s[:n]
		var want uint64
		for k := range n {
			want |= uint64(x[k]) << (8 * k)
		}
		want |= uint64(n) << 56
		if got := shortSlot(x); got != want {
			t.Errorf("shortSlot(%q) = %#x, want %#x", x, got, want)
		}
	}
}

// Plan.Pack (a session's packer) packs into the buffer alloc gives, from
// goroutines at once, what a Packer packs; it refuses a buffer of another
// size and passes alloc's error on.
func TestPlanPack(t *testing.T) {
	md := smallModel(t, "")
	plan, err := NewForModule(md.m, nil)
	if err != nil {
		t.Fatal(err)
	}
	feeds := md.feeds(t, 77, 3)
	in, err := plan.Gather(feeds)
	if err != nil {
		t.Fatal(err)
	}
	want, err := plan.NewPacker().PackFeeds(in, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(plan.Name(), "native") {
		t.Errorf("Name() = %q", plan.Name())
	}
	var wg sync.WaitGroup
	for g := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 4 {
				got, err := plan.Pack(feeds, func(batch, n int64) ([]byte, error) {
					if batch != 77 {
						t.Errorf("alloc for %d rows", batch)
					}
					b := make([]byte, n)
					for i := range b {
						b[i] = 0xcd
					}
					return b, nil
				})
				if err != nil {
					t.Errorf("goroutine %d: %v", g, err)
					return
				}
				if string(got.Inputs) != string(want.Inputs) || got.Grid != want.Grid || got.Tasks != want.Tasks {
					t.Errorf("goroutine %d packs other bytes", g)
					return
				}
			}
		}()
	}
	wg.Wait()
	if _, err := plan.Pack(feeds, func(_, n int64) ([]byte, error) { return make([]byte, n+4), nil }); err == nil {
		t.Error("a buffer of the wrong size is taken")
	}
	if _, err := plan.Pack(feeds, func(_, n int64) ([]byte, error) { return nil, errors.New("no pinned memory") }); err == nil || err.Error() != "no pinned memory" {
		t.Errorf("alloc's error: %v", err)
	}
	delete(feeds, "str_0000")
	if _, err := plan.Pack(feeds, nil); err == nil || !strings.Contains(err.Error(), `"str_0000"`) {
		t.Errorf("a missing feed: %v", err)
	}
}
