package fused

// The ops of a sharded embedding layer (--shard): a layer whose tables are
// spread over several GPUs of one host becomes, per the plan in its
// #fused.shard_plan<...> attribute (abi/shardplan.go),
//
//	%t0 = fused.table_slice %t {hi = 500, lo = 0} : tensor<1000x8xf32> -> tensor<500x8xf32>
//	%ids0, %splits0, %ids1, %splits1, %den = fused.route %values, %splits {bounds = [0, 500, 1000], column = {...}} : tensor<?xi64>, tensor<?xi64>
//	%p0 = "fused.embedding_layer"(...) {device = 0 : i64, kernel = @emb::@layer_d0, ...} : (...) -> tensor<?x16xf32>
//	%p1 = "fused.embedding_layer"(...) {device = 1 : i64, kernel = @emb::@layer_d1, ...} : (...) -> tensor<?x24xf32>
//	%out = fused.exchange %p0, %p1, %den {device = 0, devices = [0, 1], kernel = @emb::@layer_combine, segments = [...]}
//	    : tensor<?x16xf32>, tensor<?x24xf32>, tensor<?xf32> -> tensor<?x32xf32>
//
// fused.table_slice is rows [lo, hi) of a table (a row-wise piece's part
// of it, uploaded to the piece's device); fused.route sends a row-wise
// column's ids to its pieces (abi/route.go); each device's
// fused.embedding_layer (attribute device) pools its columns and pieces
// into a partial output; fused.exchange gathers the partials on the dense
// device, sums the pieces of each row-wise column and divides mean and
// sqrtn columns by den (abi/exchange.go).

import (
	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/dialects/gpu"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/textir"
)

// The ops of a sharded layer.
const (
	// TableSliceOp is rows [lo, hi) of a table.
	TableSliceOp = "fused.table_slice"
	// RouteOp routes a row-wise column's ids to the pieces of its table.
	RouteOp = "fused.route"
	// ExchangeOp assembles the layer's output from the devices' partials.
	ExchangeOp = "fused.exchange"
)

// Attributes of fused.embedding_layer for sharding.
const (
	// DeviceAttr (i64) is the device a layer runs on; a layer without it
	// runs on the one GPU of an unsharded program.
	DeviceAttr = "device"
	// ShardPlanAttr is the layer's plan, #fused.shard_plan<...>.
	ShardPlanAttr = abi.ShardPlanAttrName
)

// forms prints the shared custom forms, with the sharding ops' integer
// attributes without their type.
var forms = textir.FormPrinter{UntypedInts: []string{"lo", "hi", "device"}}

func shardOps() []*textir.OpDef {
	return []*textir.OpDef{{
		Name:          TableSliceOp,
		Summary:       "rows [lo, hi) of an embedding table: a row-wise piece's part of it",
		Operands:      textir.Exactly(1),
		Results:       textir.Exactly(1),
		NamedOperands: []string{"table"},
		NamedResults:  []string{"result"},
		Attrs: []textir.AttrSpec{
			{Name: "lo", Kind: textir.IntegerAttrKind},
			{Name: "hi", Kind: textir.IntegerAttrKind},
		},
		Traits: textir.Pure,
		Verify: verifyTableSlice,
		Print:  func(p *textir.OpPrinter, op *textir.Operation) { forms.PrintCast(p, op, "->") },
		Parse:  func(p *textir.OpParser, st *textir.OperationState) error { return textir.ParseCastForm(p, st, "->") },
	}, {
		Name:          RouteOp,
		Summary:       "a row-wise column's ids sent to the pieces of its table, rebased, with the bags' denominators",
		Operands:      textir.AtLeast(1),
		Results:       textir.AtLeast(2),
		NamedOperands: []string{"inputs..."},
		NamedResults:  []string{"results..."},
		Attrs: []textir.AttrSpec{
			{Name: "bounds", Kind: textir.ArrayAttrKind},
			{Name: "column", Kind: textir.DictAttrKind},
		},
		Traits: textir.Pure,
		Verify: verifyRoute,
		Print:  printRoute,
		Parse:  parseRoute,
	}, {
		Name:          ExchangeOp,
		Summary:       "the layer's output assembled on the dense device from the devices' partial outputs",
		Operands:      textir.AtLeast(1),
		Results:       textir.Exactly(1),
		NamedOperands: []string{"inputs..."},
		NamedResults:  []string{"result"},
		Attrs: []textir.AttrSpec{
			{Name: "device", Kind: textir.IntegerAttrKind},
			{Name: "devices", Kind: textir.ArrayAttrKind},
			{Name: "kernel", Kind: textir.SymbolRefAttrKind},
			{Name: "segments", Kind: textir.ArrayAttrKind},
		},
		Traits: textir.Pure,
		Verify: verifyExchange,
		Print:  printExchange,
		Parse:  parseExchange,
	}}
}

