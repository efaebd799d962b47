package session

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/runtime/cuda"
	"github.com/recom-compiler/recom/runtime/densekern"
	"github.com/recom-compiler/recom/textir"
)

// A device step is an op after the layers that the session computes on the
// device, as a step of the batch's graph, rather than on the host after it
// (a classifier head: the wide part's sum and bias, the logits' sum, the
// softmax). An op is one when it is one of DeviceOps, reads only device
// values and constants, is row-local (row r of its result depends on rows
// r of its operands alone) in one of the forms below, and computes
// float32:
//
//   - elementwise AddV2, Add, Sub, Mul, RealDiv, Maximum, Minimum and
//     BiasAdd (NHWC) with TensorFlow's broadcasting, where each operand is
//     either of the result's shape, or one value per row (a device value of
//     [B, 1] for a [B, w] result), or a constant shared by the rows (of
//     the row's shape, or of one element);
//   - elementwise Sigmoid, Relu, Tanh, Neg, Abs, Square, Exp; ZerosLike and
//     OnesLike (a fill: the operand is not read); AddN of N ≥ 2 values of
//     one shape (summed left to right in float32, as the host step);
//   - Sum, Mean, Max, Min and Prod over the last axis of a [B, w] value
//     (reduction_indices a constant 1 or -1, scalar or vector; w ≥ 1;
//     keep_dims: [B, 1], else [B]);
//   - Softmax and LogSoftmax over the last axis of a [B, w] value;
//   - ConcatV2 of [B, wᵢ] device values along the last axis (a constant 1
//     or -1).
//
// Device aliases are unchanged: Identity, Snapshot, StopGradient,
// Reshape, ExpandDims, Squeeze, and now AddN of one value and a Cast from
// float32 to float32. Each step is one launch or a few of
// runtime/densekern's head kernels (map_f32, rows_f32; a concatenation
// copies each input into its columns, or its producer, a device step,
// writes there directly), which compute as interp/tfops does. Anything
// else after the graph stays a host step.

// deviceOps are the ops a device step computes, by their map or rows code
// (binary: two operands; unary: one).
var (
	deviceBinary = map[string]int64{
		"tfg.AddV2": densekern.MapAdd, "tfg.Add": densekern.MapAdd, "tfg.Sub": densekern.MapSub, "tfg.Mul": densekern.MapMul,
		"tfg.RealDiv": densekern.MapDiv, "tfg.Maximum": densekern.MapMax, "tfg.Minimum": densekern.MapMin, "tfg.BiasAdd": densekern.MapAdd,
	}
	deviceUnary = map[string]int64{
		"tfg.Sigmoid": densekern.MapSigmoid, "tfg.Relu": densekern.MapRelu, "tfg.Tanh": densekern.MapTanh, "tfg.Neg": densekern.MapNeg,
		"tfg.Abs": densekern.MapAbs, "tfg.Square": densekern.MapSquare, "tfg.Exp": densekern.MapExp,
		"tfg.ZerosLike": densekern.MapZero, "tfg.OnesLike": densekern.MapOne,
	}
	deviceRows = map[string]int64{
		"tfg.Sum": densekern.RowSum, "tfg.Mean": densekern.RowMean, "tfg.Max": densekern.RowMax, "tfg.Min": densekern.RowMin,
		"tfg.Prod": densekern.RowProd, "tfg.Softmax": densekern.RowSoftmax, "tfg.LogSoftmax": densekern.RowLogSoftmax,
	}
)

