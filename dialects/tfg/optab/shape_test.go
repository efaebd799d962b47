package optab_test

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/dialects/builtin"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/dialects/tfg/optab"
	"github.com/recom-compiler/recom/textir"
)

// fdim is the fake context's dim: a constant, a symbol or sum written
// out ("b", "(b*4)"), or unknown.
type fdim struct {
	s   string
	c   int64
	isC bool
	unk bool
}

var errUnknown = errors.New("unknown")

func (d fdim) IsConst() (int64, bool) { return d.c, d.isC }
func (d fdim) Err() error {
	if d.unk {
		return errUnknown
	}
	return nil
}

func (d fdim) String() string {
	switch {
	case d.unk:
		return "?"
	case d.isC:
		return strconv.FormatInt(d.c, 10)
	}
	return d.s
}

func fk(k int64) fdim { return fdim{c: k, isC: true} }

// fake is a ShapeContext over fdims: arithmetic folds constants and
// writes the rest out; equalities are logged, not solved.
type fake struct {
	info map[*textir.Value][2][]optab.Dim
	log  []string
}

func (f *fake) Dims(v *textir.Value) []optab.Dim {
	if v == nil {
		return nil
	}
	if in, ok := f.info[v]; ok {
		return in[0]
	}
	if tt, ok := v.Type().(*textir.TensorType); ok {
		ds := make([]optab.Dim, len(tt.Shape))
		for i, d := range tt.Shape {
			if d == textir.Dynamic {
				ds[i] = fdim{unk: true}
			} else {
				ds[i] = fk(d)
			}
		}
		return ds
	}
	return nil
}

func (f *fake) Content(v *textir.Value) []optab.Dim {
	if v == nil {
		return nil
	}
	return f.info[v][1]
}

func (f *fake) Consts(v *textir.Value) ([]int64, bool) {
	c := f.Content(v)
	if c == nil {
		return nil, false
	}
	out := make([]int64, len(c))
	for i, d := range c {
		k, ok := d.IsConst()
		if !ok {
			return nil, false
		}
		out[i] = k
	}
	return out, true
}

func (f *fake) Set(v *textir.Value, dims, content []optab.Dim) {
	f.info[v] = [2][]optab.Dim{dims, content}
}

func (f *fake) MaxContent() int         { return 8 }
func (f *fake) Const(c int64) optab.Dim { return fk(c) }
func (f *fake) Unknown() optab.Dim      { return fdim{unk: true} }

