// Package abi is the host–device contract of the fused dialect's ops
// (dialects/fused): what their attributes mean for the code and the data.
// The lowerings that emit the kernels (lowering/embtogpu,
// lowering/densetogpu), the GPU runtime (runtime/fusedrt) and the
// dialect's interpreter semantics (which run the kernels in the gpu
// dialect's simulator) all read it from here, so the layout is written
// once: the op's attributes as Go values (Layer, Column, Transform, Dense:
// LayerOf, DenseOf), the packed input buffer (Pack), the task order and
// map, the id transforms' parameter blocks, the GPU vocabulary tables, and
// the dense kernels' launch shapes.
//
// fused.embedding_layer is the tensor-level op that stands for a whole
// embedding layer (every column's lookup, pooling, combiner scaling and
// the concatenation) computed by one kernel of a gpu.module.
//
// # The op
//
//	%out = "fused.embedding_layer"(%table0, %values0, %splits0, %table1, %ids1, ...)
//	    {kernel = @emb::@layer, schedule = "tuned", width = 24 : i64, block = 256 : i64,
//	     min_tasks = 6336 : i64, table_floats = 1152 : i64, columns = [{...}, {...}]}
//	    : (tensor<50x8xf32>, tensor<?xi64>, tensor<?xi64>, tensor<11x4xf32>, tensor<?xi32>, ...) -> tensor<?x24xf32>
//
// columns lists the columns in kernel order (grouped by schedule class);
// each column contributes its operands in that order: the table, the ids,
// the row splits (kind "lookup" only: kind "gather" has exactly one id per
// row) and the weights (when weighted). A column's dictionary holds its
// static layout (rows, width, table_offset in floats into the tables
// arena, out_offset in floats into an output row) and its schedule (class,
// lanes, vector, store_width, segments, rows_in_flight, bags_per_task,
// pooling, cost), so that the schedule chosen for each column can be read
// (and FileChecked) in the IR.
//
// # The id computation (transforms.go)
//
// A column whose ids come from a chain of elementwise transforms (hashes of
// strings or of integers as decimal strings, vocabulary lookups, bucketize,
// range checks with a default, casts, add_offset), possibly ending in a
// drop (the ids outside a range pruned from their bags: a vocabulary's
// missing words with default_value = -1), gets the raw values as its ids
// operand, and its row splits and weights before the pruning: its dictionary then has source ("i64", "f32", "f64" or
// "str"), transforms (the chain, in order) and params_offset (floats into
// the tables arena of its parameter block: the numbers its class's shared
// code reads, and its data: bucketize boundaries, vocabulary hash tables).
// Without them the source is "ids": integer ids computed before the layer.
//
// # The runtime contract (Pack)
//
// Three device buffers and one launch:
//   - tables (uploaded once): every table at its table_offset (in floats,
//     a multiple of 64: 256-byte aligned), float32; then each column's
//     parameter block and transform data at its params_offset;
//   - the packed inputs (one host-to-device copy per run), int32 words:
//     words [0, C) are task_start (column c owns its tasks from
//     task_start[c] on, contiguous; the tuned schedule orders the
//     columns' task ranges by Layer.TaskOrder), word C the number of
//     tasks, words C+1+9c .. C+9+9c the descriptor of column c
//     (see DescWords), with the tuned schedule the task map (one word per
//     task: its column; at Layer.TaskMapOffset), then each column's row
//     splits (B+1 words), values
//     (int32 ids; two words per i64 or f64; f32 bits; for strings nnz+1
//     byte offsets, then the bytes from the descriptor's word 6, or for
//     hashed strings 8-byte slots and the bytes of those over 7 bytes:
//     Column.StrSlots) and weights (float32 bits), each region starting
//     at a multiple of 4 words;
//   - the output arena, B rows of width floats.
//
// The kernel takes (tables, inputs, output, B, number of tasks). With the
// "tuned" schedule a task is one warp: column c has ceil(B / bags per task)
// tasks, where bags per task is the planned bags_per_task or, for a batch
// too small to make min_tasks tasks, a smaller multiple of a warp pass
// (Layer.BagsPerTask); the grid is ceil(tasks / (block / 32)) blocks. A
// task finds its column in the task map, or, in a layer of one class
// (Layer.UniformTasks: every column the same tasks, in column order), by
// dividing its index by tasks / C.
// With the "recom" schedule a task is one block (one per column).
//
// The scratch (Packed.Scratch bytes after the packed inputs, in the same
// device buffer; allocated, not copied) holds what the tuned kernel's id
// pass writes for the Layer.Prepass columns, each column's at the word of
// its descriptor's word 8, a multiple of 4: one int32 id per id position,
// or for source "split" with B strings of L bytes in all, 2B+L words: the
// token count of string b at word b, and the id of its token k at word
// B + lo_b + b + k, where [lo_b, hi_b) are the string's bytes (relative to
// the column's first byte). Its count(sep)+1 <= hi_b-lo_b+1 tokens end at
// word B + hi_b + b at the latest, before the first one of string b+1
// (whose lo is hi_b).
package abi

import (
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"unsafe"

	"github.com/recom-compiler/recom/dialects/gpu"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/textir"
)

