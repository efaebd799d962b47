package embtogpu

import (
	"fmt"
	"sort"

	"github.com/recom-compiler/recom/dialects/fused/abi"
)

// Relayout lays out a layer of scheduled columns: cols (in output order)
// carry their schedules (vector, lanes, segments, rows in flight, bags per
// task) and id computations; Relayout gives each its output offset (in
// order), its store width (the vector width, halved until the stores stay
// aligned in the output row), its class (columns with the same code share
// one), its table offset (columns whose tables[i] are the same non-nil
// value share one copy) and its parameter block, and returns the layer in
// kernel order (grouped by class) with order[k] the index in cols of
// kernel column k. Plan lays out every layer with it, and --shard the
// layer of each device from the columns of the unsharded one.
func Relayout(schedule string, block, minTasks int64, cols []abi.Column, tables []any) (l *abi.Layer, order []int, err error) {
	if len(tables) != len(cols) {
		return nil, nil, fmt.Errorf("relayout: %d tables for %d columns", len(tables), len(cols))
	}
	l = &abi.Layer{Schedule: schedule, Block: block, MinTasks: minTasks}
	for i := range cols {
		l.Width += cols[i].Width
	}
	planned := make([]abi.Column, len(cols))
	var out int64
	for i := range cols {
		c := cols[i]
		c.OutOffset = out
		out += c.Width
		c.StoreWidth = c.Vector
		for c.StoreWidth > 1 && (c.OutOffset%c.StoreWidth != 0 || l.Width%c.StoreWidth != 0) {
			c.StoreWidth /= 2
		}
		c.TableOffset, c.ParamsOffset = 0, -1
		planned[i] = c
	}
	// Classes: columns with the same code share it; kernel order groups them.
	type key struct {
		kind, comb, ids                   string
		weighted, noNaN                   bool
		d, vec, sw, lanes, segs, rif, bpt int64
	}
	keyOf := func(c *abi.Column) key {
		return key{c.Kind, c.Combiner, c.Signature(), c.Weighted, c.DivNoNaN, c.Width, c.Vector, c.StoreWidth, c.Lanes, c.Segments, c.RowsInFlight, c.BagsPerTask}
	}
	classOf := map[key]int64{}
	for i := range planned {
		k := keyOf(&planned[i])
		if _, ok := classOf[k]; !ok {
			classOf[k] = int64(len(classOf))
		}
		planned[i].Class = classOf[k]
	}
	order = make([]int, len(planned))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return planned[order[a]].Class < planned[order[b]].Class })
	offsets := map[any]int64{}
	for _, i := range order {
		c := planned[i]
		if off, ok := offsets[tables[i]]; ok && tables[i] != nil {
			c.TableOffset = off
		} else {
			c.TableOffset = l.TableFloats
			l.TableFloats += (c.Rows*c.Width + abi.TableAlign - 1) / abi.TableAlign * abi.TableAlign
			if tables[i] != nil {
				offsets[tables[i]] = c.TableOffset
			}
		}
		l.Columns = append(l.Columns, c)
	}
	// The parameter blocks and data of the id transforms, after the tables.
	for k := range l.Columns {
		c := &l.Columns[k]
		n, err := c.StaticFloats()
		if err != nil {
			return nil, nil, fmt.Errorf("column %q: %v", c.Name, err)
		}
		if n > 0 {
			c.ParamsOffset = l.TableFloats
			l.TableFloats += n
		}
	}
	return l, order, nil
}