// DeviceOps lists the ops a session can compute on the device as steps of
// the batch's graph (in the forms devstep.go describes), sorted.
func DeviceOps() []string {
	names := []string{"tfg.AddN", "tfg.ConcatV2", "tfg.Cast"}
	for _, m := range []map[string]int64{deviceBinary, deviceUnary, deviceRows} {
		for n := range m {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// devOperand is an operand of a head kernel's launch: a device value, a
// constant of the step (uploaded once), or nothing (not read).
type devOperand struct {
	dev   *devValue
	konst int  // the step's constant, when dev is nil (-1: none)
	bcast bool // one column (a device value) or one element (a constant) for every column
}

// devCall is one launch of a head kernel.
type devCall struct {
	kernel string // densekern.MapKernel or RowsKernel
	code   int64
	a, b   devOperand
	cols   int64 // the columns computed (map), or read per row (rows)
	col    int64 // the first column of the output written
}

// devStep is an op computed on the device in the batch's graph.
type devStep struct {
	op     *textir.Operation
	node   string
	in     []*value // its data operands
	out    *devValue
	reads  []*devValue // the device values it reads
	calls  []devCall
	consts []*value  // constant operands, uploaded once by New
	cshape [][]int64 // their shapes as planned
	cbuf   []*cuda.DevicePtr
	// concat: a ConcatV2, its inputs by column (a placed input is written
	// there by its producer, and its copy dropped).
	concat []*devValue
}

// gpuStep is a step of the batch's graph after the layers, in dependence
// order: a dense layer or a device step.
type gpuStep struct {
	dense *denseStep
	dev   *devStep
}

// f32Type reports whether t holds float32 elements.
func f32Type(t textir.Type) bool {
	dt, ok := exec.DTypeOf(t)
	return ok && dt == interp.Float32
}

// constAttr returns the value attribute of a tfg.Const v.
func constAttr(v *textir.Value) *textir.DenseElementsAttr {
	op := v.DefiningOp()
	if op == nil || op.Name() != "tfg.Const" {
		return nil
	}
	a, _ := op.Attr("value").(*textir.DenseElementsAttr)
	return a
}

// constShape returns a constant operand's static shape: its type's, or the
// value attribute's of a tfg.Const.
func constShape(v *textir.Value) ([]int64, bool) {
	if tt, ok := v.Type().(*textir.TensorType); ok {
		for _, d := range tt.Shape {
			if d < 0 {
				return nil, false
			}
		}
		return tt.Shape, true
	}
	if a := constAttr(v); a != nil && a.Type != nil {
		return a.Type.Shape, true
	}
	return nil, false
}

// constInts returns the integers of a tfg.Const (an axis).
func constInts(v *textir.Value) ([]int64, bool) {
	a := constAttr(v)
	if a == nil || a.Type == nil || a.IsString() {
		return nil, false
	}
	if _, ok := a.Type.Elem.(*textir.IntType); !ok {
		return nil, false
	}
	out := make([]int64, a.NumElements())
	for i := range out {
		out[i] = a.IntAt(int64(i))
	}
	return out, true
}

// lastAxis reports whether the constant v names the last axis of a rank-2
// value, alone.
func lastAxis(v *value) bool {
	ax, ok := constInts(v.v)
	return ok && len(ax) == 1 && (ax[0] == 1 || ax[0] == -1)
}

func allOnes(s []int64) bool {
	for _, d := range s {
		if d != 1 {
			return false
		}
	}
	return true
}

// resultFits reports whether op's data result r is float32 and, when its
// type is ranked, of shape [?, rest...].
func resultFits(r *textir.Value, rest []int64) bool {
	if !f32Type(r.Type()) {
		return false
	}
	tt, ok := r.Type().(*textir.TensorType)
	if !ok {
		return true
	}
	if len(tt.Shape) != len(rest)+1 {
		return false
	}
	for i, d := range tt.Shape[1:] {
		if d >= 0 && d != rest[i] {
			return false
		}
	}
	return true
}

// planDevice plans op as a device step when it is one (see above); false
// when it is not, and the op stays a host step. vals are its data
// operands, at least one on the device.
func (p *plan) planDevice(op *textir.Operation, vals []*value) bool {
	for _, v := range vals {
		if v.kind != kindDevice && v.kind != kindConst {
			return false
		}
		if v.kind == kindDevice && (v.dev.width < 1 || !f32Type(v.v.Type())) {
			return false
		}
	}
	res := dataResults(op)
	if len(res) != 1 {
		return false
	}
	st := &devStep{op: op, node: nodeName(op), in: vals}
	var rest []int64
	name := op.Name()
	_, binary := deviceBinary[name]
	_, unary := deviceUnary[name]
	_, rows := deviceRows[name]
	switch {
	case name == "tfg.Cast" || name == "tfg.AddN" && len(vals) == 1:
		// Float32 to float32, or a sum of one: an alias.
		if len(vals) != 1 || vals[0].kind != kindDevice || !resultFits(res[0], vals[0].dev.rest) {
			return false
		}
		if a, ok := op.Attr("DstT").(textir.TypeAttr); name == "tfg.Cast" && (!ok || !f32Type(a.Type)) {
			return false
		}
		src := vals[0].dev
		d := &devValue{name: st.node, width: src.width, root: src, rest: src.rest}
		p.values[res[0]] = &value{v: res[0], kind: kindDevice, dev: d}
		p.devs = append(p.devs, d)
		return true
	case binary:
		if len(vals) != 2 {
			return false
		}
		if name == "tfg.BiasAdd" {
			if a, ok := op.Attr("data_format").(textir.StringAttr); ok && a.Value != "NHWC" {
				return false
			}
			if vals[0].kind != kindDevice || vals[1].kind != kindConst || len(vals[0].dev.rest) != 1 {
				return false
			}
			if s, ok := constShape(vals[1].v); !ok || len(s) != 1 || s[0] != vals[0].dev.rest[0] {
				return false
			}
		}
		r, ops, ok := p.broadcast(st, vals)
		if !ok {
			return false
		}
		rest = r
		st.calls = []devCall{{kernel: densekern.MapKernel, code: deviceBinary[name], a: ops[0], b: ops[1], cols: prod(rest)}}
	case name == "tfg.AddN":
		src := vals[0]
		for _, v := range vals {
			if v.kind != kindDevice || !slices.Equal(v.dev.rest, src.dev.rest) {
				return false
			}
		}
		rest = src.dev.rest
		w := src.dev.width
		st.calls = []devCall{{kernel: densekern.MapKernel, code: densekern.MapAdd, a: devOperand{dev: vals[0].dev, konst: -1},
			b: devOperand{dev: vals[1].dev, konst: -1}, cols: w}}
		for _, v := range vals[2:] {
			st.calls = append(st.calls, devCall{kernel: densekern.MapKernel, code: densekern.MapAdd, a: devOperand{konst: -1}, // a: the output
				b: devOperand{dev: v.dev, konst: -1}, cols: w})
		}
	case unary:
		if len(vals) != 1 || vals[0].kind != kindDevice {
			return false
		}
		rest = vals[0].dev.rest
		code := deviceUnary[name]
		a := devOperand{dev: vals[0].dev, konst: -1}
		if code >= densekern.MapZero {
			a = devOperand{konst: -1} // a fill reads nothing
		}
		st.calls = []devCall{{kernel: densekern.MapKernel, code: code, a: a, b: devOperand{konst: -1}, cols: vals[0].dev.width}}
	case rows:
		x := vals[0]
		if x.kind != kindDevice || len(x.dev.rest) != 1 {
			return false
		}
		code := deviceRows[name]
		rest = x.dev.rest
		if code < densekern.RowSoftmax {
			if len(vals) != 2 || vals[1].kind != kindConst || !lastAxis(vals[1]) {
				return false
			}
			rest = nil
			if boolAttr(op, "keep_dims") {
				rest = []int64{1}
			}
		} else if len(vals) != 1 {
			return false
		}
		st.calls = []devCall{{kernel: densekern.RowsKernel, code: code, a: devOperand{dev: x.dev, konst: -1}, cols: x.dev.width}}
	case name == "tfg.ConcatV2":
		if len(vals) < 2 || vals[len(vals)-1].kind != kindConst || !lastAxis(vals[len(vals)-1]) {
			return false
		}
		w := int64(0)
		for _, v := range vals[:len(vals)-1] {
			if v.kind != kindDevice || len(v.dev.rest) != 1 {
				return false
			}
			st.calls = append(st.calls, devCall{kernel: densekern.MapKernel, code: densekern.MapCopy,
				a: devOperand{dev: v.dev, konst: -1}, b: devOperand{konst: -1}, cols: v.dev.width, col: w})
			st.concat = append(st.concat, v.dev)
			w += v.dev.width
		}
		rest = []int64{w}
	default:
		return false
	}
	if !resultFits(res[0], rest) {
		return false
	}
	for _, c := range st.calls {
		for _, o := range []devOperand{c.a, c.b} {
			if o.dev != nil && !slices.Contains(st.reads, o.dev) {
				st.reads = append(st.reads, o.dev)
			}
		}
	}
	st.out = p.newDevice(res[0], max(prod(rest), 1), rest, st.node).dev
	p.devSteps = append(p.devSteps, st)
	p.steps = append(p.steps, gpuStep{dev: st})
	return true
}

func prod(s []int64) int64 {
	n := int64(1)
	for _, d := range s {
		n *= d
	}
	return n
}

// broadcast returns the shape after the batch dim of a binary op's
// result and its operands, when each operand is of that shape or one
// element per row (a device value of as many dims as the result) or
// shared by the rows (a constant, at most as many dims as the result, its
// first 1 when it has as many); false otherwise (TensorFlow's broadcast
// would move the batch dim, or take part of a row).
func (p *plan) broadcast(st *devStep, vals []*value) ([]int64, []devOperand, bool) {
	rank := 0
	shapes := make([][]int64, len(vals))
	for i, v := range vals {
		if v.kind == kindDevice {
			shapes[i] = append([]int64{-1}, v.dev.rest...)
		} else {
			s, ok := constShape(v.v)
			a := constAttr(v.v)
			if !ok || !f32Type(v.v.Type()) && (a == nil || !f32Type(a.Type)) {
				return nil, nil, false
			}
			shapes[i] = s
		}
		rank = max(rank, len(shapes[i]))
	}
	for i, v := range vals {
		if v.kind == kindDevice && len(shapes[i]) != rank {
			return nil, nil, false // the batch dim would meet another
		}
		pad := make([]int64, rank-len(shapes[i]), rank)
		for j := range pad {
			pad[j] = 1
		}
		shapes[i] = append(pad, shapes[i]...)
		if v.kind == kindConst && shapes[i][0] != 1 {
			return nil, nil, false
		}
	}
	rest := make([]int64, rank-1)
	for j := range rest {
		rest[j] = 1
		for _, s := range shapes {
			if d := s[j+1]; d != 1 {
				if rest[j] != 1 && rest[j] != d {
					return nil, nil, false
				}
				rest[j] = d
			}
		}
	}
	ops := make([]devOperand, len(vals))
	for i, v := range vals {
		bc := allOnes(shapes[i][1:])
		if !bc && !slices.Equal(shapes[i][1:], rest) {
			return nil, nil, false // a partial broadcast within the row
		}
		if v.kind == kindDevice {
			ops[i] = devOperand{dev: v.dev, konst: -1, bcast: bc}
			continue
		}
		st.consts = append(st.consts, v)
		s, _ := constShape(v.v)
		st.cshape = append(st.cshape, s)
		ops[i] = devOperand{konst: len(st.consts) - 1, bcast: bc}
	}
	return rest, ops, true
}

// readyDevice uploads the device steps' constants, checking each against
// the shape planned.
func (s *Session) readyDevice() error {
	for _, st := range s.plan.devSteps {
		for i, c := range st.consts {
			k := c.konst
			if k == nil || k.Float32s() == nil || !slices.Equal(k.Shape(), st.cshape[i]) {
				got := "no value"
				if k != nil {
					got = fmt.Sprintf("%v of shape %s", k.DType(), interp.ShapeString(k.Shape()))
				}
				return st.op.Errorf("constant operand must be float32 of shape %s, got %s", interp.ShapeString(st.cshape[i]), got)
			}
			buf, err := upload(s.cctx, k.Float32s())
			if err != nil {
				return st.op.Errorf("constant operand: %v", err)
			}
			st.cbuf = append(st.cbuf, buf)
		}
	}
	return nil
}

// closeDevice frees the device steps' constants.
func (s *Session) closeDevice() error {
	var first error
	for _, st := range s.plan.devSteps {
		for _, b := range st.cbuf {
			if err := b.Close(); err != nil && first == nil {
				first = err
			}
		}
		st.cbuf = nil
	}
	return first
}

// describe says what the step is, for the Summary.
func (st *devStep) describe() string {
	return fmt.Sprintf("%s (node %q)", st.op.Name(), st.node)
}

// enqueueDev enqueues a device step's launches on the slot's stream,
// calling mark after each.
func (sl *slot) enqueueDev(f *frame, st *devStep, mark func(what string) error) error {
	s := sl.s
	out := sl.buffer(f, st.out)
	arg := func(o devOperand) (uint64, int64, int64) {
		switch {
		case o.dev != nil:
			b := sl.buffer(f, o.dev)
			if o.bcast {
				return b.Addr(), b.Ld, 0
			}
			return b.Addr(), b.Ld, 1
		case o.konst >= 0:
			if o.bcast {
				return st.cbuf[o.konst].Addr(), 0, 0
			}
			return st.cbuf[o.konst].Addr(), 0, 1
		}
		return out.Addr(), out.Ld, 1 // the output itself (AddN's running sum), or not read
	}
	for _, c := range st.calls {
		if st.placed(c) {
			continue
		}
		y := out.Addr() + uint64(4*c.col)
		var grid int64
		var err error
		if c.kernel == densekern.MapKernel {
			grid = densekern.ActGrid(f.b, c.cols)
			aa, ars, acs := arg(c.a)
			ba, brs, bcs := arg(c.b)
			err = s.layoutFns[c.kernel].Launch(cuda.Dim(int(grid)), cuda.Dim(densekern.Threads), 0, sl.stream,
				c.code, aa, ba, y, f.b, c.cols, ars, acs, brs, bcs, out.Ld)
		} else {
			grid = densekern.RowGrid(f.b)
			xa, xld, _ := arg(c.a)
			err = s.layoutFns[c.kernel].Launch(cuda.Dim(int(grid)), cuda.Dim(densekern.Threads), 0, sl.stream,
				c.code, xa, y, f.b, c.cols, xld, out.Ld)
		}
		if err != nil {
			return st.op.Errorf("launch %s: %v", c.kernel, err)
		}
		if err := mark(fmt.Sprintf("kernel %s %d x %d (%s)", c.kernel, grid, densekern.Threads, st.describe())); err != nil {
			return err
		}
	}
	return nil
}

// placed reports whether a concatenation's copy c is not launched: its
// input's producer writes it in the output's columns.
func (st *devStep) placed(c devCall) bool {
	if st.concat == nil || c.a.dev == nil {
		return false
	}
	pl := c.a.dev.base().place
	return pl != nil && pl.in == st.out && pl.col == c.col
}

// deviceSummary lists the device steps for the Summary.
func (p *plan) deviceSummary() []string {
	var out []string
	for _, st := range p.devSteps {
		var ks []string
		placed := 0
		for _, c := range st.calls {
			if st.placed(c) {
				placed++
				continue
			}
			ks = append(ks, c.kernel)
		}
		what := strings.Join(ks, ", ")
		if placed > 0 {
			if what != "" {
				what += "; "
			}
			what += fmt.Sprintf("%d of its inputs written in its columns by their producers", placed)
		}
		out = append(out, fmt.Sprintf("%s in the batch's graph: %s", st.describe(), what))
	}
	return out
}