// Schedules.
const (
	ScheduleTuned = "tuned"
	ScheduleRecom = "recom"
)

// Column kinds.
const (
	KindLookup = "lookup" // ids and row splits: bags of any size
	KindGather = "gather" // exactly one id per row: no row splits
)

// DescWords is the number of int32 words of a column descriptor: the
// offsets (in words) of the row splits, the values and the weights (-1
// when absent), the table's offset / TableAlign, the output offset, the
// parameter block's offset / TableAlign (-1 without transforms) and the
// word offset of the string bytes (-1 unless the source is "str"), the
// bags per task of this launch (see Layer.MinTasks), and the word offset
// of the column's computed ids (-1 unless Layer.Prepass: the scratch the
// kernel's id pass writes, after Packed.Inputs; see the package doc for
// the layout of a "split" column's).
const DescWords = 9

// TableAlign is the alignment of each table in the tables arena, in floats.
const TableAlign = 64

// Column is one column of the layer: its static layout and its schedule.
type Column struct {
	Name     string
	Kind     string
	Combiner string
	Weighted bool
	// DivNoNaN: a weighted mean or sqrtn gives 0 where its divisor is 0
	// (emb.lookup's div_no_nan).
	DivNoNaN    bool
	Rows, Width int64
	TableOffset int64 // floats into the tables arena (a multiple of TableAlign)
	OutOffset   int64 // floats into an output row

	// The schedule.
	Class        int64   // code path (columns of one class share it)
	Lanes        int64   // threads per bag (a power of two <= 32)
	Vector       int64   // floats per table load (1, 2 or 4)
	StoreWidth   int64   // floats per output store (1, 2 or 4)
	Segments     int64   // passes of the lanes over a row (width / (lanes * vector), rounded up)
	RowsInFlight int64   // independent accumulators (id loop unrolled by this)
	BagsPerTask  int64   // bags of one task (a warp with the tuned schedule)
	Pooling      float64 // expected ids per bag used by the planner
	Cost         float64 // expected bytes moved per bag (planner's cost)

	// The id computation in the kernel (transforms.go): the layout of the
	// ids operand, the transforms applied to each value, and the offset
	// (floats into the arena, a multiple of TableAlign; -1 without
	// transforms) of the column's parameter block and data.
	Source       string
	Transforms   []Transform
	ParamsOffset int64
	Sep          string // source "split": the separator (one byte)
	// Cross is the inputs of a crossed column (source "cross", cross.go).
	Cross []CrossInput
	// InlineIDs keeps the ids' computation in the lookups' loop even
	// with the tuned schedule (no id pass; see Layer.Prepass).
	InlineIDs bool
}

// NumOperands returns how many operands the column contributes.
func (c *Column) NumOperands() int {
	if c.IsCross() {
		return 1 + 2*len(c.Cross)
	}
	n := 2
	if c.HasSplits() {
		n++
	}
	if c.Weighted {
		n++
	}
	return n
}

// HasSplits reports whether the column takes row splits: lookups, but
// for source "split", whose bags are the tokens of one string each.
func (c *Column) HasSplits() bool { return c.Kind == KindLookup && c.Source != SourceSplit }

// Layer is the static description of a fused.embedding_layer.
type Layer struct {
	Schedule string
	Width    int64 // floats per output row
	Block    int64 // threads per block
	// MinTasks (tuned schedule; 0: off): when a batch gives fewer tasks,
	// Pack shrinks every column's tasks (halving bags per task, down to
	// one warp pass) until there are at least this many, so that small
	// batches still fill the GPU. The kernel reads each column's bags per
	// task from its descriptor.
	MinTasks    int64
	TableFloats int64 // size of the tables arena
	Columns     []Column
}

// Attr encodes a column as a dictionary attribute.
func (c *Column) Attr() textir.DictAttr {
	i := textir.I64Attr
	attrs := []textir.NamedAttribute{
		{Name: "name", Value: textir.Str(c.Name)},
		{Name: "kind", Value: textir.Str(c.Kind)},
		{Name: "combiner", Value: textir.Str(c.Combiner)},
		{Name: "weighted", Value: textir.BoolAttr{Value: c.Weighted}},
		{Name: "rows", Value: i(c.Rows)},
		{Name: "width", Value: i(c.Width)},
		{Name: "table_offset", Value: i(c.TableOffset)},
		{Name: "out_offset", Value: i(c.OutOffset)},
		{Name: "class", Value: i(c.Class)},
		{Name: "lanes", Value: i(c.Lanes)},
		{Name: "vector", Value: i(c.Vector)},
		{Name: "store_width", Value: i(c.StoreWidth)},
		{Name: "segments", Value: i(c.Segments)},
		{Name: "rows_in_flight", Value: i(c.RowsInFlight)},
		{Name: "bags_per_task", Value: i(c.BagsPerTask)},
		{Name: "pooling", Value: textir.FloatAttr{Value: c.Pooling, Type: textir.F64()}},
		{Name: "cost", Value: textir.FloatAttr{Value: c.Cost, Type: textir.F64()}},
	}
	if c.Source != SourceIDs && c.Source != "" {
		ts := make([]textir.Attribute, len(c.Transforms))
		for k := range c.Transforms {
			ts[k] = c.Transforms[k].Attr()
		}
		attrs = append(attrs, textir.NamedAttribute{Name: "source", Value: textir.Str(c.Source)},
			textir.NamedAttribute{Name: "transforms", Value: textir.ArrayAttr{Elems: ts}},
			textir.NamedAttribute{Name: "params_offset", Value: i(c.ParamsOffset)})
		if c.Source == SourceSplit {
			attrs = append(attrs, textir.NamedAttribute{Name: "sep", Value: textir.Str(c.Sep)})
		}
		if c.IsCross() {
			attrs = append(attrs, c.crossAttr())
		}
		if c.InlineIDs {
			attrs = append(attrs, textir.NamedAttribute{Name: "inline_ids", Value: textir.UnitAttr{}})
		}
	}
	if c.DivNoNaN {
		attrs = append(attrs, textir.NamedAttribute{Name: "div_no_nan", Value: textir.BoolAttr{Value: true}})
	}
	return textir.NewDictAttr(attrs)
}

