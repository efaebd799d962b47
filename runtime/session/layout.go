package session

import (
	"fmt"

	"github.com/recom-compiler/recom/runtime/densekern"
)

// placement puts a device value in columns of another: a reader's
// concatenated input.
type placement struct {
	in  *devValue // the concatenated input
	col int64     // the value's first column in it
}

// move is a layout kernel's launch before a dense step: from's rows
// copied (or converted to to's format) into to's columns from col on.
type move struct {
	from, to *devValue
	col      int64
}

// layoutOf is the step's Layout; a step that is not a LaidOutStep reads
// and writes float32, each operand contiguous.
func layoutOf(st DenseStep) Layout {
	if l, ok := st.(LaidOutStep); ok {
		return l.Layout()
	}
	return Layout{In: F32}
}

// planLayouts decides, once the dense steps are prepared, how their
// operands are stored:
//
//   - a value a dense step or an upload computes is BF16 when every
//     reader reads BF16 (its Layout.In), it is not copied back, and its
//     producer can write BF16; everything else is F32 (an embedding
//     layer writes float32);
//   - a step that asks for Concat reads one buffer of b×K: a value made
//     by a step that can write pitched output there (Layout.OutPitched,
//     PitchAlign), in the right format and read by this step alone, is
//     placed in its columns (its producer writes it there); the others
//     are moved there by a layout kernel (converted to BF16 on the way
//     when they are F32);
//   - a step's input in another format than In is converted into a
//     buffer of its own.
//
// Then it tells each LaidOutStep where its output lives (SetOutput).
func (p *plan) planLayouts() error {
	type use struct {
		ds *denseStep
		i  int
	}
	readers := map[*devValue][]use{}
	producer := map[*devValue]*denseStep{}
	for _, ds := range p.dense {
		ds.layout = layoutOf(ds.step)
		producer[ds.out] = ds
		for i, d := range ds.in {
			readers[d.base()] = append(readers[d.base()], use{ds, i})
		}
	}
	// The device steps read float32 (at any row pitch).
	devRead := map[*devValue]bool{}
	devMade := map[*devValue]bool{}
	for _, st := range p.devSteps {
		devMade[st.out] = true
		for _, d := range st.reads {
			devRead[d.base()] = true
		}
	}
	for _, d := range p.devs {
		if d.root != nil {
			continue
		}
		bf := !d.toHost && len(readers[d]) > 0
		if pd := producer[d]; pd != nil {
			bf = bf && pd.layout.OutBF16
		} else if d.fromHost == nil {
			bf = false // an embedding layer's output
		}
		for _, u := range readers[d] {
			bf = bf && u.ds.layout.In == BF16
		}
		bf = bf && !devRead[d]
		if bf {
			d.format = BF16
		}
	}
	for _, ds := range p.dense {
		lay := ds.layout
		ds.args = append([]*devValue(nil), ds.in...)
		if lay.Concat && (len(ds.in) > 1 || ds.in[0].base().format != lay.In) {
			k := ds.dense.K()
			cat := &devValue{name: fmt.Sprintf("the concatenated input of fused.dense (node %q)", ds.node), width: k, rest: []int64{k}, format: lay.In}
			p.devs = append(p.devs, cat)
			col := int64(0)
			for i, d := range ds.in {
				b := d.base()
				if pd := producer[b]; pd != nil && pitchable(pd.layout, col, k, lay.In) && b.format == lay.In && !b.toHost && b.place == nil && len(readers[b]) == 1 {
					b.place = &placement{in: cat, col: col}
				} else {
					ds.moves = append(ds.moves, move{from: d, to: cat, col: col})
				}
				col += ds.dense.Ks[i]
			}
			ds.args = []*devValue{cat}
			continue
		}
		if lay.Concat {
			continue // one input already in format In
		}
		for i, d := range ds.in {
			if d.base().format == lay.In {
				continue
			}
			to := &devValue{name: fmt.Sprintf("input #%d of fused.dense (node %q) in %v", i, ds.node, lay.In), width: d.width, rest: []int64{d.width}, format: lay.In}
			p.devs = append(p.devs, to)
			ds.moves = append(ds.moves, move{from: d, to: to})
			ds.args[i] = to
		}
	}
	// A device step's result that a concatenation on the device reads,
	// and nothing else needs contiguous (no dense step, no copy back), is
	// written by its step straight into the concatenation's columns.
	for _, st := range p.devSteps {
		col := int64(0)
		for _, in := range st.concat {
			b := in.base()
			if devMade[b] && b != st.out && !b.toHost && b.place == nil && len(readers[b]) == 0 {
				b.place = &placement{in: st.out, col: col}
			}
			col += in.width
		}
	}
	for _, ds := range p.dense {
		st, ok := ds.step.(LaidOutStep)
		if !ok {
			continue
		}
		o := ds.out
		ld, al := o.width, int64(align)
		if o.place != nil {
			ld = o.place.in.width
			if off := o.place.col * o.format.Bytes(); off != 0 {
				al = min(off&-off, al)
			}
		}
		if err := st.SetOutput(o.format, ld, al); err != nil {
			return ds.op.Errorf("%v", err)
		}
	}
	return nil
}

// pitchable reports whether a step of Layout l can write its output at
// column col of a concatenated input of width k in format f.
func pitchable(l Layout, col, k int64, f Format) bool {
	a := max(l.PitchAlign, 1)
	return l.OutPitched && (col*f.Bytes())%a == 0 && (k*f.Bytes())%a == 0
}

// moveLaunch is what a move of a batch of b rows launches.
func (sl *slot) moveLaunch(f *frame, m move) (densekern.Kernel, densekern.Move, error) {
	src, dst := sl.buffer(f, m.from), sl.buffer(f, m.to)
	mv := densekern.Move{From: src.Format, To: dst.Format, Rows: f.b, Cols: m.from.width, SrcLd: src.Ld, DstLd: dst.Ld,
		Src: src.Addr(), Dst: dst.Addr() + uint64(m.col*dst.Format.Bytes())}
	k, err := densekern.Pick(mv)
	return k, mv, err
}