func verifyTableSlice(op *textir.Operation) error {
	lo, _ := op.LookupAttr("lo").(textir.IntegerAttr)
	hi, _ := op.LookupAttr("hi").(textir.IntegerAttr)
	in, ok := op.Operand(0).Type().(*textir.TensorType)
	if !ok || len(in.Shape) != 2 || !in.HasStaticShape() || in.Elem != textir.F32() {
		return op.Errorf("table must be a static tensor<RxDxf32>, got %s", op.Operand(0).Type())
	}
	if lo.Value < 0 || hi.Value <= lo.Value || hi.Value > in.Shape[0] {
		return op.Errorf("rows [%d, %d) are not a non-empty range of the table's %d rows", lo.Value, hi.Value, in.Shape[0])
	}
	want := textir.TensorOf([]int64{hi.Value - lo.Value, in.Shape[1]}, textir.F32())
	if op.Result(0).Type() != textir.Type(want) {
		return op.Errorf("result must be %s, got %s", want, op.Result(0).Type())
	}
	return nil
}

func verifyRoute(op *textir.Operation) error {
	r, err := abi.RouteOf(op)
	if err != nil {
		return err
	}
	if op.NumOperands() != r.NumOperands() {
		return op.Errorf("column %q takes %d operands (its inputs less the table), got %d", r.Column.Name, r.NumOperands(), op.NumOperands())
	}
	want := r.ResultTypes()
	if op.NumResults() != len(want) {
		return op.Errorf("%d row ranges give %d results, got %d", r.Pieces(), len(want), op.NumResults())
	}
	for i, t := range want {
		if op.Result(i).Type() != t {
			return op.Errorf("result #%d must be %s, got %s", i, t, op.Result(i).Type())
		}
	}
	return nil
}

func verifyExchange(op *textir.Operation) error {
	e, err := abi.ExchangeOf(op)
	if err != nil {
		return err
	}
	for i := range e.Devices {
		def := op.Operand(i).DefiningOp()
		if def == nil || def.Name() != EmbeddingLayerOp {
			continue
		}
		if d, ok := def.LookupAttr(DeviceAttr).(textir.IntegerAttr); ok && d.Value != e.Devices[i] {
			return op.Errorf("partial #%d comes from the layer of device %d, but attribute 'devices' says %d", i, d.Value, e.Devices[i])
		}
	}
	return nil
}

// %ids0, %splits0, ..., %den = fused.route %v, %s {attrs} : operand types
func printRoute(p *textir.OpPrinter, op *textir.Operation) {
	r, err := abi.RouteOf(op)
	textir.RequireCustom(err == nil && op.NumOperands() == r.NumOperands())
	want := r.ResultTypes()
	textir.RequireCustom(len(want) == op.NumResults())
	for i, t := range want {
		textir.RequireCustom(op.Result(i).Type() == t)
	}
	p.Print(" ")
	p.PrintOperands(op.Operands())
	printAttrsUntyped(p, textir.AllAttrs(op))
	p.Print(" : ")
	p.PrintTypes(op.OperandTypes())
}

// parseOperandsAttrsTypes reads "%a, %b {attrs} : A, B", the start of a
// route's and an exchange's form: the operands, the attributes into st,
// and one type per operand (loc is the types').
func parseOperandsAttrsTypes(p *textir.OpParser, st *textir.OperationState) (ops []textir.UnresolvedOperand, ts []textir.Type, loc textir.Location, err error) {
	if ops, err = p.ParseOperandList(); err != nil {
		return nil, nil, loc, err
	}
	if err = p.ParseOptionalAttrDict(st); err != nil {
		return nil, nil, loc, err
	}
	loc = p.Loc()
	if ts, err = p.ParseColonTypeList(); err != nil {
		return nil, nil, loc, err
	}
	if len(ts) != len(ops) {
		return nil, nil, loc, textir.Errorf(loc, "expected %d operand types, but found %d", len(ops), len(ts))
	}
	return ops, ts, loc, nil
}