// Attrs returns the op's attributes for l and the kernel kernel.
func (l *Layer) Attrs(kernel textir.SymbolRefAttr) []textir.NamedAttribute {
	cols := make([]textir.Attribute, len(l.Columns))
	for i := range l.Columns {
		cols[i] = l.Columns[i].Attr()
	}
	return []textir.NamedAttribute{
		{Name: "kernel", Value: kernel},
		{Name: "schedule", Value: textir.Str(l.Schedule)},
		{Name: "width", Value: textir.I64Attr(l.Width)},
		{Name: "block", Value: textir.I64Attr(l.Block)},
		{Name: "min_tasks", Value: textir.I64Attr(l.MinTasks)},
		{Name: "table_floats", Value: textir.I64Attr(l.TableFloats)},
		{Name: "columns", Value: textir.ArrayAttr{Elems: cols}},
	}
}

func getInt(d textir.DictAttr, name string) (int64, error) {
	a, ok := d.Get(name).(textir.IntegerAttr)
	if !ok {
		return 0, fmt.Errorf("column attribute '%s' must be an integer", name)
	}
	return a.Value, nil
}

func getStr(d textir.DictAttr, name string) (string, error) {
	a, ok := d.Get(name).(textir.StringAttr)
	if !ok {
		return "", fmt.Errorf("column attribute '%s' must be a string", name)
	}
	return a.Value, nil
}

func getFloat(d textir.DictAttr, name string) float64 {
	a, _ := d.Get(name).(textir.FloatAttr)
	return a.Value
}

// LayerOf decodes the attributes of a fused.embedding_layer.
func LayerOf(op *textir.Operation) (*Layer, error) {
	l := &Layer{}
	s, ok := op.LookupAttr("schedule").(textir.StringAttr)
	if !ok || (s.Value != ScheduleTuned && s.Value != ScheduleRecom) {
		return nil, op.Errorf("attribute 'schedule' must be \"tuned\" or \"recom\"")
	}
	l.Schedule = s.Value
	for _, f := range []struct {
		name string
		p    *int64
	}{{"width", &l.Width}, {"block", &l.Block}, {"table_floats", &l.TableFloats}} {
		a, ok := op.LookupAttr(f.name).(textir.IntegerAttr)
		if !ok {
			return nil, op.Errorf("requires integer attribute '%s'", f.name)
		}
		*f.p = a.Value
	}
	if a, ok := op.LookupAttr("min_tasks").(textir.IntegerAttr); ok {
		if a.Value < 0 {
			return nil, op.Errorf("attribute 'min_tasks' must not be negative")
		}
		l.MinTasks = a.Value
	}
	if err := l.check(); err != nil {
		return nil, op.Errorf("%v", err)
	}
	if _, ok := op.LookupAttr("kernel").(textir.SymbolRefAttr); !ok {
		return nil, op.Errorf("requires symbol reference attribute 'kernel'")
	}
	cols, ok := op.LookupAttr("columns").(textir.ArrayAttr)
	if !ok {
		return nil, op.Errorf("requires array attribute 'columns'")
	}
	for i, ca := range cols.Elems {
		d, ok := ca.(textir.DictAttr)
		if !ok {
			return nil, op.Errorf("column #%d must be a dictionary", i)
		}
		var c Column
		var err error
		wrap := func(e error) error { return op.Errorf("column #%d: %v", i, e) }
		if err := c.readNaming(d); err != nil {
			return nil, wrap(err)
		}
		for _, f := range []struct {
			name string
			p    *int64
		}{{"rows", &c.Rows}, {"width", &c.Width}, {"table_offset", &c.TableOffset}, {"out_offset", &c.OutOffset},
			{"class", &c.Class}, {"lanes", &c.Lanes}, {"vector", &c.Vector}, {"store_width", &c.StoreWidth},
			{"segments", &c.Segments}, {"rows_in_flight", &c.RowsInFlight}, {"bags_per_task", &c.BagsPerTask}} {
			if *f.p, err = getInt(d, f.name); err != nil {
				return nil, wrap(err)
			}
		}
		c.Pooling, c.Cost = getFloat(d, "pooling"), getFloat(d, "cost")
		hasSource, err := c.readSource(d)
		if err != nil {
			return nil, wrap(err)
		}
		if hasSource {
			if c.ParamsOffset, err = getInt(d, "params_offset"); err != nil {
				return nil, wrap(err)
			}
			if c.Source == SourceSplit {
				if c.Sep, err = getStr(d, "sep"); err != nil {
					return nil, wrap(err)
				}
			}
			if c.Source == SourceCross {
				if c.Cross, err = crossOf(d); err != nil {
					return nil, wrap(err)
				}
			}
			_, c.InlineIDs = d.Get("inline_ids").(textir.UnitAttr)
		}
		if err := c.check(l); err != nil {
			return nil, wrap(err)
		}
		l.Columns = append(l.Columns, c)
	}
	return l, nil
}

