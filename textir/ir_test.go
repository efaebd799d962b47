package textir

import (
	"testing"
)

func testCtx() *Context {
	c := NewContext()
	c.AllowUnregistered = true
	return c
}

func mkOp(ctx *Context, name string, operands []*Value, results ...Type) *Operation {
	return ctx.Create(&OperationState{Name: name, Operands: operands, ResultTypes: results})
}

func TestUseListsAndRAUW(t *testing.T) {
	ctx := testCtx()
	blk := NewBlock(I32())
	a := blk.Arg(0)
	c := mkOp(ctx, "test.c", nil, I32())
	blk.Append(c)
	x := mkOp(ctx, "test.add", []*Value{a, a}, I32())
	y := mkOp(ctx, "test.neg", []*Value{a}, I32())
	blk.Append(x)
	blk.Append(y)
	if got := a.NumUses(); got != 3 {
		t.Fatalf("uses of arg = %d, want 3", got)
	}
	a.ReplaceAllUsesWith(c.Result(0))
	if a.HasUses() || c.Result(0).NumUses() != 3 {
		t.Fatalf("after RAUW: arg uses %d, c uses %d", a.NumUses(), c.Result(0).NumUses())
	}
	for i := range x.NumOperands() {
		if x.Operand(i) != c.Result(0) {
			t.Fatalf("operand %d not replaced", i)
		}
	}
	// Replace one use only.
	c.Result(0).ReplaceUsesWithIf(a, func(u *OpOperand) bool { return u.Owner() == y })
	if y.Operand(0) != a || c.Result(0).NumUses() != 2 {
		t.Fatalf("ReplaceUsesWithIf: y uses %v, c uses %d", y.Operand(0), c.Result(0).NumUses())
	}
	// SetOperands relinks.
	x.SetOperands([]*Value{a})
	if c.Result(0).NumUses() != 0 || a.NumUses() != 2 {
		t.Fatalf("SetOperands: c uses %d, a uses %d", c.Result(0).NumUses(), a.NumUses())
	}
	// Erasing drops uses.
	y.Erase()
	if a.NumUses() != 1 || blk.Len() != 2 {
		t.Fatalf("Erase: a uses %d, block len %d", a.NumUses(), blk.Len())
	}
	if !x.Result(0).HasOneUse() == x.Result(0).HasUses() {
		t.Fatal("HasOneUse inconsistent")
	}
}

func TestBlockListOps(t *testing.T) {
	ctx := testCtx()
	blk := NewBlock()
	var ops []*Operation
	for i := 0; i < 4; i++ {
		op := mkOp(ctx, "test.op", nil)
		op.SetAttr("i", I64Attr(int64(i)))
		ops = append(ops, op)
		blk.Append(op)
	}
	order := func() []int64 {
		var got []int64
		for op := range blk.Ops() {
			got = append(got, op.Attr("i").(IntegerAttr).Value)
		}
		return got
	}
	ops[3].MoveBefore(ops[0])
	ops[1].MoveAfter(ops[2])
	want := []int64{3, 0, 2, 1}
	got := order()
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("order %v, want %v", got, want)
		}
	}
	if blk.First() != ops[3] || blk.Last() != ops[1] || blk.Len() != 4 {
		t.Fatal("first/last/len wrong")
	}
	// Erasing while iterating.
	for op := range blk.Ops() {
		if op.Attr("i").(IntegerAttr).Value%2 == 0 {
			op.Erase()
		}
	}
	got = order()
	if len(got) != 2 || got[0] != 3 || got[1] != 1 {
		t.Fatalf("after erase %v", got)
	}
}

func TestAttrsSorted(t *testing.T) {
	ctx := testCtx()
	op := ctx.Create(&OperationState{Name: "test.op", Attrs: []NamedAttribute{{"z", UnitAttr{}}, {"a", I64Attr(1)}, {"m", Str("x")}}})
	op.SetAttr("b", BoolAttr{true})
	op.SetAttr("a", I64Attr(2))
	var names []string
	for _, a := range op.Attrs() {
		names = append(names, a.Name)
	}
	if want := "a b m z"; joinStr(names) != want {
		t.Fatalf("attrs %v, want %s", names, want)
	}
	if op.Attr("a").(IntegerAttr).Value != 2 {
		t.Fatal("SetAttr did not replace")
	}
	if !op.RemoveAttr("m") || op.RemoveAttr("m") || op.Attr("m") != nil {
		t.Fatal("RemoveAttr")
	}
}

func joinStr(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out
}

func TestCloneRegions(t *testing.T) {
	ctx := testCtx()
	outer := NewBlock(I32())
	ext := outer.Arg(0)
	op := ctx.Create(&OperationState{Name: "test.loop", NumRegions: 1})
	outer.Append(op)
	b := NewBuilder(ctx)
	b0 := b.CreateBlock(op.Region(0), I32())
	inner := b.Create(&OperationState{Name: "test.add", Operands: []*Value{b0.Arg(0), ext}, ResultTypes: []Type{I32()}})
	b1 := b.CreateBlock(op.Region(0))
	b.SetInsertionPointToEnd(b0)
	b.Create(&OperationState{Name: "test.br", Successors: []*Block{b1}, Operands: []*Value{inner.Result(0)}})

	m := map[*Value]*Value{}
	cl := ctx.Clone(op, m)
	r := cl.Region(0)
	if len(r.Blocks()) != 2 {
		t.Fatalf("clone has %d blocks", len(r.Blocks()))
	}
	cadd := r.Front().First()
	if cadd.Operand(0) != r.Front().Arg(0) || cadd.Operand(1) != ext {
		t.Fatal("clone did not remap block arg or kept external value wrong")
	}
	if br := r.Front().Last(); br.Successors()[0] != r.Blocks()[1] || br.Operand(0) != cadd.Result(0) {
		t.Fatal("clone successors/operands not remapped")
	}
	if ext.NumUses() != 2 {
		t.Fatalf("external value uses = %d, want 2", ext.NumUses())
	}
	if preds := r.Blocks()[1].Predecessors(); len(preds) != 1 || preds[0] != r.Front() {
		t.Fatal("predecessors")
	}
	if cadd.ParentOp() != cl || !cl.IsAncestor(cadd) || op.IsAncestor(cadd) {
		t.Fatal("ancestry")
	}
}

