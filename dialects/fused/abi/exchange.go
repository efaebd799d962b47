package abi

// fused.exchange: the layer's output assembled, on the device that runs
// the dense part, from the partial outputs of the devices' layers.
//
//	%out = fused.exchange %p0, %p1, %den {device = 0, devices = [0, 1], kernel = @emb::@layer_combine,
//	    segments = [[0, 8, -1, 1, 0], [8, 16, 0, 0, 0, 1, 8]]}
//	    : tensor<?x16xf32>, tensor<?x24xf32>, tensor<?xf32> -> tensor<?x24xf32>
//
// The operands are the partial outputs ([B, W_i] float32, one per device
// layer: operand i lives on device devices[i]), then the den vectors of
// the fused.route ops of the row-wise mean and sqrtn columns ([B]). The
// result ([B, W]) lives on device device. Each segment
// [out, width, den, i0, off0, i1, off1, ...] fills the output floats
// [out, out+width) of every row b with the sum, in the order listed, of
// partial i_k's floats [off_k, off_k+width) of row b, divided by den
// operand den's element b when den >= 0. The segments tile the output row
// in order. A table-wise column is one segment of one piece (a copy); a
// row-wise column sums the partial rows of its pieces.
//
// On the GPU this is a gather of the partials to the dense device (NCCL
// send/receive pairs in one group across GPUs; device-to-device copies
// standing in for them on one GPU) into one buffer, the partial of
// operand i at float offset B x (W_0 + ... + W_{i-1}), then one launch of
// the combine kernel on the dense device:
//
//	kernel(map *i32, gathered *f32, dens *f32, out *f32, B i64, W i64)
//
// one thread per output float (b, j), grid ceil(B x W / CombineBlock)
// blocks of CombineBlock threads; dens holds den operand s's B floats at
// s x B, and map is the segments as int32 words (MapWords): words [0, W)
// give each output float's segment, segment s's descriptor
// (out, den, pieces, first piece word) is at W + 4s, and a piece is three
// words: its partial's float offset per unit of B (W_0 + ... + W_{i-1}),
// its width W_i, and off.

import (
	"fmt"
	"math"

	"github.com/recom-compiler/recom/dialects/gpu"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/textir"
)

// CombineBlock is the combine kernel's threads per block.
const CombineBlock = 256

// Exchange is the static description of a fused.exchange.
type Exchange struct {
	Device   int64   // where the result lives
	Devices  []int64 // the device of each partial
	Widths   []int64 // the width of each partial (its operand type)
	Width    int64   // the result's width
	Dens     int     // den operands, after the partials
	Segments []Segment
}

// Segment is a run of output floats and where they come from.
type Segment struct {
	Out, Width int64
	Den        int64 // den operand, -1: none
	From       []Piece
}

// Piece is a run of floats of a partial.
type Piece struct {
	Input, Offset int64
}

// Attrs returns the exchange's attributes with its combine kernel.
func (e *Exchange) Attrs(kernel textir.SymbolRefAttr) []textir.NamedAttribute {
	devs := make([]textir.Attribute, len(e.Devices))
	for i, d := range e.Devices {
		devs[i] = textir.I64Attr(d)
	}
	segs := make([]textir.Attribute, len(e.Segments))
	for i, s := range e.Segments {
		w := []textir.Attribute{textir.I64Attr(s.Out), textir.I64Attr(s.Width), textir.I64Attr(s.Den)}
		for _, p := range s.From {
			w = append(w, textir.I64Attr(p.Input), textir.I64Attr(p.Offset))
		}
		segs[i] = textir.ArrayAttr{Elems: w}
	}
	return []textir.NamedAttribute{
		{Name: "device", Value: textir.I64Attr(e.Device)},
		{Name: "devices", Value: textir.ArrayAttr{Elems: devs}},
		{Name: "kernel", Value: kernel},
		{Name: "segments", Value: textir.ArrayAttr{Elems: segs}},
	}
}

// width2 returns the static width of a [?, W] float32 tensor type.
func width2(t textir.Type) (int64, bool) {
	tt, ok := t.(*textir.TensorType)
	if !ok || len(tt.Shape) != 2 || tt.Shape[1] < 1 || tt.Elem != textir.F32() {
		return 0, false
	}
	return tt.Shape[1], true
}