// readSource reads a column's id source and its transforms (a layer's and
// a route's): the source SourceIDs and no transforms when the dictionary
// has no 'source' (then false).
func (c *Column) readSource(d textir.DictAttr) (bool, error) {
	c.Source, c.ParamsOffset = SourceIDs, -1
	src, ok := d.Get("source").(textir.StringAttr)
	if !ok {
		return false, nil
	}
	c.Source = src.Value
	ts, ok := d.Get("transforms").(textir.ArrayAttr)
	if !ok {
		return true, fmt.Errorf("a column with source %q requires array attribute 'transforms'", c.Source)
	}
	for k, ta := range ts.Elems {
		t, err := transformOf(ta)
		if err != nil {
			return true, fmt.Errorf("transform #%d: %v", k, err)
		}
		c.Transforms = append(c.Transforms, t)
	}
	return true, nil
}

// readNaming reads the attributes every column dictionary starts with (a
// layer's and a route's): name, kind, combiner, weighted, div_no_nan.
func (c *Column) readNaming(d textir.DictAttr) error {
	var err error
	if c.Name, err = getStr(d, "name"); err != nil {
		return err
	}
	if c.Kind, err = getStr(d, "kind"); err != nil {
		return err
	}
	if c.Combiner, err = getStr(d, "combiner"); err != nil {
		return err
	}
	w, _ := d.Get("weighted").(textir.BoolAttr)
	c.Weighted = w.Value
	nn, _ := d.Get("div_no_nan").(textir.BoolAttr)
	c.DivNoNaN = nn.Value
	return nil
}

// MaxArenaFloats bounds an output row: the kernel addresses it with
// 32-bit offsets.
const MaxArenaFloats = math.MaxInt32

// MaxTableArenaFloats bounds the tables arena: a descriptor holds a table's
// (and a parameter block's) offset divided by TableAlign in an int32 word,
// and the kernel computes the address in 64 bits (word x TableAlign + row x
// width), so the arena may exceed 2^31 floats (preset E at 10,000 columns
// has 13.5 G floats, 50 GiB); what is allocated for it is bounded by the
// model's tables themselves (TableArena).
const MaxTableArenaFloats = math.MaxInt32 * TableAlign

// MaxRowsInFlight bounds a column's rows_in_flight: the unroll of the
// kernel's id loop (embtogpu's rows-in-flight option goes up to 16).
const MaxRowsInFlight = 16

// check checks the layer's own attributes against what the kernel, the
// simulator and the runtime can honour.
func (l *Layer) check() error {
	switch {
	case l.Block < gpu.WarpSize || l.Block > gpu.MaxThreadsPerBlock || l.Block%gpu.WarpSize != 0:
		return fmt.Errorf("attribute 'block' must be a multiple of %d in [%d, %d], got %d", gpu.WarpSize, gpu.WarpSize, gpu.MaxThreadsPerBlock, l.Block)
	case l.Width < 1 || l.Width > MaxArenaFloats:
		return fmt.Errorf("attribute 'width' must be in [1, %d], got %d", MaxArenaFloats, l.Width)
	case l.TableFloats < 0 || l.TableFloats > MaxTableArenaFloats:
		return fmt.Errorf("attribute 'table_floats' must be in [0, %d], got %d", int64(MaxTableArenaFloats), l.TableFloats)
	}
	return nil
}