func parseRoute(p *textir.OpParser, st *textir.OperationState) error {
	ops, ts, loc, err := parseOperandsAttrsTypes(p, st)
	if err != nil {
		return err
	}
	// The results follow from the attributes: read them as the op would.
	probe := p.Context().Create(&textir.OperationState{Name: st.Name, Loc: loc, Attrs: st.Attrs})
	r, err := abi.RouteOf(probe)
	if err != nil {
		return err
	}
	st.ResultTypes = append(st.ResultTypes, r.ResultTypes()...)
	return p.ResolveOperands(ops, ts, &st.Operands)
}

// %r = fused.exchange %p0, %p1, %den {attrs} : operand types -> result type
// (the integers of device, devices and segments print without their type).
func printExchange(p *textir.OpPrinter, op *textir.Operation) {
	textir.RequireCustom(op.NumResults() == 1 && op.NumOperands() > 0)
	p.Print(" ")
	p.PrintOperands(op.Operands())
	printAttrsUntyped(p, textir.AllAttrs(op))
	p.Print(" : ")
	p.PrintTypes(op.OperandTypes())
	p.Print(" -> ")
	p.PrintType(op.Result(0).Type())
}

// printAttrsUntyped writes " {a = 1, b}" for attrs (or nothing), with
// printUntypedInts.
func printAttrsUntyped(p *textir.OpPrinter, attrs []textir.NamedAttribute) {
	if len(attrs) == 0 {
		return
	}
	p.Print(" ")
	printUntypedInts(p, textir.DictAttr{Entries: attrs})
}

// printUntypedInts prints a, with its i64 integers (also inside arrays
// and dictionaries) without their type: they read back as i64.
func printUntypedInts(p *textir.OpPrinter, a textir.Attribute) {
	switch v := a.(type) {
	case textir.DictAttr:
		p.Print("{")
		for i, e := range v.Entries {
			if i > 0 {
				p.Print(", ")
			}
			p.PrintKeywordOrString(e.Name)
			if _, unit := e.Value.(textir.UnitAttr); unit {
				continue
			}
			p.Print(" = ")
			printUntypedInts(p, e.Value)
		}
		p.Print("}")
		return
	case textir.IntegerAttr:
		if v.Type == textir.I64() {
			p.PrintAttrWithoutType(v)
			return
		}
	case textir.ArrayAttr:
		p.Print("[")
		for i, e := range v.Elems {
			if i > 0 {
				p.Print(", ")
			}
			printUntypedInts(p, e)
		}
		p.Print("]")
		return
	}
	p.PrintAttr(a)
}

func parseExchange(p *textir.OpParser, st *textir.OperationState) error {
	ops, ts, _, err := parseOperandsAttrsTypes(p, st)
	if err != nil {
		return err
	}
	if err := p.ParsePunct("->"); err != nil {
		return err
	}
	rt, err := p.ParseType()
	if err != nil {
		return err
	}
	st.ResultTypes = append(st.ResultTypes, rt)
	return p.ResolveOperands(ops, ts, &st.Operands)
}

// verifyShardAttrs checks a layer's device and shard_plan attributes.
func verifyShardAttrs(op *textir.Operation, l *abi.Layer) error {
	if a := op.LookupAttr(DeviceAttr); a != nil {
		d, ok := a.(textir.IntegerAttr)
		if !ok || d.Value < 0 || d.Value >= abi.MaxShardDevices {
			return op.Errorf("attribute '%s' must be an integer in [0, %d)", DeviceAttr, abi.MaxShardDevices)
		}
	}
	a := op.LookupAttr(ShardPlanAttr)
	if a == nil {
		return nil
	}
	if op.LookupAttr(DeviceAttr) != nil {
		return op.Errorf("a layer of one device (attribute '%s') cannot have a shard plan", DeviceAttr)
	}
	if _, err := abi.ShardPlanOf(a, l); err != nil {
		return op.Errorf("%v", err)
	}
	return nil
}

func init() {
	exec.Register(TableSliceOp, tableSliceKernel)
	exec.Register(RouteOp, routeKernel)
	exec.Register(ExchangeOp, exchangeKernel)
}

func tableSliceKernel(op *textir.Operation, in []*interp.Tensor, _ *exec.State) ([]*interp.Tensor, error) {
	lo := op.LookupAttr("lo").(textir.IntegerAttr).Value
	hi := op.LookupAttr("hi").(textir.IntegerAttr).Value
	t := in[0]
	f := t.Float32s()
	if f == nil || t.Rank() != 2 || t.Dim(0) < hi {
		return nil, op.Errorf("the table must be a float32 matrix of at least %d rows, got %v of shape %s", hi, t.DType(), interp.ShapeString(t.Shape()))
	}
	d := t.Dim(1)
	out, err := interp.New([]int64{hi - lo, d}, append([]float32(nil), f[lo*d:hi*d]...))
	if err != nil {
		return nil, err
	}
	return []*interp.Tensor{out}, nil
}