// ExchangeOf decodes and checks a fused.exchange: its attributes against
// its operand and result types.
func ExchangeOf(op *textir.Operation) (*Exchange, error) {
	e := &Exchange{}
	d, ok := op.LookupAttr("device").(textir.IntegerAttr)
	if !ok {
		return nil, op.Errorf("requires integer attribute 'device'")
	}
	e.Device = d.Value
	var err error
	if e.Devices, err = int64List(op.LookupAttr("devices"), "devices"); err != nil {
		return nil, op.Errorf("%v", err)
	}
	if _, ok := op.LookupAttr("kernel").(textir.SymbolRefAttr); !ok {
		return nil, op.Errorf("requires symbol reference attribute 'kernel'")
	}
	n := len(e.Devices)
	switch {
	case e.Device < 0 || e.Device >= MaxShardDevices:
		return nil, op.Errorf("attribute 'device' must be in [0, %d), got %d", MaxShardDevices, e.Device)
	case n < 1 || n > MaxShardDevices:
		return nil, op.Errorf("attribute 'devices' must list 1 to %d devices, got %d", MaxShardDevices, n)
	case op.NumOperands() < n:
		return nil, op.Errorf("takes a partial per device (%d), got %d operands", n, op.NumOperands())
	}
	for i, dv := range e.Devices {
		if dv < 0 || dv >= MaxShardDevices {
			return nil, op.Errorf("attribute 'devices': device %d of partial #%d is not in [0, %d)", dv, i, MaxShardDevices)
		}
	}
	e.Dens = op.NumOperands() - n
	var total int64
	for i := range n {
		w, ok := width2(op.Operand(i).Type())
		if !ok || w > MaxArenaFloats-total {
			return nil, op.Errorf("partial #%d must be a tensor<?xWxf32> (the partials' widths below 2^31 in all), got %s", i, op.Operand(i).Type())
		}
		total += w
		e.Widths = append(e.Widths, w)
	}
	for s := range e.Dens {
		tt, ok := op.Operand(n + s).Type().(*textir.TensorType)
		if !ok || len(tt.Shape) != 1 || tt.Elem != textir.F32() {
			return nil, op.Errorf("den #%d must be a tensor<?xf32>, got %s", s, op.Operand(n+s).Type())
		}
	}
	if op.NumResults() != 1 {
		return nil, op.Errorf("has one result, got %d", op.NumResults())
	}
	if e.Width, ok = width2(op.Result(0).Type()); !ok || e.Width > MaxArenaFloats {
		return nil, op.Errorf("result must be a tensor<?xWxf32>, got %s", op.Result(0).Type())
	}
	segs, ok := op.LookupAttr("segments").(textir.ArrayAttr)
	if !ok {
		return nil, op.Errorf("requires array attribute 'segments'")
	}
	var at int64
	for k, sa := range segs.Elems {
		w, err := int64List(sa, fmt.Sprintf("segments' #%d", k))
		if err != nil {
			return nil, op.Errorf("%v", err)
		}
		if len(w) < 5 || len(w)%2 == 0 {
			return nil, op.Errorf("segment #%d must be [out, width, den, input, offset, ...] with at least one piece, got %d integers", k, len(w))
		}
		s := Segment{Out: w[0], Width: w[1], Den: w[2]}
		switch {
		case s.Out != at:
			return nil, op.Errorf("segment #%d starts at %d, but the segments before it end at %d (they must tile the row in order)", k, s.Out, at)
		case s.Width < 1 || s.Width > e.Width-s.Out:
			return nil, op.Errorf("segment #%d: width %d at %d does not fit the result's %d floats", k, s.Width, s.Out, e.Width)
		case s.Den < -1 || s.Den >= int64(e.Dens):
			return nil, op.Errorf("segment #%d: den %d is not -1 or one of the %d den operands", k, s.Den, e.Dens)
		}
		for j := 3; j < len(w); j += 2 {
			p := Piece{Input: w[j], Offset: w[j+1]}
			if p.Input < 0 || p.Input >= int64(n) {
				return nil, op.Errorf("segment #%d: input %d is not one of the %d partials", k, p.Input, n)
			}
			if p.Offset < 0 || p.Offset > e.Widths[p.Input]-s.Width {
				return nil, op.Errorf("segment #%d: floats [%d, %d) of partial #%d exceed its width %d", k, p.Offset, p.Offset+s.Width, p.Input, e.Widths[p.Input])
			}
			s.From = append(s.From, p)
		}
		e.Segments = append(e.Segments, s)
		at += s.Width
	}
	if at != e.Width {
		return nil, op.Errorf("the segments cover %d of the result's %d floats", at, e.Width)
	}
	return e, nil
}