func (c *Column) check(l *Layer) error {
	pow2 := func(x int64) bool { return x > 0 && x&(x-1) == 0 }
	switch {
	case c.Kind != KindLookup && c.Kind != KindGather:
		return fmt.Errorf("kind must be \"lookup\" or \"gather\", got %q", c.Kind)
	case c.Combiner != "sum" && c.Combiner != "mean" && c.Combiner != "sqrtn":
		return fmt.Errorf("unknown combiner %q", c.Combiner)
	case c.Kind == KindGather && c.Weighted:
		return fmt.Errorf("a gather column cannot be weighted")
	case c.DivNoNaN && (!c.Weighted || c.Combiner == "sum"):
		return fmt.Errorf("div_no_nan is for weighted mean and sqrtn columns")
	case c.Rows < 1 || c.Width < 1:
		return fmt.Errorf("table must be at least 1x1, got %dx%d", c.Rows, c.Width)
	case c.Rows > l.TableFloats/c.Width:
		return fmt.Errorf("a %dx%d table does not fit the %d-float arena", c.Rows, c.Width, l.TableFloats)
	case c.TableOffset < 0 || c.TableOffset%TableAlign != 0 || c.TableOffset > l.TableFloats-c.Rows*c.Width:
		return fmt.Errorf("table_offset %d is not a multiple of %d inside the %d-float arena", c.TableOffset, TableAlign, l.TableFloats)
	case c.OutOffset < 0 || c.Width > l.Width || c.OutOffset > l.Width-c.Width:
		return fmt.Errorf("out_offset %d + width %d exceeds the output width %d", c.OutOffset, c.Width, l.Width)
	case c.BagsPerTask < 1 || c.BagsPerTask > math.MaxInt32:
		return fmt.Errorf("bags_per_task must be in [1, %d], got %d", math.MaxInt32, c.BagsPerTask)
	case !pow2(c.Lanes) || c.Lanes > gpu.WarpSize:
		return fmt.Errorf("lanes must be a power of two in [1, %d], got %d", gpu.WarpSize, c.Lanes)
	case c.Vector != 1 && c.Vector != 2 && c.Vector != 4:
		return fmt.Errorf("vector must be 1, 2 or 4, got %d", c.Vector)
	case c.StoreWidth != 1 && c.StoreWidth != 2 && c.StoreWidth != 4:
		return fmt.Errorf("store_width must be 1, 2 or 4, got %d", c.StoreWidth)
	case c.Segments < 1 || c.Segments > c.Width:
		return fmt.Errorf("segments must be in [1, %d] (the width), got %d", c.Width, c.Segments)
	case c.RowsInFlight < 1 || c.RowsInFlight > MaxRowsInFlight:
		return fmt.Errorf("rows_in_flight must be in [1, %d], got %d", MaxRowsInFlight, c.RowsInFlight)
	case c.Class < 0 || c.Class > math.MaxInt32:
		return fmt.Errorf("class must be in [0, %d], got %d", math.MaxInt32, c.Class)
	}
	if err := c.CheckChain(); err != nil {
		return err
	}
	if len(c.Transforms) > 0 {
		n, err := c.StaticFloats()
		if err != nil {
			return err
		}
		if c.ParamsOffset < 0 || c.ParamsOffset%TableAlign != 0 || n > l.TableFloats || c.ParamsOffset > l.TableFloats-n {
			return fmt.Errorf("params_offset %d (+%d floats) is not a multiple of %d inside the %d-float arena", c.ParamsOffset, n, TableAlign, l.TableFloats)
		}
	}
	return nil
}

// Packed is what the runtime hands to the device for one run.
type Packed struct {
	Tables []byte // the tables arena
	Inputs []byte // the packed inputs
	// Scratch is the bytes after Inputs in the same device buffer that
	// the kernel writes (the computed ids of Prepass columns): not
	// copied, only allocated.
	Scratch int64
	Batch   int64
	Tasks   int64
	Grid    int64
	Block   int64
}

// ColumnInput is one column's run-time inputs.
type ColumnInput struct {
	Table   []float32
	Ids     []int64        // source "ids"
	Values  *interp.Tensor // the raw values of the other sources
	Splits  []int64        // nil for gather columns (a crossed column's: the crosses', see prepareCross)
	Weights []float32
	Cross   []CrossValues // the inputs of a crossed column
}

// Len returns the number of id positions.
func (x *ColumnInput) Len() int {
	if x.Cross != nil {
		if len(x.Splits) == 0 {
			return 0
		}
		return int(x.Splits[len(x.Splits)-1])
	}
	if x.Values != nil {
		return int(x.Values.Len())
	}
	return len(x.Ids)
}

func align4(n int64) int64 { return (n + 3) &^ 3 }

// size returns what the layout of x's regions depends on (ColumnSize),
// refusing a hashed string too long for its slot.
func (x *ColumnInput) size(c *Column) (ColumnSize, error) {
	if c.IsCross() {
		return x.crossSize(c)
	}
	s := ColumnSize{N: int64(x.Len())}
	if c.Source != SourceStr && c.Source != SourceSplit {
		return s, nil
	}
	slots := c.StrSlots()
	for _, v := range x.Values.Strings() {
		if err := c.TooLong(len(v)); err != nil {
			return s, err
		}
		if !slots || len(v) >= 8 {
			s.Bytes += int64(len(v))
		}
	}
	return s, nil
}

// Pack lays the inputs out as the runtime does (see the package doc). It
// checks what the kernel relies on: equal batch sizes, valid row splits,
// ids in range.
func (l *Layer) Pack(in []ColumnInput) (*Packed, error) {
	return l.pack(in, true)
}

// PackInputs is Pack without the tables arena (Packed.Tables stays nil),
// for a runtime that keeps the tables on the device across runs: a column
// input's Table may be nil (it is checked when given).
func (l *Layer) PackInputs(in []ColumnInput) (*Packed, error) {
	return l.pack(in, false)
}

