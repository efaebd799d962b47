package abi

import (
	"fmt"
	"math"

	"github.com/recom-compiler/recom/dialects/gpu"
)

// The placement of one launch's packed inputs, in two steps: Launch, what
// depends on the batch size only (each column's bags per task and tasks,
// the task order), and Layout, what depends on the data too (where each
// column's regions start). Pack computes both for every run; a runtime
// that packs the inputs itself (runtime/hostpack) keeps the Launch of a
// batch size and measures the columns' sizes (ColumnSize) before it
// writes anything.

// Launch is the part of a launch's layout that depends only on the batch
// size: each column's bags per task (BagsPerTask), its tasks and its
// first task (in TaskOrder), and the grid.
type Launch struct {
	Batch int64
	// BagsPerTask, NumTasks and Start are per column; Start[c] is column
	// c's first task (its task_start word).
	BagsPerTask []int64
	NumTasks    []int64
	Start       []int64
	Tasks       int64 // all columns' tasks
	Grid, Block int64
}

// Launch returns the layout of a launch over batch bags that does not
// depend on the data. It refuses a launch of more tasks than the kernel's
// 32-bit task indices reach.
func (l *Layer) Launch(batch int64) (*Launch, error) {
	if batch < 0 {
		return nil, fmt.Errorf("negative batch %d", batch)
	}
	C := len(l.Columns)
	la := &Launch{Batch: batch, Block: l.Block, BagsPerTask: l.BagsPerTask(batch),
		NumTasks: make([]int64, C), Start: make([]int64, C)}
	for i := range l.Columns {
		la.NumTasks[i] = 1
		if l.Schedule == ScheduleTuned {
			bpt := la.BagsPerTask[i]
			la.NumTasks[i] = batch/bpt + min(batch%bpt, 1)
		}
	}
	// The tuned schedule's tasks go longest first (TaskOrder), so that
	// the last wave of the grid holds short tasks rather than a few long
	// ones.
	for _, i := range l.TaskOrder(la.BagsPerTask) {
		la.Start[i] = la.Tasks
		la.Tasks += la.NumTasks[i]
	}
	if la.Tasks > math.MaxInt32 {
		return nil, fmt.Errorf("the layer makes %d tasks, more than the kernel's 32-bit task indices", la.Tasks)
	}
	if l.Schedule == ScheduleTuned {
		wpb := l.Block / gpu.WarpSize
		la.Grid = (la.Tasks + wpb - 1) / wpb
	} else {
		la.Grid = la.Tasks
	}
	return la, nil
}

// ColumnSize is what the placement of a column's regions depends on
// besides the batch: its id positions and, for string sources, the bytes
// of its strings region (with StrSlots only those of the strings of 8
// bytes or more, which do not fit in their slot).
type ColumnSize struct {
	N     int64
	Bytes int64
	// Inputs are the sizes of a crossed column's inputs (N its crosses).
	Inputs []ColumnSize
}

// Layout is where one launch's packed inputs go (see the package doc):
// the header (task starts, descriptors, the task map) and each column's
// regions, in words.
type Layout struct {
	*Launch
	// Desc holds the DescWords words of each column's descriptor: the
	// offsets of its regions (-1 where absent) and the rest (DescWords).
	Desc []int64
	// Header is the word where the first column's regions start: the
	// words before it are the header (PutHeader).
	Header int64
	// Words is the number of packed words (copied to the device);
	// Scratch the words after them that only the kernel writes (the id
	// pass's, Layer.Prepass), allocated with them.
	Words, Scratch int64
	// Cross holds the input table of each crossed column (nil for the
	// others): three words per input (cross.go), written at the column's
	// descriptor word 1.
	Cross [][]int64
}