// MapWords returns the combine kernel's map (see the package doc).
func (e *Exchange) MapWords() []int32 {
	prefix := make([]int64, len(e.Widths))
	var p int64
	for i, w := range e.Widths {
		prefix[i] = p
		p += w
	}
	words := make([]int32, e.Width, e.Width+4*int64(len(e.Segments)))
	pieceAt := e.Width + 4*int64(len(e.Segments))
	var pieces []int32
	for s, seg := range e.Segments {
		for j := seg.Out; j < seg.Out+seg.Width; j++ {
			words[j] = int32(s)
		}
		words = append(words, int32(seg.Out), int32(seg.Den), int32(len(seg.From)), int32(pieceAt+int64(len(pieces))))
		for _, pc := range seg.From {
			pieces = append(pieces, int32(prefix[pc.Input]), int32(e.Widths[pc.Input]), int32(pc.Offset))
		}
	}
	return append(words, pieces...)
}

// GatheredFloats is the size of the gather buffer for batch b: every
// partial, [b, W_i] each.
func (e *Exchange) GatheredFloats(b int64) int64 {
	var n int64
	for _, w := range e.Widths {
		n += b * w
	}
	return n
}

// checkInputs checks partials and dens against the exchange and returns
// the batch.
func (e *Exchange) checkInputs(partials, dens [][]float32) (int64, error) {
	if len(partials) != len(e.Widths) || len(dens) != e.Dens {
		return 0, fmt.Errorf("exchange of %d partials and %d dens got %d and %d", len(e.Widths), e.Dens, len(partials), len(dens))
	}
	b := int64(len(partials[0])) / e.Widths[0]
	for i, p := range partials {
		if int64(len(p)) != b*e.Widths[i] {
			return 0, fmt.Errorf("partial #%d has %d floats, want %d rows of %d", i, len(p), b, e.Widths[i])
		}
	}
	for s, d := range dens {
		if int64(len(d)) != b {
			return 0, fmt.Errorf("den #%d has %d floats for a batch of %d", s, len(d), b)
		}
	}
	return b, nil
}

// Combine computes the exchange on the host: the reference the combine
// kernel is checked against.
func (e *Exchange) Combine(partials, dens [][]float32) ([]float32, int64, error) {
	b, err := e.checkInputs(partials, dens)
	if err != nil {
		return nil, 0, err
	}
	out := make([]float32, b*e.Width)
	for row := range b {
		for _, s := range e.Segments {
			for j := range s.Width {
				var acc float32
				for _, p := range s.From {
					acc += partials[p.Input][row*e.Widths[p.Input]+p.Offset+j]
				}
				if s.Den >= 0 {
					acc /= dens[s.Den][row]
				}
				out[row*e.Width+s.Out+j] = acc
			}
		}
	}
	return out, b, nil
}

// Run runs the combine kernel k on the simulator: the partials gathered
// into one buffer, the dens into another, over a poisoned output.
func (e *Exchange) Run(k *gpu.Kernel, partials, dens [][]float32) ([]float32, int64, error) {
	b, err := e.checkInputs(partials, dens)
	if err != nil {
		return nil, 0, err
	}
	if b > interp.MaxElements/e.Width {
		return nil, 0, &interp.TooLargeError{What: fmt.Sprintf("the output of %d rows of %d floats", b, e.Width), Limit: interp.MaxElements}
	}
	var gathered []float32
	for _, p := range partials {
		gathered = append(gathered, p...)
	}
	var ds []float32
	for _, d := range dens {
		ds = append(ds, d...)
	}
	out := make([]byte, 4*b*e.Width)
	for i := range out {
		out[i] = 0xff
	}
	if n := b * e.Width; n > 0 {
		args := []any{gpu.Buf{Data: i32Bytes(e.MapWords())}, gpu.Buf{Data: f32Bytes(gathered)}, gpu.Buf{Data: f32Bytes(ds)}, gpu.Buf{Data: out}, b, e.Width}
		if err := k.Launch((n+CombineBlock-1)/CombineBlock, CombineBlock, args, nil); err != nil {
			return nil, 0, err
		}
	}
	res := make([]float32, b*e.Width)
	for i := range res {
		res[i] = math.Float32frombits(uint32(out[4*i]) | uint32(out[4*i+1])<<8 | uint32(out[4*i+2])<<16 | uint32(out[4*i+3])<<24)
	}
	return res, b, nil
}