// TableArena returns the tables arena of Pack as floats: each column's
// table at its table_offset, and the parameter blocks and data of the
// columns' id transforms at their params_offset.
func (l *Layer) TableArena(in []ColumnInput) ([]float32, error) {
	// The arena holds the model's own tables, which are in memory already
	// (in, each checked against its column's declared shape), and the
	// columns' parameter blocks: it is bounded by what the columns place
	// in it (the verifier keeps every table and block inside
	// table_floats, and table_floats under MaxTableArenaFloats), not by the
	// interpreter's limits on the tensors a program computes. A model of
	// 5.4 GB of tables (preset E) gets a 5.4 GB arena. An arena that
	// declares more than its columns use is refused before allocating.
	var used int64
	for i := range l.Columns {
		c := &l.Columns[i]
		if i < len(in) && in[i].Table != nil && int64(len(in[i].Table)) != c.Rows*c.Width {
			return nil, fmt.Errorf("the tables arena: column #%d's table has %d floats, its %dx%d shape says %d", i, len(in[i].Table), c.Rows, c.Width, c.Rows*c.Width)
		}
		used = max(used, c.TableOffset+c.Rows*c.Width)
		if c.ParamsOffset >= 0 {
			n, err := c.StaticFloats()
			if err != nil {
				return nil, err
			}
			used = max(used, c.ParamsOffset+n)
		}
	}
	if l.TableFloats > alignTable(used) {
		return nil, fmt.Errorf("the tables arena: table_floats = %d, but the columns place %d floats in it", l.TableFloats, used)
	}
	tables := make([]float32, l.TableFloats)
	for i := range l.Columns {
		if i < len(in) {
			copy(tables[l.Columns[i].TableOffset:], in[i].Table)
		}
		if err := l.Columns[i].writeStatic(tables); err != nil {
			return nil, err
		}
	}
	return tables, nil
}

func (l *Layer) pack(in []ColumnInput, withTables bool) (*Packed, error) {
	C := int64(len(l.Columns))
	if int64(len(in)) != C {
		return nil, fmt.Errorf("%d column inputs for %d columns", len(in), C)
	}
	batch := int64(-1)
	for i := range l.Columns {
		c, x := &l.Columns[i], &in[i]
		if c.IsCross() {
			if err := x.prepareCross(c); err != nil {
				return nil, err
			}
			b := int64(len(x.Splits)) - 1
			if batch >= 0 && b != batch {
				return nil, fmt.Errorf("column %q has %d rows, but column %q has %d (ConcatV2 needs equal batch sizes)", c.Name, b, l.Columns[0].Name, batch)
			}
			batch = b
			if (withTables || x.Table != nil) && int64(len(x.Table)) != c.Rows*c.Width {
				return nil, fmt.Errorf("column %q: table has %d floats, want %d", c.Name, len(x.Table), c.Rows*c.Width)
			}
			continue
		}
		if err := x.checkSource(c); err != nil {
			return nil, err
		}
		b := int64(x.Len())
		if c.HasSplits() {
			b = int64(len(x.Splits)) - 1
			if b < 0 || x.Splits[0] != 0 || x.Splits[b] != int64(x.Len()) {
				return nil, fmt.Errorf("column %q: invalid row splits", c.Name)
			}
			for j := int64(0); j < b; j++ {
				if x.Splits[j] > x.Splits[j+1] {
					return nil, fmt.Errorf("column %q: row splits must be non-decreasing", c.Name)
				}
			}
		}
		if batch >= 0 && b != batch {
			return nil, fmt.Errorf("column %q has %d rows, but column %q has %d (ConcatV2 needs equal batch sizes)", c.Name, b, l.Columns[0].Name, batch)
		}
		batch = b
		if (withTables || x.Table != nil) && int64(len(x.Table)) != c.Rows*c.Width {
			return nil, fmt.Errorf("column %q: table has %d floats, want %d", c.Name, len(x.Table), c.Rows*c.Width)
		}
		for j, id := range x.Ids {
			if id < 0 || id >= c.Rows {
				return nil, fmt.Errorf("column %q: id %d (value %d) is not in [0, %d)", c.Name, id, j, c.Rows)
			}
		}
		if c.Weighted && len(x.Weights) != x.Len() {
			return nil, fmt.Errorf("column %q: %d weights for %d ids", c.Name, len(x.Weights), x.Len())
		}
	}
	if batch < 0 {
		batch = 0
	}
	p := &Packed{Batch: batch, Block: l.Block}
	if withTables {
		arena, err := l.TableArena(in)
		if err != nil {
			return nil, err
		}
		p.Tables = f32Bytes(arena)
	}
	la, err := l.Launch(batch)
	if err != nil {
		return nil, err
	}
	sizes := make([]ColumnSize, C)
	for i := range l.Columns {
		if sizes[i], err = in[i].size(&l.Columns[i]); err != nil {
			return nil, err
		}
	}
	lay, err := l.Layout(la, sizes)
	if err != nil {
		return nil, err
	}
	words := make([]int32, lay.Words)
	lay.PutHeader(l, words)
	for i := range l.Columns {
		c, x, d := &l.Columns[i], &in[i], lay.Desc[DescWords*i:]
		if c.IsCross() {
			x.packCross(c, words, d, lay.Cross[i])
			continue
		}
		if c.HasSplits() {
			for j, s := range x.Splits {
				words[d[0]+int64(j)] = int32(s)
			}
		}
		x.packValues(c, words, d)
		if c.Weighted {
			for j, w := range x.Weights {
				words[d[2]+int64(j)] = int32(math.Float32bits(w))
			}
		}
	}
	p.Inputs = i32Bytes(words)
	p.Scratch = 4 * lay.Scratch
	p.Tasks, p.Grid = lay.Tasks, lay.Grid
	return p, nil
}