func routeKernel(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
	m, err := st.Memo(func() (any, error) { return abi.RouteOf(op) })
	if err != nil {
		return nil, err
	}
	r := m.(*abi.Route)
	x, err := routeInput(op, r, in)
	if err != nil {
		return nil, err
	}
	pieces, den, err := r.Run(x)
	if err != nil {
		return nil, op.Errorf("%v", err)
	}
	var out []*interp.Tensor
	for _, pc := range pieces {
		out = append(out, interp.Vector(pc.Ids...), interp.Vector(pc.Splits...))
		if r.Column.Weighted {
			out = append(out, interp.Vector(pc.Weights...))
		}
	}
	if den != nil {
		out = append(out, interp.Vector(den...))
	}
	return out, nil
}

// routeInput reads a route's operand values as the column's inputs.
func routeInput(op *textir.Operation, r *abi.Route, in []*interp.Tensor) (*abi.ColumnInput, error) {
	c := &r.Column
	x := &abi.ColumnInput{}
	var err error
	if c.Source == abi.SourceIDs {
		if x.Ids, err = abi.IntVector(op, "ids", in[0]); err != nil {
			return nil, err
		}
	} else {
		x.Values = in[0]
		if c.Source == abi.SourceSplit && in[0].Rank() == 2 && in[0].Dim(1) == 1 {
			if x.Values, err = in[0].Reshaped([]int64{in[0].Dim(0)}); err != nil {
				return nil, op.Errorf("%v", err)
			}
		}
	}
	k := 1
	if c.HasSplits() {
		if x.Splits, err = abi.IntVector(op, "row splits", in[k]); err != nil {
			return nil, err
		}
		k++
	}
	if c.Weighted {
		if x.Weights = in[k].Float32s(); x.Weights == nil {
			return nil, op.Errorf("weights must be float32, got %v", in[k].DType())
		}
	}
	return x, nil
}

type compiledExchange struct {
	e *abi.Exchange
	k *gpu.Kernel
}

// exchangeKernel runs the combine kernel in the simulator over the
// partials and dens (so that the kernel is checked against the
// interpreter, as the layers' are).
func exchangeKernel(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
	m, err := st.Memo(func() (any, error) {
		e, err := abi.ExchangeOf(op)
		if err != nil {
			return nil, err
		}
		k, err := compileRef(op, "kernel")
		if err != nil {
			return nil, err
		}
		return &compiledExchange{e, k}, nil
	})
	if err != nil {
		return nil, err
	}
	c := m.(*compiledExchange)
	partials, dens, err := ExchangeInputs(op, c.e, in)
	if err != nil {
		return nil, err
	}
	out, b, err := c.e.Run(c.k, partials, dens)
	if err != nil {
		return nil, op.Errorf("%v", err)
	}
	t, err := interp.New([]int64{b, c.e.Width}, out)
	if err != nil {
		return nil, err
	}
	return []*interp.Tensor{t}, nil
}

// ExchangeInputs reads an exchange's operand values: the partials and the
// dens, checked for their shapes and a common batch.
func ExchangeInputs(op *textir.Operation, e *abi.Exchange, in []*interp.Tensor) (partials, dens [][]float32, err error) {
	if len(in) != len(e.Widths)+e.Dens {
		return nil, nil, op.Errorf("takes %d operands, got %d", len(e.Widths)+e.Dens, len(in))
	}
	b := int64(-1)
	for i, t := range in {
		f := t.Float32s()
		if i < len(e.Widths) {
			if f == nil || t.Rank() != 2 || t.Dim(1) != e.Widths[i] {
				return nil, nil, op.Errorf("partial #%d must be a float32 [B, %d] matrix, got %v of shape %s", i, e.Widths[i], t.DType(), interp.ShapeString(t.Shape()))
			}
			partials = append(partials, f)
		} else {
			if f == nil || t.Rank() != 1 {
				return nil, nil, op.Errorf("den #%d must be a float32 vector, got %v of shape %s", i-len(e.Widths), t.DType(), interp.ShapeString(t.Shape()))
			}
			dens = append(dens, f)
		}
		if b >= 0 && t.Dim(0) != b {
			return nil, nil, op.Errorf("operand #%d has %d rows, operand #0 has %d", i, t.Dim(0), b)
		}
		b = t.Dim(0)
	}
	return partials, dens, nil
}
