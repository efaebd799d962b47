package embtogpu

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/recom-compiler/recom/dialects/fused/abi"
)

// ColumnInfo is what the planner knows about one column.
type ColumnInfo struct {
	Name     string
	Kind     string // abi.KindLookup or abi.KindGather
	Combiner string
	Weighted bool
	DivNoNaN bool
	Rows     int64
	Width    int64
	// MaxBag bounds the ids of a bag (1 for gather and gather-scatter
	// lookups, k for a dense [B, k] source), or -1 when unknown.
	MaxBag int64
	// Table identifies the table: columns with the same non-nil Table
	// share one copy in the tables arena.
	Table any
	// Source and Transforms are the id computation the kernel does
	// (abi.SourceIDs and none: the ids are computed before the layer).
	Source     string
	Transforms []abi.Transform
	Sep        string           // source "split"
	Cross      []abi.CrossInput // source "cross"
	// IDBytes is the expected bytes of input per id (4 for int32 ids).
	IDBytes float64
}

// Options tune the planner.
type Options struct {
	Schedule       string   // abi.ScheduleTuned or abi.ScheduleRecom
	MaxThreads     int64    // threads per block of the tuned schedule
	RowsInFlight   int64    // rows in flight per thread (the id loop's unroll)
	DefaultPooling int64    // expected ids per bag when no bound is known
	TaskBytes      int64    // target bytes moved by one task (a warp)
	L2Bytes        int64    // tables up to this size are taken to stay in L2
	InKernelIDs    bool     // move the id transforms into the kernel (the pass's job; Plan takes ColumnInfo as given)
	MinTasks       int64    // tasks a launch should have at least (abi.Layer.MinTasks; 0: off)
	HostIDs        []string // id transforms (emb op names without "emb.") the pass leaves before the layer
	MinBlocks      int64    // blocks of MaxThreads per SM the tuned kernel must fit (its minctasm)
	// IDPass picks the columns whose ids the tuned kernel computes in a
	// pass of their own: "all" (every column with transforms), "hashes"
	// (those that hash strings or integers), "none" (ids inline), "auto"
	// (all but gather columns of cheap transforms, e.g. bucketize, whose
	// one id per bag its lanes can compute instead of the pass's store,
	// warp barrier and reload). The default is "all": on the H200
	// (2026-12-02, bench/RESULTS.md) auto made model E slower (B=256:
	// 24.8 against 23.5 us; B=2048: 79.5 against 74.7) and micro faster
	// by less than the noise of its 9-us kernel.
	IDPass string
}

// DefaultOptions returns the planner's defaults (sized for an H200): the
// defaults of the --fuse options declared in Decl.
func DefaultOptions() Options { return optionsFrom(Decl.Defaults()) }

// DefaultMinTasks is 48 warp-tasks per SM of an H200 (132 SMs): the E
// model at batch 256 ran fastest with about this many tasks (bench/RESULTS.md,
// task-bytes experiment of 2026-12-02: 4,120 tasks 22.4 µs, 6,280 tasks
// 20.5 µs, 16,240 tasks 25.8 µs).
const DefaultMinTasks = 48 * 132

// RecomBlock is the block size of the recom schedule (the artifact's 64
// threads per column).
const RecomBlock = 64

// RecomChunk is the floats of a row one thread of the recom schedule
// accumulates per pass over its bag (the artifact loads 8 per pass).
const RecomChunk = 8

func (o *Options) check() error {
	switch {
	case o.Schedule != abi.ScheduleTuned && o.Schedule != abi.ScheduleRecom:
		return fmt.Errorf("schedule must be \"tuned\" or \"recom\", got %q", o.Schedule)
	case o.MaxThreads < 32 || o.MaxThreads > 1024 || o.MaxThreads%32 != 0:
		return fmt.Errorf("max-threads must be a multiple of 32 in [32, 1024], got %d", o.MaxThreads)
	case o.RowsInFlight < 1 || o.RowsInFlight > 16 || o.RowsInFlight&(o.RowsInFlight-1) != 0:
		return fmt.Errorf("rows-in-flight must be a power of two in [1, 16], got %d", o.RowsInFlight)
	case o.DefaultPooling < 1:
		return fmt.Errorf("default-pooling must be positive, got %d", o.DefaultPooling)
	case o.TaskBytes < 1:
		return fmt.Errorf("task-bytes must be positive, got %d", o.TaskBytes)
	case o.MinBlocks < 1 || o.MinBlocks*o.MaxThreads > 2048:
		return fmt.Errorf("min-blocks must be in [1, %d] for %d threads per block, got %d", 2048/o.MaxThreads, o.MaxThreads, o.MinBlocks)
	case o.MinTasks < 0:
		return fmt.Errorf("min-tasks must not be negative, got %d", o.MinTasks)
	}
	switch o.IDPass {
	case "auto", "all", "hashes", "none":
	default:
		return fmt.Errorf("id-pass must be auto, all, hashes or none, got %q", o.IDPass)
	}
	for _, h := range o.HostIDs {
		switch h {
		case "hash", "as_string", "bucketize", "vocab_lookup", "check_range", "cast", "add_offset", "split_strings", "filter", "cross":
		default:
			return fmt.Errorf("host-ids: %q is not an id transform (hash, as_string, bucketize, vocab_lookup, check_range, cast, add_offset, split_strings, filter, cross)", h)
		}
	}
	return nil
}