// TaskOrder returns the columns in the order their tasks take in the
// grid (tuned schedule; bpt: the launch's bags per task): by the
// estimated length of one task (TaskWeight), longest first, ties in
// column order. The recom schedule keeps column order (a block each).
func (l *Layer) TaskOrder(bpt []int64) []int {
	order := make([]int, len(l.Columns))
	w := make([]float64, len(l.Columns))
	for i := range order {
		order[i] = i
		if l.Schedule == ScheduleTuned {
			w[i] = l.TaskWeight(&l.Columns[i], bpt[i])
		}
	}
	sort.SliceStable(order, func(x, y int) bool { return w[order[x]] > w[order[y]] })
	return order
}

// UniformTasks reports whether every column of the (tuned) layer has the
// same number of tasks at every batch, in column order: one class, one
// planned bags per task and pooling (so the same bags per task at launch,
// BagsPerTask, and the same TaskWeight, so TaskOrder keeps column order).
// The kernel then finds a task's column by a division.
func (l *Layer) UniformTasks() bool {
	if l.Schedule != ScheduleTuned || len(l.Columns) == 0 {
		return false
	}
	c0 := &l.Columns[0]
	for i := range l.Columns[1:] {
		c := &l.Columns[1+i]
		if c.Class != c0.Class || c.BagsPerTask != c0.BagsPerTask || c.Pooling != c0.Pooling {
			return false
		}
	}
	return true
}

// TaskWeight estimates the length of one of c's tasks of bpt bags in
// dependent round trips to memory: the warp's passes over its bags times
// the trips of a bag (segments x pooling / rows in flight), plus the id
// pass (one trip, two for strings) and, for "split" columns, the serial
// scan of each row's bytes (counted as a trip per expected token).
func (l *Layer) TaskWeight(c *Column, bpt int64) float64 {
	passes := float64(max(bpt/c.group(), 1))
	pool := max(c.Pooling, 1)
	trips := math.Ceil(pool / float64(max(c.RowsInFlight, 1)))
	if c.Kind == KindGather {
		pool, trips = 1, 1
	}
	w := passes * float64(max(c.Segments, 1)) * trips
	if l.Prepass(c) {
		w++
		if c.HashesStrings() {
			w++
		}
	}
	if c.Source == SourceSplit {
		w += math.Ceil(float64(bpt)/gpu.WarpSize) * pool
	}
	return w
}

// TaskMapOffset returns the word offset of the task map in the packed
// inputs (tuned schedule): one word per task, the task's column, right
// after the descriptors, so that a task finds its column with one load.
func (l *Layer) TaskMapOffset() int64 {
	C := int64(len(l.Columns))
	return align4(C + 1 + DescWords*C)
}

// BagsPerTask returns each column's bags per task for a launch over
// batch bags: the planned ones, halved together (each down to one warp
// pass, 32 / lanes bags) while the tuned schedule would make fewer than
// MinTasks tasks.
func (l *Layer) BagsPerTask(batch int64) []int64 {
	bpt := make([]int64, len(l.Columns))
	for i := range l.Columns {
		bpt[i] = l.Columns[i].BagsPerTask
	}
	if l.Schedule != ScheduleTuned || l.MinTasks <= 0 {
		return bpt
	}
	for {
		var tasks int64
		shrink := false
		for i := range l.Columns {
			tasks += (batch + bpt[i] - 1) / bpt[i]
			if bpt[i] > l.Columns[i].group() {
				shrink = true
			}
		}
		if tasks >= l.MinTasks || !shrink {
			return bpt
		}
		for i := range l.Columns {
			g := l.Columns[i].group()
			bpt[i] = max(bpt[i]/g/2, 1) * g
		}
	}
}

// Prepass reports whether the kernel computes c's ids in a pass of its
// own before the lookups: the tuned schedule, for id transforms that do
// not depend on the position in the bag. The 32 lanes of a task's warp
// compute the ids of its bags' positions side by side (each id once,
// rather than once per lane of a bag and one live computation per row in
// flight; for source "split", a lane splits and hashes a bag's string),
// write them to the scratch and meet at a warp barrier; the lookups then
// read int32 ids as for source "ids".
func (l *Layer) Prepass(c *Column) bool {
	if l.Schedule != ScheduleTuned || len(c.Transforms) == 0 || c.InlineIDs {
		return false
	}
	for i := range c.Transforms {
		// A crossed input's offsets are by position in its own bag.
		if c.Transforms[i].Op == TransformAddOffset && !c.IsCross() {
			return false
		}
	}
	return true
}

// group is the bags of one warp pass of the tuned schedule.
func (c *Column) group() int64 { return gpu.WarpSize / max(c.Lanes, 1) }

func f32Bytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		u := math.Float32bits(x)
		b[4*i], b[4*i+1], b[4*i+2], b[4*i+3] = byte(u), byte(u>>8), byte(u>>16), byte(u>>24)
	}
	return b
}

// i32Bytes returns the little-endian bytes of v: on a little-endian host
// the words' own memory (no copy: the packed inputs are rebuilt for every
// run, and copying them was half of Pack's time), else a converted copy.
func i32Bytes(v []int32) []byte {
	if len(v) == 0 {
		return []byte{}
	}
	if littleEndian {
		return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 4*len(v))
	}
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
	}
	return b
}

