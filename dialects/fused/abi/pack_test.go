package abi

import (
	"encoding/binary"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/interp"
)

// The tuned schedule's tasks go longest first, and the task map sends
// every task to its column, each column's tasks contiguous from its
// task_start.
func TestPackTaskOrderAndMap(t *testing.T) {
	col := func(name, kind string, lanes, bpt, rif int64, pooling float64) Column {
		return Column{Name: name, Kind: kind, Combiner: "sum", Rows: 10, Width: 4, Lanes: lanes, Vector: 4,
			StoreWidth: 4, Segments: 1, RowsInFlight: rif, BagsPerTask: bpt, Pooling: pooling, Source: SourceIDs, ParamsOffset: -1}
	}
	l := &Layer{Schedule: ScheduleTuned, Width: 12, Block: 256, Columns: []Column{
		col("gather", KindGather, 1, 32, 1, 1),  // one pass, one trip
		col("short", KindLookup, 2, 16, 4, 8),   // one pass, two trips
		col("long", KindLookup, 1, 64, 4, 40),   // two passes, ten trips
		col("medium", KindLookup, 1, 32, 4, 16), // one pass, four trips
	}}
	for i := range l.Columns {
		l.Columns[i].OutOffset = int64(i) * 4
		l.Columns[i].TableOffset = int64(i) * TableAlign
	}
	l.TableFloats = int64(len(l.Columns)) * TableAlign
	if got, want := l.TaskOrder(l.BagsPerTask(100)), []int{2, 3, 1, 0}; !slices.Equal(got, want) {
		t.Fatalf("TaskOrder = %v, want %v", got, want)
	}
	const batch = 100
	in := make([]ColumnInput, len(l.Columns))
	for i, c := range l.Columns {
		in[i].Table = make([]float32, c.Rows*c.Width)
		if c.Kind == KindGather {
			in[i].Ids = make([]int64, batch)
			continue
		}
		in[i].Splits = make([]int64, batch+1)
		for b := range batch {
			in[i].Splits[b+1] = in[i].Splits[b] + int64(b%3)
		}
		in[i].Ids = make([]int64, in[i].Splits[batch])
	}
	p, err := l.Pack(in)
	if err != nil {
		t.Fatal(err)
	}
	word := func(i int64) int64 { return int64(int32(binary.LittleEndian.Uint32(p.Inputs[4*i:]))) }
	C := int64(len(l.Columns))
	ntasks := func(c int64) int64 { return (batch + l.Columns[c].BagsPerTask - 1) / l.Columns[c].BagsPerTask }
	var total int64
	for c := range C {
		total += ntasks(c)
	}
	if p.Tasks != total || word(C) != total {
		t.Fatalf("tasks: Packed.Tasks %d, word C %d, want %d", p.Tasks, word(C), total)
	}
	if word(2) != 0 {
		t.Errorf("the longest column's tasks start at %d, want 0", word(2))
	}
	seen := make([]int64, C)
	for task := range total {
		c := word(l.TaskMapOffset() + task)
		if c < 0 || c >= C {
			t.Fatalf("task %d: column %d", task, c)
		}
		if k := task - word(c); k < 0 || k >= ntasks(c) {
			t.Fatalf("task %d of column %d is its task %d of %d", task, c, k, ntasks(c))
		}
		seen[c]++
	}
	for c := range C {
		if seen[c] != ntasks(c) {
			t.Errorf("column %d has %d tasks in the map, want %d", c, seen[c], ntasks(c))
		}
	}
}

// A layer of one class has the same tasks per column in column order, so
// the kernel's division (UniformTasks) finds the column the map holds.
func TestPackUniformTasks(t *testing.T) {
	c := Column{Kind: KindLookup, Combiner: "sum", Rows: 10, Width: 4, Lanes: 4, Vector: 4, StoreWidth: 4,
		Segments: 1, RowsInFlight: 4, BagsPerTask: 64, Pooling: 5, Source: SourceIDs, ParamsOffset: -1}
	l := &Layer{Schedule: ScheduleTuned, Width: 12, Block: 256, MinTasks: 40, TableFloats: 3 * TableAlign}
	for i := range 3 {
		c.Name, c.OutOffset, c.TableOffset = string(rune('a'+i)), int64(i)*4, int64(i)*TableAlign
		l.Columns = append(l.Columns, c)
	}
	if !l.UniformTasks() {
		t.Fatal("one class: UniformTasks is false")
	}
	for _, batch := range []int64{0, 1, 37, 300} {
		in := make([]ColumnInput, 3)
		for i := range in {
			in[i] = ColumnInput{Table: make([]float32, 40), Splits: make([]int64, batch+1)}
		}
		p, err := l.Pack(in)
		if err != nil {
			t.Fatal(err)
		}
		if p.Tasks%3 != 0 {
			t.Fatalf("batch %d: %d tasks for 3 columns", batch, p.Tasks)
		}
		per := p.Tasks / 3
		for task := range p.Tasks {
			off := 4 * (l.TaskMapOffset() + task)
			if got := int64(binary.LittleEndian.Uint32(p.Inputs[off:])); got != task/per {
				t.Fatalf("batch %d: task %d is column %d's, the division says %d", batch, task, got, task/per)
			}
		}
	}
	l.Columns[1].Pooling = 9
	if l.UniformTasks() {
		t.Error("columns of other pooling: UniformTasks is true")
	}
}