// Layout places the packed inputs of the launch la for columns of the
// given sizes. It refuses what the kernel's 32-bit offsets cannot reach.
func (l *Layer) Layout(la *Launch, sizes []ColumnSize) (*Layout, error) {
	lay := &Layout{}
	if err := l.LayoutInto(lay, la, sizes); err != nil {
		return nil, err
	}
	return lay, nil
}

// LayoutInto is Layout into lay, whose Desc is reused when it is large
// enough (a runtime places every batch in the same Layout).
func (l *Layer) LayoutInto(lay *Layout, la *Launch, sizes []ColumnSize) error {
	return l.LayoutRules().LayoutInto(lay, la, sizes)
}

// LayoutRules is how a layer's columns are placed, read from the columns
// once: a runtime that places every batch (runtime/hostpack) keeps it,
// so that a batch's layout does not read the columns again.
type LayoutRules struct {
	l     *Layer
	tuned bool
	cols  []colRule
}

// colRule is one column's placement: which regions it has and the
// descriptor words that do not depend on the batch.
type colRule struct {
	region   uint8 // how the values region is sized
	splits   bool
	weighted bool
	prepass  bool
	split    bool  // source "split": its scratch holds 2n+bytes words
	cross    bool  // source "cross": regions of its own (layoutCross)
	table    int64 // descriptor words 3, 4, 5
	out      int64
	params   int64
}

// The values regions.
const (
	regionWords  = iota // one word per value: ids, f32
	regionPairs         // two words per value: i64, f64
	regionSlots         // strings in 8-byte slots, then the long ones' bytes
	regionOffset        // strings as n+1 byte offsets, then the bytes
)

// LayoutRules reads the layer's placement rules (see LayoutRules).
func (l *Layer) LayoutRules() *LayoutRules {
	r := &LayoutRules{l: l, tuned: l.Schedule == ScheduleTuned, cols: make([]colRule, len(l.Columns))}
	for i := range l.Columns {
		c := &l.Columns[i]
		cr := colRule{splits: c.HasSplits(), weighted: c.Weighted, prepass: l.Prepass(c), split: c.Source == SourceSplit, cross: c.IsCross(),
			table: c.TableOffset / TableAlign, out: c.OutOffset, params: -1}
		switch c.Source {
		case SourceI64, SourceF64:
			cr.region = regionPairs
		case SourceStr, SourceSplit:
			cr.region = regionOffset
			if c.StrSlots() {
				cr.region = regionSlots
			}
		default:
			cr.region = regionWords
		}
		if len(c.Transforms) > 0 {
			cr.params = c.ParamsOffset / TableAlign
		}
		r.cols[i] = cr
	}
	return r
}

