package shard

import (
	"fmt"
	"sort"

	"github.com/recom-compiler/recom/dialects/fused/abi"
)

// PlanOptions are the planner's options (the passes' options).
type PlanOptions struct {
	// Devices is the number of GPUs, in [1, abi.MaxShardDevices].
	Devices int64
	// Dense is the device that runs the dense part, in [0, Devices).
	Dense int64
	// RowThreshold: a table of more bytes than this is cut into row
	// ranges over every device (row-wise); the others go whole to one
	// device each (table-wise).
	RowThreshold int64
	// DeviceBytes, when positive, is the table bytes a device can hold:
	// a plan that puts more on a device is refused.
	DeviceBytes int64
}

func (o *PlanOptions) check() error {
	switch {
	case o.Devices < 1 || o.Devices > abi.MaxShardDevices:
		return fmt.Errorf("devices must be in [1, %d], got %d", abi.MaxShardDevices, o.Devices)
	case o.Dense < 0 || o.Dense >= o.Devices:
		return fmt.Errorf("dense-device must be in [0, %d) (devices = %d), got %d", o.Devices, o.Devices, o.Dense)
	case o.RowThreshold < 0:
		return fmt.Errorf("row-threshold must not be negative, got %d", o.RowThreshold)
	case o.DeviceBytes < 0:
		return fmt.Errorf("device-bytes must not be negative, got %d", o.DeviceBytes)
	}
	return nil
}

// Load is what the plan puts on one device: table bytes and lookups (ids
// looked up per row of the batch, the columns' expected bag sizes).
type Load struct {
	Bytes   int64
	Lookups float64
	Tables  int // tables and row ranges
}

// table is a table of the layer and the columns that look it up.
type table struct {
	cols     []int // columns, in the layer's order
	rows     int64
	rowBytes int64
	bytes    int64
	lookups  float64
}

// Plan chooses where each table of the layer l lives on o.Devices GPUs:
// every table of more than o.RowThreshold bytes is cut into o.Devices row
// ranges of (nearly) equal rows, range k on device k; the other tables go
// whole to one device each, largest first, each to the device that keeps
// the larger of its two loads — table bytes and lookups per batch row,
// each as a share of the layer's total — smallest (on a tie, the smaller
// sum of the two, then the lowest device). A table's lookups are its columns' expected ids per bag (the
// planner's pooling: a gather column looks up one row per bag, a bag of a
// dense [B, k] input at most k, others --fuse's default-pooling); a row
// range of a table is taken to get the share of its lookups that its
// rows are of the table. The plan and the loads per device are returned;
// with o.DeviceBytes set, a device given more is an error.
func Plan(l *abi.Layer, o PlanOptions) (*abi.ShardPlan, []Load, error) {
	if err := o.check(); err != nil {
		return nil, nil, err
	}
	var tables []*table
	byOffset := map[int64]*table{}
	for i := range l.Columns {
		c := &l.Columns[i]
		t := byOffset[c.TableOffset]
		if t == nil {
			t = &table{rows: c.Rows, rowBytes: 4 * c.Width, bytes: 4 * c.Rows * c.Width}
			byOffset[c.TableOffset] = t
			tables = append(tables, t)
		}
		t.cols = append(t.cols, i)
		pool := c.Pooling
		if c.Kind == abi.KindGather || pool <= 0 {
			pool = 1
		}
		t.lookups += pool
	}
	var totBytes int64
	var totLookups float64
	for _, t := range tables {
		totBytes += t.bytes
		totLookups += t.lookups
	}
	share := func(b int64, lk float64) (float64, float64) {
		var x, y float64
		if totBytes > 0 {
			x = float64(b) / float64(totBytes)
		}
		if totLookups > 0 {
			y = lk / totLookups
		}
		return x, y
	}
	p := &abi.ShardPlan{Devices: o.Devices, Dense: o.Dense, Columns: make([]abi.Placement, len(l.Columns))}
	loads := make([]Load, o.Devices)
	place := func(t *table, pl abi.Placement) {
		for _, i := range t.cols {
			p.Columns[i] = pl
		}
	}
	var whole []*table
	for _, t := range tables {
		if t.bytes <= o.RowThreshold || o.Devices == 1 || t.rows < 2 {
			whole = append(whole, t)
			continue
		}
		n := min(o.Devices, t.rows)
		pl := abi.Placement{Device: -1}
		for k := range n {
			lo, hi := t.rows*k/n, t.rows*(k+1)/n
			pl.Pieces = append(pl.Pieces, abi.RowPiece{Lo: lo, Hi: hi, Device: k})
			frac := float64(hi-lo) / float64(t.rows)
			loads[k].Bytes += t.rowBytes * (hi - lo)
			loads[k].Lookups += t.lookups * frac
			loads[k].Tables++
		}
		place(t, pl)
	}
	key := func(t *table) float64 {
		x, y := share(t.bytes, t.lookups)
		return max(x, y)
	}
	sort.SliceStable(whole, func(a, b int) bool { return key(whole[a]) > key(whole[b]) })
	for _, t := range whole {
		best, bestCost, bestSum := int64(0), 0.0, 0.0
		for d := range o.Devices {
			x, y := share(loads[d].Bytes+t.bytes, loads[d].Lookups+t.lookups)
			if c := max(x, y); d == 0 || c < bestCost || (c == bestCost && x+y < bestSum) {
				best, bestCost, bestSum = d, c, x+y
			}
		}
		loads[best].Bytes += t.bytes
		loads[best].Lookups += t.lookups
		loads[best].Tables++
		place(t, abi.Placement{Device: best})
	}
	if o.DeviceBytes > 0 {
		for d, ld := range loads {
			if ld.Bytes > o.DeviceBytes {
				return nil, nil, fmt.Errorf("the plan puts %d bytes of tables on device %d, more than device-bytes = %d (more devices, or a lower row-threshold, spread them further)", ld.Bytes, d, o.DeviceBytes)
			}
		}
	}
	return p, loads, nil
}
