package hostpack

import (
	"fmt"
	"math"

	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/textir"
)

// Crossed columns (abi's source "cross"): each input's values and row
// splits are computed op by op (a graph plan of its own, as a column's),
// the cross's row splits from theirs (abi.CrossSplitsOf), and the regions
// laid out as abi.Layer.Pack lays them out: the cross's row splits, the
// input table, then each input's row splits and values.

// crossPlan is the inputs of a crossed column; input j reads the
// column's feeds (colPlan.inputs) [at[j], at[j+1]).
type crossPlan struct {
	inputs []colPlan
	at     []int
}

// crossState is a crossed column's measure: its inputs' and the cross's
// row splits, in buffers kept from batch to batch.
type crossState struct {
	inputs []colState
	splits []int64
	// The inputs' row splits and values, and their sizes, for
	// abi.CrossSplitsInto and the layout.
	inSplits [][]int64
	inValues []int64
	sizes    []abi.ColumnSize
}

// crossColumn plans crossed column i, whose input operands are the
// (values, row splits) pairs ops.
func (b *builder) crossColumn(i int, c *abi.Column, ops []*textir.Value) (colPlan, error) {
	cp := colPlan{c: c, cross: &crossPlan{at: []int{0}}, src: sourceOf(c.Source), rows: c.Rows}
	layer := b.p.op
	if len(ops) != 2*len(c.Cross) {
		return cp, layer.Errorf("column #%d (%q): %d operands for %d cross inputs", i, c.Name, len(ops), len(c.Cross))
	}
	for j, in := range c.Cross {
		sub := &abi.Column{Name: fmt.Sprintf("%s (cross input #%d)", c.Name, j), Kind: abi.KindLookup, Source: in.Source}
		vals, splits := ops[2*j], ops[2*j+1]
		dt, err := dtypeOf(layer, vals)
		if err != nil {
			return cp, err
		}
		if !sourceTakes(in.Source, dt) {
			return cp, layer.Errorf("column #%d (%q): cross input #%d: source %q cannot take values of %v", i, c.Name, j, in.Source, dt)
		}
		g := &graphPlan{splits: gref{n: -1}, weights: gref{n: -1}, valsOp: layer}
		memo := map[*textir.Value]gref{}
		if g.vals, err = b.node(g, vals, layer, memo); err != nil {
			return cp, err
		}
		if g.splits, err = b.node(g, splits, layer, memo); err != nil {
			return cp, err
		}
		// The input's regions as a column's with row splits and its
		// strings as offsets (layoutCross).
		sp := colPlan{c: sub, graph: g, src: sourceOf(in.Source), splits: true}
		for _, n := range g.nodes {
			if n.kind == gInput {
				n.local = len(sp.inputs)
				sp.inputs = append(sp.inputs, n.input)
			}
		}
		cp.inputs = append(cp.inputs, sp.inputs...)
		cp.cross.at = append(cp.cross.at, len(cp.inputs))
		cp.cross.inputs = append(cp.cross.inputs, sp)
	}
	return cp, nil
}

// measureCross computes and measures a crossed column's inputs (each
// from its share of the column's feeds, st.feeds) and its row splits.
func measureCross(cp *colPlan, st *colState, ex []exBatch) error {
	c, xp := cp.c, cp.cross
	xs := st.cross
	if xs == nil {
		n := len(xp.inputs)
		xs = &crossState{inputs: make([]colState, n), inSplits: make([][]int64, n), inValues: make([]int64, n),
			sizes: make([]abi.ColumnSize, n)}
		st.cross = xs
	}
	for j := range xp.inputs {
		sub, sst := &xp.inputs[j], &xs.inputs[j]
		sst.feeds = st.feeds[xp.at[j]:xp.at[j+1]]
		sst.elems = 0
		for _, t := range sst.feeds {
			sst.elems += int64(t.Len())
		}
		if err := measureGraph(sub, sst, ex); err != nil {
			return err
		}
		xs.inSplits[j], xs.inValues[j] = sst.graph.splits.i, sst.size.N
		xs.sizes[j] = sst.size
	}
	var err error
	if xs.splits, err = abi.CrossSplitsInto(xs.splits, c.Name, xs.inSplits, xs.inValues, math.MaxInt32); err != nil {
		return err
	}
	if c.Kind == abi.KindGather {
		if err := abi.CheckGatherCross(c.Name, xs.splits); err != nil {
			return err
		}
	}
	st.batch = int64(len(xs.splits)) - 1
	st.size = abi.ColumnSize{N: xs.splits[st.batch], Inputs: xs.sizes}
	return nil
}

// writeCross writes a crossed column's regions (descriptor d, input table
// tab).
func writeCross(cp *colPlan, st *colState, w []int32, d, tab []int64) {
	c, xs := cp.c, st.cross
	if c.Kind == abi.KindLookup {
		for j, x := range xs.splits {
			w[d[0]+int64(j)] = int32(x)
		}
		pad(w, d[0]+int64(len(xs.splits)))
	}
	for j, x := range tab {
		w[d[1]+int64(j)] = int32(x)
	}
	pad(w, d[1]+int64(len(tab)))
	for j := range cp.cross.inputs {
		t := tab[abi.CrossInputWords*j:]
		// The input's regions as a column's: row splits at word 0,
		// values at word 1, string bytes at word 6.
		sd := []int64{t[0], t[1], -1, 0, 0, -1, t[2], 0, -1}
		writeGraph(&cp.cross.inputs[j], &xs.inputs[j], w, sd)
	}
}

// crossWork is the work estimate of measuring (measure) or writing a
// crossed column: its inputs'.
func crossWork(cp *colPlan, st *colState, measure bool) int64 {
	var w int64
	for j := range cp.cross.inputs {
		sub := &cp.cross.inputs[j]
		var sst colState
		if st.cross != nil {
			sst = st.cross.inputs[j]
		}
		if measure {
			w += measureWork(sub, &sst)
		} else {
			w += packWork(sub, &sst)
		}
	}
	return w
}