func TestTypesUniqued(t *testing.T) {
	if TensorOf([]int64{2, Dynamic}, F32()) != TensorOf([]int64{2, -1}, F32()) {
		t.Fatal("tensor types not uniqued")
	}
	if got := TensorOf([]int64{2, Dynamic}, F32()).String(); got != "tensor<2x?xf32>" {
		t.Fatalf("got %s", got)
	}
	if got := TensorOf(nil, I64()).String(); got != "tensor<i64>" {
		t.Fatalf("got %s", got)
	}
	if got := FunctionTypeOf([]Type{I32(), F32()}, []Type{I64()}).String(); got != "(i32, f32) -> i64" {
		t.Fatalf("got %s", got)
	}
	if got := FunctionTypeOf(nil, []Type{I64(), I1()}).String(); got != "() -> (i64, i1)" {
		t.Fatalf("got %s", got)
	}
	if got := OpaqueTypeOf("tfg", "ref", "f32").String(); got != "!tfg.ref<f32>" {
		t.Fatalf("got %s", got)
	}
	if IntegerTypeOf(8, Unsigned).String() != "ui8" || IntegerTypeOf(8, Signed) == IntegerType(8) {
		t.Fatal("signedness")
	}
	if NumElements([]int64{1 << 40, 1 << 40}) != -1 {
		t.Fatal("overflow not detected")
	}
}

func TestDenseAccessors(t *testing.T) {
	ty := TensorOf([]int64{3}, IntegerType(16))
	d := DenseInts(ty, []int64{-2, 7, 300})
	if d.IntAt(0) != -2 || d.IntAt(2) != 300 || d.Splat {
		t.Fatal("int16 dense")
	}
	s := DenseFloats(TensorOf([]int64{4}, F32()), []float64{1.5})
	if !s.Splat || s.FloatAt(3) != 1.5 {
		t.Fatal("splat")
	}
	full := DenseFloats(TensorOf([]int64{4}, F32()), []float64{1.5, 1.5, 1.5, 1.5})
	if !AttrEqual(s, full) || AttrHash(s) != AttrHash(full) {
		t.Fatal("splat and full should be equal with equal hashes")
	}
	h := DenseFloats(TensorOf([]int64{2}, F16()), []float64{0.5, -65504})
	if h.FloatAt(0) != 0.5 || h.FloatAt(1) != -65504 {
		t.Fatalf("f16: %v %v", h.FloatAt(0), h.FloatAt(1))
	}
	u := DenseInts(TensorOf([]int64{1}, IntegerTypeOf(8, Unsigned)), []int64{255})
	if u.IntAt(0) != 255 {
		t.Fatal("ui8")
	}
	b := DenseInts(TensorOf([]int64{2}, I1()), []int64{1, 0})
	if b.IntAt(0) != 1 || b.IntAt(1) != 0 {
		t.Fatal("i1")
	}
}

func TestDiagnosticFormat(t *testing.T) {
	ctx := testCtx()
	op := mkOp(ctx, "tfg.Foo", nil)
	op.SetLoc(NameLoc{Name: "input_layer/x"})
	op.SetSourceLoc(FileLineColLoc{"m.mlir", 3, 5})
	d := op.Errorf("bad %s", "thing")
	d.AttachNote(FileLineColLoc{"m.mlir", 1, 1}, "see here")
	want := "m.mlir:3:5: error: 'tfg.Foo' op (node \"input_layer/x\") bad thing\nm.mlir:1:1: note: see here"
	if d.Error() != want {
		t.Fatalf("got\n%s\nwant\n%s", d.Error(), want)
	}
}

func TestHalfConversions(t *testing.T) {
	for _, f := range []float32{0, 1, -2, 0.333, 65504, 6.1e-5, 5.96e-8} {
		h := Float32ToHalf(f)
		back := HalfToFloat32(h)
		if Float32ToHalf(back) != h {
			t.Fatalf("%v: not stable (%#x → %v)", f, h, back)
		}
	}
	if HalfToFloat32(0x3c00) != 1 || HalfToFloat32(0x0001) != 5.9604645e-8 {
		t.Fatal("known bit patterns")
	}
}

func TestDenseOddWidths(t *testing.T) {
	ty := TensorOf([]int64{3}, IntegerType(24))
	d := DenseInts(ty, []int64{-5, 8388607, -8388608})
	for i, want := range []int64{-5, 8388607, -8388608} {
		if got := d.IntAt(int64(i)); got != want {
			t.Fatalf("i24[%d] = %d, want %d", i, got, want)
		}
	}
	u := DenseInts(TensorOf([]int64{1}, IntegerTypeOf(12, Unsigned)), []int64{4095})
	if u.IntAt(0) != 4095 {
		t.Fatalf("ui12 = %d", u.IntAt(0))
	}
	s := DenseInts(TensorOf([]int64{1}, IntegerTypeOf(4, Signed)), []int64{-3})
	if s.IntAt(0) != -3 {
		t.Fatalf("si4 = %d", s.IntAt(0))
	}
}