func nextPow2(n int64) int64 {
	if n <= 1 {
		return 1
	}
	return 1 << bits.Len64(uint64(n-1))
}

// vectorWidth is the widest load (4, 2 or 1 floats) that keeps every row
// aligned: tables start 256-byte aligned, so a row of width D is 16-byte
// aligned when D % 4 == 0.
func vectorWidth(d int64) int64 {
	switch {
	case d%4 == 0:
		return 4
	case d%2 == 0:
		return 2
	}
	return 1
}

// Plan chooses each column's schedule and the layout (tables arena, output
// slices) of the layer. cols are in output (concatenation) order; the
// result's Columns are in kernel order: grouped by schedule class, and
// order[k] is the index in cols of kernel column k.
func Plan(cols []ColumnInfo, opts Options) (l *abi.Layer, order []int, err error) {
	if err := opts.check(); err != nil {
		return nil, nil, err
	}
	block, minTasks := opts.MaxThreads, opts.MinTasks
	if opts.Schedule == abi.ScheduleRecom {
		block, minTasks = RecomBlock, 0
	}
	planned := make([]abi.Column, len(cols))
	for i, ci := range cols {
		c := abi.Column{Name: ci.Name, Kind: ci.Kind, Combiner: ci.Combiner, Weighted: ci.Weighted, DivNoNaN: ci.DivNoNaN,
			Rows: ci.Rows, Width: ci.Width, Source: ci.Source, Transforms: ci.Transforms, ParamsOffset: -1, Sep: ci.Sep, Cross: ci.Cross}
		if c.Source == "" {
			c.Source = abi.SourceIDs
		}
		if len(c.Transforms) > 0 {
			switch opts.IDPass {
			case "none":
				c.InlineIDs = true
			case "hashes":
				c.InlineIDs = !c.HashesStrings()
			case "auto":
				c.InlineIDs = c.Kind == abi.KindGather && !c.HashesStrings()
			}
		}
		d := ci.Width
		c.Vector = vectorWidth(d)
		switch {
		case ci.Kind == abi.KindGather || ci.MaxBag == 1:
			c.Pooling = 1
		case ci.MaxBag > 0:
			c.Pooling = float64(ci.MaxBag)
		default:
			c.Pooling = float64(opts.DefaultPooling)
		}
		// Bytes per bag: the rows (at least a 64-byte sector pair from
		// HBM; a quarter of that when the table stays in L2), the ids
		// (and weights), the row splits and the output.
		rowBytes := math.Max(float64(4*d), 64)
		if ci.Rows*d*4 <= opts.L2Bytes {
			rowBytes = float64(4*d) / 4
		}
		idBytes := 4.0
		if ci.IDBytes > 0 {
			idBytes = ci.IDBytes
		}
		if ci.Weighted {
			idBytes += 4
		}
		c.Cost = c.Pooling*(rowBytes+idBytes) + float64(4*d) + 4
		if opts.Schedule == abi.ScheduleRecom {
			c.Lanes, c.RowsInFlight = 1, 1
			c.Segments = (d + RecomChunk - 1) / RecomChunk
			c.BagsPerTask = RecomBlock
		} else {
			c.Lanes = min(nextPow2((d+c.Vector-1)/c.Vector), 32)
			c.Segments = (d + c.Lanes*c.Vector - 1) / (c.Lanes * c.Vector)
			switch {
			case ci.Kind == abi.KindGather || c.Pooling <= 1:
				c.RowsInFlight = 1
			case c.Pooling >= 16:
				// Long bags: the lanes of a bag walk many ids one after
				// another; twice the rows in flight hide more latency.
				c.RowsInFlight = min(2*opts.RowsInFlight, 16)
			default:
				c.RowsInFlight = min(opts.RowsInFlight, nextPow2(int64(math.Ceil(c.Pooling))))
			}
			groups := 32 / c.Lanes // bags per warp pass
			passes := int64(math.Round(float64(opts.TaskBytes) / (float64(groups) * c.Cost)))
			passes = max(1, min(passes, 16))
			c.BagsPerTask = groups * passes
		}
		planned[i] = c
	}
	tables := make([]any, len(cols))
	for i := range cols {
		tables[i] = cols[i].Table
	}
	return Relayout(opts.Schedule, block, minTasks, planned, tables)
}