var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// Run packs the inputs, launches the compiled kernel k on the simulator
// over a poisoned output arena, and returns the [B, Width] output.
func (l *Layer) Run(k *gpu.Kernel, in []ColumnInput) ([]float32, int64, error) {
	p, err := l.Pack(in)
	if err != nil {
		return nil, 0, err
	}
	if p.Batch > interp.MaxElements/l.Width {
		return nil, 0, &interp.TooLargeError{What: fmt.Sprintf("the output of %d rows of %d floats", p.Batch, l.Width), Limit: interp.MaxElements}
	}
	out := make([]byte, 4*p.Batch*l.Width)
	for i := range out {
		out[i] = 0xff // NaN: what the kernel does not write shows
	}
	if p.Grid > 0 {
		// The scratch poisoned too (-1 ids and token counts): what the id
		// pass does not write shows.
		inputs := append(append([]byte(nil), p.Inputs...), make([]byte, p.Scratch)...)
		for i := len(p.Inputs); i < len(inputs); i++ {
			inputs[i] = 0xff
		}
		args := []any{gpu.Buf{Data: p.Tables}, gpu.Buf{Data: inputs}, gpu.Buf{Data: out}, p.Batch, p.Tasks}
		if err := k.Launch(p.Grid, p.Block, args, nil); err != nil {
			return nil, 0, err
		}
	}
	res := make([]float32, p.Batch*l.Width)
	for i := range res {
		res[i] = math.Float32frombits(uint32(out[4*i]) | uint32(out[4*i+1])<<8 | uint32(out[4*i+2])<<16 | uint32(out[4*i+3])<<24)
	}
	return res, p.Batch, nil
}

// Inputs reads the column inputs from the operand values of op, a
// fused.embedding_layer described by l (the interpreter's and the GPU
// runtime's kernels share it).
func (l *Layer) Inputs(op *textir.Operation, in []*interp.Tensor) ([]ColumnInput, error) {
	var err error
	n := 0
	for i := range l.Columns {
		n += l.Columns[i].NumOperands()
	}
	if len(in) != n {
		return nil, op.Errorf("columns take %d operands, got %d", n, len(in))
	}
	cols := make([]ColumnInput, len(l.Columns))
	k := 0
	for i := range l.Columns {
		col := &l.Columns[i]
		tab := in[k].Float32s()
		if tab == nil || in[k].Rank() != 2 || in[k].Dim(0) != col.Rows || in[k].Dim(1) != col.Width {
			return nil, op.Errorf("column #%d: the table must be a float32 %dx%d matrix, got %v of shape %s", i, col.Rows, col.Width, in[k].DType(), interp.ShapeString(in[k].Shape()))
		}
		cols[i].Table = tab
		if col.IsCross() {
			for j := range col.Cross {
				v, s := in[k+1+2*j], in[k+2+2*j]
				sp, err := IntVector(op, "row splits", s)
				if err != nil {
					return nil, err
				}
				if v.Rank() != 1 {
					return nil, op.Errorf("column #%d: cross input #%d: values must be a vector, got shape %s", i, j, interp.ShapeString(v.Shape()))
				}
				cols[i].Cross = append(cols[i].Cross, CrossValues{Values: v, Splits: sp})
			}
			if err := cols[i].prepareCross(col); err != nil {
				return nil, op.Errorf("%v", err)
			}
			k += col.NumOperands()
			continue
		}
		if col.Source == SourceIDs {
			if cols[i].Ids, err = IntVector(op, "ids", in[k+1]); err != nil {
				return nil, err
			}
		} else {
			cols[i].Values = in[k+1]
			if col.Source == SourceSplit && in[k+1].Rank() == 2 && in[k+1].Dim(1) == 1 {
				// StringSplitV2's [B, 1] input.
				if cols[i].Values, err = in[k+1].Reshaped([]int64{in[k+1].Dim(0)}); err != nil {
					return nil, op.Errorf("%v", err)
				}
			}
			if err := cols[i].checkSource(col); err != nil {
				return nil, op.Errorf("%v", err)
			}
		}
		k += 2
		if col.HasSplits() {
			if cols[i].Splits, err = IntVector(op, "row splits", in[k]); err != nil {
				return nil, err
			}
			k++
		}
		if col.Weighted {
			if cols[i].Weights = in[k].Float32s(); cols[i].Weights == nil {
				return nil, op.Errorf("column #%d: weights must be float32, got %v", i, in[k].DType())
			}
			k++
		}
	}
	return cols, nil
}

// IntVector reads t, an integer vector, as int64s (op names it in errors).
func IntVector(op *textir.Operation, what string, t *interp.Tensor) ([]int64, error) {
	if t.Rank() != 1 {
		return nil, op.Errorf("%s must be a vector, got shape %s", what, interp.ShapeString(t.Shape()))
	}
	out := make([]int64, t.Len())
	for i := range out {
		v, ok := t.Int64At(i)
		if !ok {
			return nil, op.Errorf("%s must be integers, got %v", what, t.DType())
		}
		out[i] = v
	}
	return out, nil
}