// A hashed string column's slots: short strings in the slot, longer ones
// as offset and length into the bytes region (StrSlots).
func TestPackStrSlots(t *testing.T) {
	c := Column{Name: "s", Kind: KindGather, Combiner: "sum", Rows: 10, Width: 4, Lanes: 4, Vector: 4, StoreWidth: 4,
		Segments: 1, RowsInFlight: 1, BagsPerTask: 32, Pooling: 1, Source: SourceStr,
		Transforms: []Transform{{Op: TransformHash, NumBuckets: 10}}, ParamsOffset: TableAlign}
	if !c.StrSlots() {
		t.Fatal("a hashed string column has no slots")
	}
	l := &Layer{Schedule: ScheduleTuned, Width: 4, Block: 256, Columns: []Column{c}}
	n, err := c.StaticFloats()
	if err != nil {
		t.Fatal(err)
	}
	l.TableFloats = TableAlign + n
	strs := []string{"", "abc", "1234567", "12345678", "a string of more than sixteen bytes"}
	v, err := interp.New([]int64{int64(len(strs))}, strs)
	if err != nil {
		t.Fatal(err)
	}
	p, err := l.Pack([]ColumnInput{{Table: make([]float32, 40), Values: v}})
	if err != nil {
		t.Fatal(err)
	}
	word := func(i int64) uint32 { return binary.LittleEndian.Uint32(p.Inputs[4*i:]) }
	d := int64(1 + 1) // after task_start (C+1 words): the descriptor
	values, bytesW := int64(word(d+1)), int64(word(d+6))
	var off uint64
	for j, s := range strs {
		u := uint64(word(values+2*int64(j))) | uint64(word(values+2*int64(j)+1))<<32
		var want uint64
		if len(s) < 8 {
			for k := range len(s) {
				want |= uint64(s[k]) << (8 * k)
			}
			want |= uint64(len(s)) << 56
		} else {
			want = off | uint64(len(s))<<32 | 0xff<<56
			for k := range len(s) {
				b := 4*bytesW + int64(off) + int64(k)
				if got := byte(word(b/4) >> (8 * (b % 4))); got != s[k] {
					t.Fatalf("%q: byte %d is %q", s, k, got)
				}
			}
			off += uint64(len(s))
		}
		if u != want {
			t.Errorf("%q: slot %#x, want %#x", s, u, want)
		}
	}
}

// A hashed string longer than a slot can describe is refused, naming the column.
func TestPackStrSlotsTooLong(t *testing.T) {
	c := Column{Name: "huge", Kind: KindGather, Combiner: "sum", Rows: 10, Width: 4, Lanes: 4, Vector: 4, StoreWidth: 4,
		Segments: 1, RowsInFlight: 1, BagsPerTask: 32, Pooling: 1, Source: SourceStr,
		Transforms: []Transform{{Op: TransformHash, NumBuckets: 10}}, ParamsOffset: TableAlign}
	l := &Layer{Schedule: ScheduleTuned, Width: 4, Block: 256, Columns: []Column{c}, TableFloats: 4 * TableAlign}
	v, err := interp.New([]int64{2}, []string{"short", strings.Repeat("x", MaxSlotString+1)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = l.PackInputs([]ColumnInput{{Values: v}})
	if err == nil || !strings.Contains(err.Error(), `"huge"`) || !strings.Contains(err.Error(), "16777216 bytes") {
		t.Fatalf("got %v, want the column's string-length error", err)
	}
}

// What the verifier lets through is still bounded when it runs: a tables
// arena of 2^31-1 floats (8 GiB) that its columns do not fill is refused
// (the arena is as large as the model's tables, which are in memory
// already, and no larger), and an output of batch x width floats beyond
// the interpreter's limits is refused with the limit's message, not
// allocated.
func TestRunBounded(t *testing.T) {
	c := Column{Name: "c", Kind: KindGather, Combiner: "sum", Rows: 10, Width: 4, Lanes: 1, Vector: 4,
		StoreWidth: 4, Segments: 1, RowsInFlight: 1, BagsPerTask: 32, Source: SourceIDs, ParamsOffset: -1}
	l := &Layer{Schedule: ScheduleTuned, Width: MaxArenaFloats, Block: 256, TableFloats: MaxArenaFloats, Columns: []Column{c}}
	if err := l.check(); err != nil {
		t.Fatal(err)
	}
	_, err := l.TableArena([]ColumnInput{{Table: make([]float32, 40)}})
	if err == nil || !strings.Contains(err.Error(), "the tables arena: table_floats = 2147483647, but the columns place 40 floats in it") {
		t.Errorf("tables arena: got %v", err)
	}
	if _, err := l.TableArena([]ColumnInput{{Table: make([]float32, 39)}}); err == nil || !strings.Contains(err.Error(), "column #0's table has 39 floats, its 10x4 shape says 40") {
		t.Errorf("tables arena, short table: got %v", err)
	}
	var tl *interp.TooLargeError
	l.TableFloats = TableAlign
	_, _, err = l.Run(nil, []ColumnInput{{Table: make([]float32, 40), Ids: make([]int64, 1000)}})
	if !errors.As(err, &tl) || !strings.Contains(err.Error(), "the output of 1000 rows of 2147483647 floats is too large to materialise") {
		t.Errorf("output: got %v", err)
	}
	d := &Dense{Ks: []int64{8}, N: 1 << 30, BlockM: 64, BlockN: 16, BlockK: 16, ThreadM: 4, ThreadN: 4, SplitK: 1, Accumulate: AccF64, Activation: ActNone}
	if _, err := d.RunSplit(nil, nil, &DenseInputs{B: 1000}, 1); !errors.As(err, &tl) {
		t.Errorf("dense output: got %v", err)
	}
}