// op2 folds two constants with k, or writes "(x op y)"; unit is the
// operand value that leaves the other unchanged (a right unit for - and /).
func op2(x, y optab.Dim, op string, unit int64, leftUnit bool, k func(a, b int64) int64) optab.Dim {
	a, b := x.(fdim), y.(fdim)
	switch {
	case a.unk || b.unk:
		return fdim{unk: true}
	case a.isC && b.isC:
		return fk(k(a.c, b.c))
	case b.isC && b.c == unit:
		return a
	case leftUnit && a.isC && a.c == unit:
		return b
	}
	return fdim{s: "(" + a.String() + op + b.String() + ")"}
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func (f *fake) Add(x, y optab.Dim) optab.Dim {
	return op2(x, y, "+", 0, true, func(a, b int64) int64 { return a + b })
}
func (f *fake) Sub(x, y optab.Dim) optab.Dim {
	return op2(x, y, "-", 0, false, func(a, b int64) int64 { return a - b })
}
func (f *fake) Mul(x, y optab.Dim) optab.Dim {
	return op2(x, y, "*", 1, true, func(a, b int64) int64 { return a * b })
}
func (f *fake) FloorDiv(x, y optab.Dim) optab.Dim { return op2(x, y, "/", 1, false, floorDiv) }
func (f *fake) CeilDiv(x, y optab.Dim) optab.Dim {
	return op2(x, y, "/^", 1, false, func(a, b int64) int64 { return -floorDiv(-a, b) })
}
func (f *fake) Mod(x, y optab.Dim) optab.Dim {
	return op2(x, y, "%", 0, false, func(a, b int64) int64 { return a - b*floorDiv(a, b) })
}

func (f *fake) minMax(name string, xs []optab.Dim, pick func(a, b int64) int64) optab.Dim {
	var parts []string
	allC, acc := true, int64(0)
	for i, x := range xs {
		d := x.(fdim)
		if d.unk {
			return d
		}
		if !d.isC {
			allC = false
		} else if i == 0 {
			acc = d.c
		} else {
			acc = pick(acc, d.c)
		}
		parts = append(parts, d.String())
	}
	if allC && len(xs) > 0 {
		return fk(acc)
	}
	return fdim{s: name + "(" + strings.Join(parts, ",") + ")"}
}

func (f *fake) Max(xs ...optab.Dim) optab.Dim {
	return f.minMax("max", xs, func(a, b int64) int64 { return max(a, b) })
}
func (f *fake) Min(xs ...optab.Dim) optab.Dim {
	return f.minMax("min", xs, func(a, b int64) int64 { return min(a, b) })
}

func (f *fake) Equate(x, y optab.Dim) {
	a, b := x.(fdim), y.(fdim)
	if !a.unk && !b.unk && a.String() != b.String() {
		f.log = append(f.log, a.String()+"="+b.String())
	}
}

func (f *fake) Same(x, y optab.Dim) bool {
	a, b := x.(fdim), y.(fdim)
	return !a.unk && !b.unk && a.String() == b.String()
}

func (f *fake) AttrDims(op *textir.Operation, attr string, bind *textir.Value) []optab.Dim {
	s, ok := tfg.ShapeOf(op.Attr(attr))
	if !ok || s.UnknownRank {
		return nil
	}
	out := make([]optab.Dim, len(s.Dims))
	for i, d := range s.Dims {
		switch {
		case d >= 0:
			out[i] = fk(d)
		case bind == nil:
			out[i] = fdim{unk: true}
		default:
			out[i] = fdim{s: tfg.NodeName(op) + ".d" + strconv.Itoa(i)}
			f.log = append(f.log, "input "+out[i].(fdim).s)
		}
	}
	return out
}

func (f *fake) Count(op *textir.Operation, suffix string, v *textir.Value, dim int) optab.Dim {
	s := tfg.NodeName(op) + suffix
	bound := "unbound"
	if v != nil {
		bound = "bound to dim " + strconv.Itoa(dim)
	}
	f.log = append(f.log, "count "+s+" "+bound)
	return fdim{s: s}
}

// parseDims reads "b,4,?" ("" is rank 0, "*" unknown rank).
func parseDims(s string) []optab.Dim {
	if s == "*" {
		return nil
	}
	out := []optab.Dim{}
	if s == "" {
		return out
	}
	for _, p := range strings.Split(s, ",") {
		if p == "?" {
			out = append(out, fdim{unk: true})
		} else if k, err := strconv.ParseInt(p, 10, 64); err == nil {
			out = append(out, fk(k))
		} else {
			out = append(out, fdim{s: p})
		}
	}
	return out
}

func formatDims(ds []optab.Dim) string {
	if ds == nil {
		return "*"
	}
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = d.(fdim).String()
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// in is an operand of a case: its element type, dims and content
// ("dims" or "dims;content"; "" leaves them to the type: unknown rank).
type in struct {
	elem textir.Type
	spec string
}

func i32(spec string) in { return in{textir.I32(), spec} }
func f32(spec string) in { return in{textir.F32(), spec} }

type shapeCase struct {
	op    string
	attrs map[string]textir.Attribute
	ins   []in
	outs  []textir.Type // data result element types (default i32, as many as the signature has)
	want  string        // each set result "#i dims{content}", then the log
}

// runShape makes op (named "n") over operands described by c.ins, runs its
// row's shape function with a fake context and prints what it set.
func runShape(t *testing.T, ctx *textir.Context, c shapeCase) string {
	t.Helper()
	row, ok := optab.Lookup(c.op)
	if !ok {
		t.Fatalf("no row %s", c.op)
	}
	f := &fake{info: map[*textir.Value][2][]optab.Dim{}}
	blk := textir.NewBlock()
	st := &textir.OperationState{Name: row.FullName(), Loc: textir.NameLoc{Name: "n"}}
	for _, x := range c.ins {
		v := blk.AddArgument(textir.UnrankedTensorOf(x.elem))
		if x.spec != "" {
			dims, content, _ := strings.Cut(x.spec, ";")
			var ct []optab.Dim
			if strings.Contains(x.spec, ";") {
				ct = parseDims(content)
			}
			f.info[v] = [2][]optab.Dim{parseDims(dims), ct}
		}
		st.Operands = append(st.Operands, v)
	}
	for k, a := range c.attrs {
		st.AddAttr(k, a)
	}
	outs := c.outs
	if outs == nil {
		for range row.Outputs {
			outs = append(outs, textir.I32())
		}
	}
	for _, e := range outs {
		st.ResultTypes = append(st.ResultTypes, textir.UnrankedTensorOf(e))
	}
	st.ResultTypes = append(st.ResultTypes, tfg.Control())
	op := ctx.Create(st)
	if row.Shape == nil {
		return "no shape function"
	}
	row.Shape(f, op)
	var parts []string
	for i := range len(outs) {
		if rec, ok := f.info[op.Result(i)]; ok {
			s := fmt.Sprintf("#%d %s", i, formatDims(rec[0]))
			if rec[1] != nil {
				s += "{" + strings.Trim(formatDims(rec[1]), "[]") + "}"
			}
			parts = append(parts, s)
		}
	}
	parts = append(parts, f.log...)
	return strings.Join(parts, "; ")
}

func ia(v int64) textir.Attribute { return textir.I64Attr(v) }
func ba(v bool) textir.Attribute  { return textir.BoolAttr{Value: v} }
func ints(vs ...int64) textir.Attribute {
	var es []textir.Attribute
	for _, v := range vs {
		es = append(es, textir.I64Attr(v))
	}
	return textir.ArrayAttr{Elems: es}
}
func types(n int) textir.Attribute {
	var es []textir.Attribute
	for range n {
		es = append(es, textir.TypeAttr{Type: textir.I32()})
	}
	return textir.ArrayAttr{Elems: es}
}

// TestShapeFunctions runs every shape function of the table on small
// cases, as TensorFlow's shape_inference_testutil does: operands with
// given dims and contents in, the results' dims and contents out.
func TestShapeFunctions(t *testing.T) {
	ctx := textir.NewContext(builtin.Dialect(), tfg.Dialect())
	shape := func(s string) map[string]textir.Attribute {
		sh, err := tfg.ParseShape(s)
		if err != nil {
			t.Fatal(err)
		}
		return map[string]textir.Attribute{"shape": tfg.ShapeAttr(sh)}
	}
	dense := func(vs ...int64) map[string]textir.Attribute {
		return map[string]textir.Attribute{"value": textir.DenseInts(textir.TensorOf([]int64{int64(len(vs))}, textir.I32()), vs)}
	}
	for _, c := range []struct {
		name string
		shapeCase
	}{
		// Sources.
		{"Placeholder", shapeCase{op: "Placeholder", attrs: shape("?x4"), want: "#0 [n.d0,4]; input n.d0"}},
		{"Placeholder/unknown rank", shapeCase{op: "Placeholder", attrs: shape("*"), want: "#0 *"}},
		{"VariableV2", shapeCase{op: "VariableV2", attrs: shape("?x8"), want: "#0 [?,8]"}},
		{"Const", shapeCase{op: "Const", attrs: dense(3, -1), want: "#0 [2]{3,-1}"}},
		{"PlaceholderWithDefault", shapeCase{op: "PlaceholderWithDefault", ins: []in{i32("2;b,3")}, want: "#0 [2]{b,3}"}},
		// Shapes of tensors.
		{"Shape", shapeCase{op: "Shape", ins: []in{f32("b,4")}, want: "#0 [2]{b,4}"}},
		{"Shape/unknown rank", shapeCase{op: "Shape", ins: []in{f32("")}, want: "#0 [?]"}},
		{"ShapeN", shapeCase{op: "ShapeN", attrs: map[string]textir.Attribute{"N": ia(2)}, ins: []in{f32("b"), f32("3,b")},
			outs: []textir.Type{textir.I32(), textir.I32()}, want: "#0 [1]{b}; #1 [2]{3,b}"}},
		{"Size", shapeCase{op: "Size", ins: []in{f32("b,4")}, want: "#0 []{(b*4)}"}},
		{"Rank", shapeCase{op: "Rank", ins: []in{f32("b,4")}, want: "#0 []{2}"}},
		// Elementwise.
		{"Cast/int", shapeCase{op: "Cast", ins: []in{i32("2;b,4")}, outs: []textir.Type{textir.I64()}, want: "#0 [2]{b,4}"}},
		{"Cast/float", shapeCase{op: "Cast", ins: []in{i32("2;b,4")}, outs: []textir.Type{textir.F32()}, want: "#0 [2]"}},
		{"Identity", shapeCase{op: "Identity", ins: []in{i32("1;b")}, want: "#0 [1]{b}"}},
		{"Relu (unary class)", shapeCase{op: "Relu", ins: []in{f32("b,8")}, want: "#0 [b,8]"}},
		{"Softmax (same-shape class)", shapeCase{op: "Softmax", ins: []in{f32("b,8")}, want: "#0 [b,8]"}},
		{"Add/broadcast", shapeCase{op: "AddV2", ins: []in{f32("b,1,4"), f32("3,1")}, outs: []textir.Type{textir.F32()}, want: "#0 [b,3,4]"}},
		{"Add/equate", shapeCase{op: "Add", ins: []in{f32("b,4"), f32("c,4")}, outs: []textir.Type{textir.F32()}, want: "#0 [b,4]; b=c"}},
		{"Add/content", shapeCase{op: "Add", ins: []in{i32("2;b,4"), i32(";1")}, want: "#0 [2]{(b+1),5}"}},
		{"Sub/content", shapeCase{op: "Sub", ins: []in{i32("1;b"), i32("1;1")}, want: "#0 [1]{(b-1)}"}},
		{"Mul/content", shapeCase{op: "Mul", ins: []in{i32(";b"), i32(";4")}, want: "#0 []{(b*4)}"}},
		{"FloorDiv/by zero", shapeCase{op: "FloorDiv", ins: []in{i32(";7"), i32(";0")}, want: "#0 []{?}"}},
		{"FloorMod/content", shapeCase{op: "FloorMod", ins: []in{i32(";-7"), i32(";3")}, want: "#0 []{2}"}},
		{"Maximum/content", shapeCase{op: "Maximum", ins: []in{i32("2;b,4"), i32(";1")}, want: "#0 [2]{max(b,1),4}"}},
		{"Minimum/content", shapeCase{op: "Minimum", ins: []in{i32(";3"), i32(";1")}, want: "#0 []{1}"}},
		{"RealDiv/no fold", shapeCase{op: "RealDiv", ins: []in{i32(";4"), i32(";2")}, want: "#0 []"}},
		{"Less/bool", shapeCase{op: "Less", ins: []in{i32(";4"), i32(";2")}, outs: []textir.Type{textir.I1()}, want: "#0 []"}},
		{"Add/unknown rank", shapeCase{op: "Add", ins: []in{f32("b,4"), f32("")}, want: "#0 *"}},
		{"BiasAdd", shapeCase{op: "BiasAdd", ins: []in{f32("b,4"), f32("c")}, want: "#0 [b,4]; 4=c"}},
		{"BiasAdd/NCHW", shapeCase{op: "BiasAdd", attrs: map[string]textir.Attribute{"data_format": textir.StringAttr{Value: "NCHW"}},
			ins: []in{f32("b,c,5,5"), f32("3")}, want: "#0 [b,c,5,5]; c=3"}},
		{"Select/vector condition", shapeCase{op: "Select", ins: []in{in{textir.I1(), "b"}, f32("c,4"), f32("d,4")},
			want: "#0 [c,4]; c=d; b=c"}},
		{"SelectV2", shapeCase{op: "SelectV2", ins: []in{in{textir.I1(), "b,1"}, f32("1,4"), f32("")}, want: "#0 *"}},
		{"MatMul", shapeCase{op: "MatMul", attrs: map[string]textir.Attribute{"transpose_b": ba(true)}, ins: []in{f32("b,k"), f32("8,j")},
			want: "#0 [b,8]; k=j"}},
		{"MatMul/rank 1", shapeCase{op: "MatMul", ins: []in{f32("k"), f32("k,8")}, want: "#0 *"}},
		// Packing, slicing, joining.
		{"Pack/scalars", shapeCase{op: "Pack", attrs: map[string]textir.Attribute{"N": ia(2)}, ins: []in{i32(";b"), i32(";4")},
			want: "#0 [2]{b,4}"}},
		{"Pack/axis 1", shapeCase{op: "Pack", attrs: map[string]textir.Attribute{"N": ia(3), "axis": ia(1)},
			ins: []in{f32("b,4"), f32("c,4"), f32("")}, want: "#0 [b,3,4]; b=c"}},
		{"Unpack", shapeCase{op: "Unpack", attrs: map[string]textir.Attribute{"num": ia(2)}, ins: []in{i32("2;b,4")},
			outs: []textir.Type{textir.I32(), textir.I32()}, want: "#0 []{b}; #1 []{4}"}},
		{"Sum/keep_dims", shapeCase{op: "Sum", attrs: map[string]textir.Attribute{"keep_dims": ba(true)},
			ins: []in{f32("b,4,8"), i32("2;1,-1")}, want: "#0 [b,1,1]"}},
		{"Prod/content", shapeCase{op: "Prod", ins: []in{i32("2;b,4"), i32(";0")}, want: "#0 []{(b*4)}"}},
		{"Sum/content", shapeCase{op: "Sum", ins: []in{i32("2;b,4"), i32(";0")}, want: "#0 []{(b+4)}"}},
		{"Max/content", shapeCase{op: "Max", ins: []in{i32("2;b,4"), i32(";0")}, want: "#0 []{max(b,4)}"}},
		{"Mean/no content", shapeCase{op: "Mean", ins: []in{i32("2;b,4"), i32(";0")}, want: "#0 []"}},
		{"Min/empty", shapeCase{op: "Min", ins: []in{i32("0;"), i32(";0")}, want: "#0 []"}},
		{"All/axes unknown", shapeCase{op: "All", ins: []in{in{textir.I1(), "b"}, i32("")}, want: "#0 *"}},
		{"StridedSlice/element", shapeCase{op: "StridedSlice", attrs: map[string]textir.Attribute{"shrink_axis_mask": ia(1)},
			ins: []in{i32("2;b,4"), i32("1;1"), i32("1;2"), i32("1;1")}, want: "#0 []{4}"}},
		{"StridedSlice/range", shapeCase{op: "StridedSlice",
			ins: []in{i32("3;b,4,5"), i32("1;1"), i32("1;3"), i32("1;1")}, want: "#0 [2]{4,5}"}},
		{"StridedSlice/symbolic prefix", shapeCase{op: "StridedSlice", attrs: map[string]textir.Attribute{"end_mask": ia(2)},
			ins: []in{f32("b,4"), i32("2;0,1"), i32("2;2,0"), i32("2;1,1")}, want: "#0 [max(0,(min(2,b)-min(0,b))),3]"}},
		{"StridedSlice/ellipsis", shapeCase{op: "StridedSlice", attrs: map[string]textir.Attribute{"ellipsis_mask": ia(1)},
			ins: []in{f32("b,4"), i32("1;0"), i32("1;1"), i32("1;1")}, want: "#0 *"}},
		{"StridedSlice/empty begin", shapeCase{op: "StridedSlice", ins: []in{i32("2;b,4"), i32("0;"), i32("0;"), i32("0;")},
			want: "#0 [2]"}},
		{"Slice", shapeCase{op: "Slice", ins: []in{i32("4;a,b,c,d"), i32("1;1"), i32("1;-1")}, want: "#0 [3]{b,c,d}"}},
		{"Slice/2-D", shapeCase{op: "Slice", ins: []in{f32("b,8"), i32("2;0,2"), i32("2;-1,3")}, want: "#0 [b,3]"}},
		{"GatherV2", shapeCase{op: "GatherV2", ins: []in{f32("v,8"), i32("b,3"), i32(";0")}, want: "#0 [b,3,8]"}},
		{"GatherV2/content", shapeCase{op: "GatherV2", ins: []in{i32("3;b,4,5"), i32("2;2,0"), i32(";0")}, want: "#0 [2]{5,b}"}},
		{"Gather", shapeCase{op: "Gather", ins: []in{f32("v,8"), i32("n")}, want: "#0 [n,8]"}},
		{"GatherV2/batch_dims", shapeCase{op: "GatherV2", attrs: map[string]textir.Attribute{"batch_dims": ia(1)},
			ins: []in{f32("v,8"), i32("n"), i32(";0")}, want: "#0 *"}},
		{"ConcatV2", shapeCase{op: "ConcatV2", attrs: map[string]textir.Attribute{"N": ia(2)}, ins: []in{f32("b,4"), f32("c,8"), i32(";-1")},
			want: "#0 [b,12]; b=c"}},
		{"ConcatV2/content", shapeCase{op: "ConcatV2", attrs: map[string]textir.Attribute{"N": ia(2)}, ins: []in{i32("1;b"), i32("2;4,5"), i32(";0")},
			want: "#0 [3]{b,4,5}"}},
		{"Concat", shapeCase{op: "Concat", attrs: map[string]textir.Attribute{"N": ia(2)}, ins: []in{i32(";0"), f32("b"), f32("")},
			want: "#0 [?]"}},
		{"Reshape/-1", shapeCase{op: "Reshape", ins: []in{f32("b,4,2"), i32("2;-1,8")}, want: "#0 [(((b*4)*2)/8),8]"}},
		{"Reshape/equal sizes", shapeCase{op: "Reshape", ins: []in{f32("b,4"), i32("2;c,4")}, want: "#0 [c,4]; (b*4)=(c*4); b=c"}},
		{"Reshape/unknown content", shapeCase{op: "Reshape", ins: []in{f32("b,4"), i32("3")}, want: "#0 [?,?,?]"}},
		{"Reshape/content", shapeCase{op: "Reshape", ins: []in{i32("1,1;b"), i32("1;-1")}, want: "#0 [1]{b}"}},
		{"ExpandDims", shapeCase{op: "ExpandDims", ins: []in{i32("1;b"), i32(";-1")}, want: "#0 [1,1]{b}"}}, // the context drops content of rank 2
		{"ExpandDims/scalar", shapeCase{op: "ExpandDims", ins: []in{i32(";b"), i32(";0")}, want: "#0 [1]{b}"}},
		{"Squeeze/dims", shapeCase{op: "Squeeze", attrs: map[string]textir.Attribute{"squeeze_dims": ints(-1)}, ins: []in{f32("b,c")},
			want: "#0 [b]"}},
		{"Squeeze/ones", shapeCase{op: "Squeeze", ins: []in{f32("1,4,1")}, want: "#0 [4]"}},
		{"Squeeze/symbolic", shapeCase{op: "Squeeze", ins: []in{f32("b,1")}, want: "#0 *"}},
		{"Fill", shapeCase{op: "Fill", ins: []in{i32("1;3"), i32(";b")}, want: "#0 [3]{b,b,b}"}},
		{"Fill/negative", shapeCase{op: "Fill", ins: []in{i32("1;-1"), i32(";b")}, want: "#0 [-1]"}},
		{"Tile", shapeCase{op: "Tile", ins: []in{i32("2;b,4"), i32("1;2")}, want: "#0 [4]{b,4,b,4}"}},
		{"Transpose", shapeCase{op: "Transpose", ins: []in{f32("b,4,8"), i32("3;2,0,1")}, want: "#0 [8,b,4]"}},
		{"Transpose/bad perm", shapeCase{op: "Transpose", ins: []in{f32("b,4"), i32("2;2,0")}, want: ""}},
		{"Range", shapeCase{op: "Range", ins: []in{i32(";0"), i32(";b"), i32(";2")}, want: "#0 [max(0,(b/^2))]"}},
		{"Range/content", shapeCase{op: "Range", ins: []in{i32(";5"), i32(";1"), i32(";-2")}, want: "#0 [2]{5,3}"}},
		{"Range/delta unknown", shapeCase{op: "Range", ins: []in{i32(";0"), i32(";4"), i32(";d")}, want: "#0 [?]"}},
		// Data-dependent sizes.
		{"Unique", shapeCase{op: "Unique", ins: []in{i32("b")}, want: "#0 [n.n]; #1 [b]; count n.n bound to dim -1"}},
		{"Where", shapeCase{op: "Where", ins: []in{in{textir.I1(), "b,4"}}, outs: []textir.Type{textir.I64()},
			want: "#0 [n.n,2]; count n.n bound to dim 0"}},
		{"StringSplitV2", shapeCase{op: "StringSplitV2", ins: []in{in{tfg.String(), "b"}, in{tfg.String(), ""}},
			outs: []textir.Type{textir.I64(), tfg.String(), textir.I64()},
			want: "#0 [n.n,2]; #1 [n.n]; #2 [2]{b,n.max}; count n.n bound to dim -1; count n.max unbound"}},
		{"IdentityN", shapeCase{op: "IdentityN", attrs: map[string]textir.Attribute{"T": types(1)}, ins: []in{i32("b")}, want: "no shape function"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := runShape(t, ctx, c.shapeCase); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

// TestReadVariableShape reads the shape of the VarHandleOp behind the handle.
func TestReadVariableShape(t *testing.T) {
	ops := graph(t, `
%h:2 = "tfg.VarHandleOp"() {_mlir_name = "h", dtype = f32, shape = #tfg.shape<?x8>} : () -> (tensor<*x!tfg.resource>, !tfg.control)
%r:2 = "tfg.ReadVariableOp"(%h#0) {_mlir_name = "r", dtype = f32} : (tensor<*x!tfg.resource>) -> (tensor<*xf32>, !tfg.control)`)
	f := &fake{info: map[*textir.Value][2][]optab.Dim{}}
	row, _ := optab.Lookup("ReadVariableOp")
	row.Shape(f, ops["r"])
	if got := formatDims(f.Dims(ops["r"].Result(0))); got != "[?,8]" {
		t.Errorf("dims %s, want [?,8]", got)
	}
	if h, _ := optab.Lookup("VarHandleOp"); h.Shape != nil {
		t.Error("VarHandleOp has a shape function: its result is a handle")
	}
}

// TestClasses pins the ops of each class: passes treat the members of a
// class alike (--simplify-shapes erases them in dead shape chains).
func TestClasses(t *testing.T) {
	want := map[optab.Class][]string{
		optab.Unary: {"Abs", "AsString", "Bucketize", "Cast", "Ceil", "CheckNumerics", "Elu", "Erf", "Exp", "Floor", "Identity",
			"IsFinite", "IsNan", "LeakyRelu", "Log", "Log1p", "LogicalNot", "Neg", "OnesLike", "PreventGradient", "Reciprocal",
			"Relu", "Relu6", "Round", "Rsqrt", "Selu", "Sigmoid", "Sign", "Snapshot", "Softplus", "Sqrt", "Square", "StopGradient",
			"StringToHashBucket", "StringToHashBucketFast", "StringToHashBucketStrong", "Tanh", "ZerosLike"},
		optab.Binary: {"Add", "AddV2", "BitwiseAnd", "BitwiseOr", "Div", "DivNoNan", "Equal", "FloorDiv", "FloorMod", "Greater",
			"GreaterEqual", "Less", "LessEqual", "LogicalAnd", "LogicalOr", "Maximum", "Minimum", "Mul", "NotEqual", "Pow",
			"RealDiv", "SquaredDifference", "Sub", "TruncateDiv"},
		optab.SameShape: {"LogSoftmax", "Softmax"},
	}
	got := map[optab.Class][]string{}
	for _, o := range optab.All() {
		if o.Class != optab.Opaque {
			got[o.Class] = append(got[o.Class], o.Name)
		}
		if o.Class != optab.Opaque && o.Shape == nil {
			t.Errorf("%s: class %s without a shape function", o.Name, o.Class)
		}
	}
	for cl, names := range want {
		if !slices.Equal(got[cl], names) {
			t.Errorf("class %s: %v\nwant %v", cl, got[cl], names)
		}
	}
	if len(got) != len(want) {
		t.Errorf("classes %v", got)
	}
}

// TestInterpOpShapeFunctions covers the shape functions of BroadcastTo,
// ArgMax, ArgMin, ParseExample and ParseExampleV2.
func TestInterpOpShapeFunctions(t *testing.T) {
	ctx := textir.NewContext(builtin.Dialect(), tfg.Dialect())
	shapes := func(ss ...string) textir.Attribute {
		var es []textir.Attribute
		for _, s := range ss {
			sh, err := tfg.ParseShape(s)
			if err != nil {
				t.Fatal(err)
			}
			es = append(es, tfg.ShapeAttr(sh))
		}
		return textir.ArrayAttr{Elems: es}
	}
	i64 := func(n int) []textir.Type {
		out := make([]textir.Type, n)
		for i := range out {
			out[i] = textir.I64()
		}
		return out
	}
	str := textir.OpaqueTypeOf("tfg", "string", "")
	for _, c := range []struct {
		name string
		shapeCase
	}{
		{"BroadcastTo", shapeCase{op: "BroadcastTo", ins: []in{f32("4"), i32("2;b,4")}, outs: []textir.Type{textir.F32()}, want: "#0 [b,4]"}},
		{"BroadcastTo/fill", shapeCase{op: "BroadcastTo", ins: []in{i32(";7"), i32("1;3")}, want: "#0 [3]{7,7,7}"}},
		{"BroadcastTo/unknown shape", shapeCase{op: "BroadcastTo", ins: []in{f32("4"), i32("2")}, want: ""}},
		{"ArgMax", shapeCase{op: "ArgMax", ins: []in{f32("b,3,5"), i32(";-2")}, outs: i64(1), want: "#0 [b,5]"}},
		{"ArgMin/axis unknown", shapeCase{op: "ArgMin", ins: []in{f32("b,3"), i32("")}, outs: i64(1), want: ""}},
		{"ParseExample", shapeCase{op: "ParseExample",
			attrs: map[string]textir.Attribute{"Nsparse": ia(1), "Ndense": ia(2), "sparse_types": types(1), "Tdense": types(2),
				"dense_shapes": shapes(`?x2`, `1x3"named x"`)},
			ins:  []in{{str, "b"}, {str, ""}, {str, ""}, {str, ""}, {str, ""}, f32(""), f32("")},
			outs: []textir.Type{textir.I64(), textir.I32(), textir.I64(), textir.F32(), textir.F32()},
			want: "#0 [n.sparse0.n,2]; #1 [n.sparse0.n]; #2 [2]{b,n.sparse0.max}; #3 [b,n.dense0.rows,2]; #4 [b,1,3]; " +
				"count n.sparse0.n bound to dim 0; count n.sparse0.max unbound; count n.dense0.rows bound to dim 1"}},
		{"ParseExampleV2/scalar", shapeCase{op: "ParseExampleV2",
			attrs: map[string]textir.Attribute{"num_sparse": ia(1), "sparse_types": types(1), "Tdense": types(1), "dense_shapes": shapes(`?`),
				"ragged_value_types": types(1), "ragged_split_types": types(1)},
			ins:  []in{{str, ";"}, {str, ""}, {str, ""}, {str, ""}, {str, ""}, f32("")},
			outs: []textir.Type{textir.I64(), textir.I32(), textir.I64(), textir.F32(), textir.F32(), textir.I32()},
			want: "#0 [n.sparse0.n,1]; #1 [n.sparse0.n]; #2 [1]{n.sparse0.n}; #3 [n.dense0.rows]; #4 [n.ragged0.n]; #5 [0]; " +
				"count n.sparse0.n bound to dim 0; count n.dense0.rows bound to dim 0; count n.ragged0.n bound to dim 0"}},
		{"ParseExampleV2/batch", shapeCase{op: "ParseExampleV2",
			attrs: map[string]textir.Attribute{"num_sparse": ia(0), "sparse_types": types(0), "Tdense": types(0), "dense_shapes": shapes(),
				"ragged_value_types": types(1), "ragged_split_types": types(1)},
			ins:  []in{{str, "b"}, {str, ""}, {str, ""}, {str, ""}, {str, ""}},
			outs: []textir.Type{textir.F32(), textir.I32()},
			want: "#0 [n.ragged0.n]; #1 [(b+1)]; count n.ragged0.n bound to dim 0"}},
		{"ParseExample/serialized of unknown rank", shapeCase{op: "ParseExample",
			attrs: map[string]textir.Attribute{"Nsparse": ia(0), "Ndense": ia(0), "sparse_types": types(0), "Tdense": types(0), "dense_shapes": shapes()},
			ins:   []in{{str, ""}, {str, ""}}, outs: []textir.Type{}, want: ""}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := runShape(t, ctx, c.shapeCase); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}