// LayoutInto is Layer.LayoutInto with the rules read.
func (r *LayoutRules) LayoutInto(lay *Layout, la *Launch, sizes []ColumnSize) error {
	l := r.l
	C := int64(len(r.cols))
	if int64(len(sizes)) != C {
		return fmt.Errorf("%d column sizes for %d columns", len(sizes), C)
	}
	desc := lay.Desc
	if int64(cap(desc)) < DescWords*C {
		desc = make([]int64, DescWords*C)
	}
	*lay = Layout{Launch: la, Desc: desc[:DescWords*C], Cross: lay.Cross}
	pos := l.TaskMapOffset()
	if r.tuned {
		pos = align4(pos + la.Tasks)
	}
	lay.Header = pos
	batch := la.Batch
	// Every region grows pos by at most its size plus 3 and the sizes are
	// checked below 2^31 words one by one, so pos cannot overflow.
	const limit = math.MaxInt32
	for i := range r.cols {
		cr, s := &r.cols[i], sizes[i]
		if s.N < 0 || s.N > limit || s.Bytes < 0 || s.Bytes > 4*limit {
			return fmt.Errorf("column %q: %d values of %d bytes exceed the kernel's 32-bit offsets", l.Columns[i].Name, s.N, s.Bytes)
		}
		d := lay.Desc[DescWords*i : DescWords*(i+1)]
		d[0], d[2], d[6] = -1, -1, -1
		if cr.cross {
			c := &l.Columns[i]
			for len(lay.Cross) <= i {
				lay.Cross = append(lay.Cross, nil)
			}
			// The input table is reused from the last batch's layout.
			tab := lay.Cross[i]
			if n := CrossInputWords * len(c.Cross); cap(tab) < n {
				tab = make([]int64, n)
			} else {
				tab = tab[:n]
			}
			var err error
			if pos, err = layoutCross(c, s, d, tab, pos, batch); err != nil {
				return err
			}
			lay.Cross[i] = tab
			d[3], d[4], d[5] = cr.table, cr.out, cr.params
			d[7] = la.BagsPerTask[i]
			d[8] = -1
			continue
		}
		if cr.splits {
			d[0] = pos
			pos = align4(pos + batch + 1)
		}
		n := s.N
		d[1] = pos
		switch cr.region {
		case regionPairs:
			pos = align4(pos + 2*n)
		case regionSlots:
			if s.Bytes > math.MaxUint32 {
				return fmt.Errorf("column %q: %d bytes of strings (a slot's offset has 32 bits)", l.Columns[i].Name, s.Bytes)
			}
			pos = align4(pos + 2*n)
			d[6] = pos
			pos = align4(pos + (s.Bytes+3)/4)
		case regionOffset:
			pos = align4(pos + n + 1)
			d[6] = pos
			pos = align4(pos + (s.Bytes+3)/4)
		default:
			pos = align4(pos + n)
		}
		if cr.weighted {
			d[2] = pos
			pos = align4(pos + n)
		}
		d[3], d[4], d[5] = cr.table, cr.out, cr.params
		d[7] = la.BagsPerTask[i]
		d[8] = -1
		if pos > limit {
			return fmt.Errorf("the packed inputs (%d words at column %q) exceed the kernel's 32-bit offsets", pos, l.Columns[i].Name)
		}
	}
	lay.Words = pos
	// The scratch of the kernel's id pass, after the copied words.
	scratch := pos
	for i := range r.cols {
		if cr := &r.cols[i]; cr.prepass {
			lay.Desc[DescWords*i+8] = scratch
			n := sizes[i].N
			if cr.split {
				n = 2*n + sizes[i].Bytes
			}
			scratch = align4(scratch + n)
		}
	}
	if scratch > limit {
		return fmt.Errorf("the packed inputs and scratch (%d words) exceed the kernel's 32-bit offsets", scratch)
	}
	lay.Scratch = scratch - pos
	return nil
}

// PutHeader writes the header words [0, Header) into words: the task
// starts and the number of tasks, the descriptors, the task map (tuned
// schedule), and zeros in the padding between them.
func (lay *Layout) PutHeader(l *Layer, words []int32) {
	C := int64(len(l.Columns))
	h := words[:lay.Header]
	for i, s := range lay.Start {
		h[i] = int32(s)
	}
	h[C] = int32(lay.Tasks)
	for i, d := range lay.Desc {
		h[C+1+int64(i)] = int32(d)
	}
	tm := l.TaskMapOffset()
	clear(h[C+1+DescWords*C : min(tm, lay.Header)])
	if l.Schedule != ScheduleTuned {
		return
	}
	m := h[tm:]
	for i := range l.Columns {
		col := int32(i)
		s := m[lay.Start[i] : lay.Start[i]+lay.NumTasks[i]]
		for t := range s {
			s[t] = col
		}
	}
	clear(m[lay.Tasks:])
}

// TooLong is the error for a string of n bytes in column c, when n is
// more than its slot can describe (StrSlots, MaxSlotString), else nil.
func (c *Column) TooLong(n int) error {
	if n > MaxSlotString && c.StrSlots() {
		return fmt.Errorf("column %q: a string of %d bytes (the kernel's limit is %d)", c.Name, n, MaxSlotString)
	}
	return nil
}
