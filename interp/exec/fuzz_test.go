package exec_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/frontend/graphdef"
	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
	"github.com/recom-compiler/recom/frontend/importer"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/textir"
)

// fuzzBytes hands out the fuzzer's bytes as small choices; past the end it
// gives zeros, so every input is a program.
type fuzzBytes struct {
	b []byte
	i int
}

func (f *fuzzBytes) byte() byte {
	if f.i >= len(f.b) {
		return 0
	}
	c := f.b[f.i]
	f.i++
	return c
}

func (f *fuzzBytes) done() bool { return f.i >= len(f.b) }

// intn returns a choice in [0, n).
func (f *fuzzBytes) intn(n int) int {
	if n <= 1 {
		return 0
	}
	v := int(f.byte())
	if n > 256 {
		v = v<<8 | int(f.byte())
	}
	return v % n
}

// small returns a small integer, now and then a hostile one (negative, huge).
func (f *fuzzBytes) small() int64 {
	c := f.byte()
	switch c {
	case 250:
		return -1
	case 251:
		return math.MaxInt32
	case 252:
		return 1 << 40
	case 253:
		return math.MinInt64
	case 254:
		return 100000
	case 255:
		return math.MaxInt64
	}
	return int64(c%8) - 1
}

var fuzzDTypes = []tfpb.DataType{tfpb.DataType_DT_FLOAT, tfpb.DataType_DT_INT32, tfpb.DataType_DT_INT64, tfpb.DataType_DT_STRING,
	tfpb.DataType_DT_BOOL, tfpb.DataType_DT_DOUBLE}

// tensor is a small random TensorProto of dtype dt (rank ≤ 2, ≤ 4 per dim).
func (f *fuzzBytes) tensor(dt tfpb.DataType) *tfpb.TensorProto {
	t := &tfpb.TensorProto{Dtype: dt, TensorShape: &tfpb.TensorShapeProto{}}
	n := int64(1)
	for range f.intn(3) {
		d := int64(f.intn(5))
		t.TensorShape.Dim = append(t.TensorShape.Dim, &tfpb.TensorShapeProto_Dim{Size: d})
		n *= d
	}
	for range n {
		switch dt {
		case tfpb.DataType_DT_FLOAT:
			t.FloatVal = append(t.FloatVal, float32(f.small())/2)
		case tfpb.DataType_DT_DOUBLE:
			t.DoubleVal = append(t.DoubleVal, float64(f.small())/2)
		case tfpb.DataType_DT_INT32:
			t.IntVal = append(t.IntVal, int32(f.small()))
		case tfpb.DataType_DT_INT64:
			t.Int64Val = append(t.Int64Val, f.small())
		case tfpb.DataType_DT_STRING:
			t.StringVal = append(t.StringVal, []byte([]string{"", "a", "b", "a,b", "7"}[f.intn(5)]))
		case tfpb.DataType_DT_BOOL:
			t.BoolVal = append(t.BoolVal, f.byte()&1 == 1)
		}
	}
	return t
}

// interpOps lists the TensorFlow ops that have both a signature and an
// interpreter kernel, sorted.
func interpOps() []*graphdef.OpSig {
	var ops []*graphdef.OpSig
	for _, s := range graphdef.Signatures() {
		if _, ok := exec.Lookup("tfg." + s.Name); ok {
			ops = append(ops, s)
		}
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i].Name < ops[j].Name })
	return ops
}

// buildGraph makes a GraphDef from fuzz bytes: a few Consts with small
// random tensors, then ops drawn from ops with attributes and inputs chosen
// by the bytes. It returns the graph and the tensors to fetch.
func buildGraph(f *fuzzBytes, ops []*graphdef.OpSig) (*tfpb.GraphDef, []string) {
	g := &tfpb.GraphDef{}
	var avail []string // tensors "node:i" made so far
	add := func(n *tfpb.NodeDef) {
		g.Node = append(g.Node, n)
		k, err := graphdef.NumOutputs(n)
		if err != nil {
			k = 1
		}
		for i := range k {
			avail = append(avail, fmt.Sprintf("%s:%d", n.Name, i))
		}
	}
	for i := range 1 + f.intn(4) {
		dt := fuzzDTypes[f.intn(len(fuzzDTypes))]
		add(&tfpb.NodeDef{Name: fmt.Sprintf("c%d", i), Op: "Const", Attr: map[string]*tfpb.AttrValue{
			"dtype": {Value: &tfpb.AttrValue_Type{Type: dt}},
			"value": {Value: &tfpb.AttrValue_Tensor{Tensor: f.tensor(dt)}},
		}})
	}
	for i := 0; i < 6 && !f.done(); i++ {
		s := ops[f.intn(len(ops))]
		n := &tfpb.NodeDef{Name: fmt.Sprintf("n%d", i), Op: s.Name, Attr: map[string]*tfpb.AttrValue{}}
		for _, a := range s.Attrs {
			if a.Default != nil && f.byte()&1 == 0 {
				continue
			}
			var v tfpb.AttrValue
			switch a.Kind {
			case "type":
				dt := fuzzDTypes[f.intn(len(fuzzDTypes))]
				if len(a.Allowed) > 0 && f.byte()&3 != 0 {
					dt = a.Allowed[f.intn(len(a.Allowed))]
				}
				v.Value = &tfpb.AttrValue_Type{Type: dt}
			case "int":
				x := f.small()
				if x < a.Minimum && f.byte()&3 != 0 {
					x = a.Minimum
				}
				v.Value = &tfpb.AttrValue_I{I: x}
			case "bool":
				v.Value = &tfpb.AttrValue_B{B: f.byte()&1 == 1}
			case "float":
				v.Value = &tfpb.AttrValue_F{F: float32(f.small())}
			case "string":
				v.Value = &tfpb.AttrValue_S{S: []byte([]string{"", "a", "SAME", "VALID", "NHWC"}[f.intn(5)])}
			case "shape":
				sh := &tfpb.TensorShapeProto{}
				if f.byte()&7 == 0 {
					sh.UnknownRank = true
				} else {
					for range f.intn(3) {
						sh.Dim = append(sh.Dim, &tfpb.TensorShapeProto_Dim{Size: f.small()})
					}
				}
				v.Value = &tfpb.AttrValue_Shape{Shape: sh}
			case "tensor":
				dt := fuzzDTypes[f.intn(len(fuzzDTypes))]
				if at, ok := n.Attr["dtype"]; ok && f.byte()&3 != 0 {
					dt = at.GetType()
				}
				v.Value = &tfpb.AttrValue_Tensor{Tensor: f.tensor(dt)}
			case "list(type)":
				l := &tfpb.AttrValue_ListValue{}
				for range f.intn(3) {
					l.Type = append(l.Type, fuzzDTypes[f.intn(len(fuzzDTypes))])
				}
				v.Value = &tfpb.AttrValue_List{List: l}
			case "list(int)":
				l := &tfpb.AttrValue_ListValue{}
				for range f.intn(4) {
					l.I = append(l.I, f.small())
				}
				v.Value = &tfpb.AttrValue_List{List: l}
			default:
				continue
			}
			n.Attr[a.Name] = &v
		}
		nin, err := graphdef.NumInputs(n)
		if err != nil || nin > 16 {
			nin = len(s.Inputs)
		}
		for range nin {
			if len(avail) > 0 {
				n.Input = append(n.Input, avail[f.intn(len(avail))])
			}
		}
		add(n)
	}
	return g, avail
}

// FuzzInterp runs small tfg programs built from fuzz bytes (ops with an
// interpreter kernel, random small constants, attributes and wiring chosen
// by the bytes) in the interpreter. A program may be refused at any stage
// (validation, import, verification, compilation, run), never with a panic;
// no run may allocate more than a bound proportional to
// interp.MaxElements, which the fuzzer lowers to 2^16 so that Fill, Tile,
// Range or Reshape of a huge size must be refused by the limit.
func FuzzInterp(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("\x02\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c"))
	f.Add([]byte(strings.Repeat("\xfc\x03\x01", 20)))
	f.Add([]byte(strings.Repeat("\x01\xff\x02\xfe\x00\xfb", 30)))
	ops := interpOps()
	if len(ops) < 20 {
		f.Fatalf("only %d ops with both a signature and a kernel", len(ops))
	}
	for i := range ops {
		// One seed per op: op i over the first constants.
		f.Add([]byte{3, 1, 2, 2, 3, 1, 4, 0, 2, 1, 1, 1, 1, byte(i), byte(i >> 8), 1, 2, 3, 4, 5, 6, 7})
	}
	defer func(n, d int64) { interp.MaxElements, textir.MaxDenseElements = n, d }(interp.MaxElements, textir.MaxDenseElements)
	interp.MaxElements = 1 << 16
	textir.MaxDenseElements = 1 << 12
	ctx := all.NewContext()
	fuzzing := flag.Lookup("test.fuzz").Value.String() != ""
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 {
			return
		}
		if fuzzing {
			// A hang is a finding: crash the worker so that the fuzzer keeps the input.
			w := time.AfterFunc(20*time.Second, func() { panic("FuzzInterp: input took more than 20s") })
			defer w.Stop()
		}
		g, outputs := buildGraph(&fuzzBytes{b: data}, ops)
		if err := graphdef.Validate(g); err != nil {
			debugf("validate: %v", err)
			return
		}
		m, err := importer.Import(ctx, g)
		if err != nil {
			return
		}
		if err := textir.Verify(ctx, m); err != nil {
			return
		}
		prog, err := exec.Compile(m)
		if err != nil {
			return
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		res, err := prog.Run(context.Background(), nil, outputs, &exec.Options{RandomTables: true, Seed: 1})
		runtime.ReadMemStats(&after)
		// Each op may hold a few tensors at the limit (strings: 16-byte
		// headers), so 7 ops allocate well under 256 × limit × 16 bytes.
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(256*interp.MaxElements*16) {
			t.Fatalf("a run allocated %d bytes (limit %d elements per tensor)", alloc, interp.MaxElements)
		}
		debugf("run: %v", err)
		if err != nil {
			if strings.Contains(err.Error(), "internal error") {
				t.Fatalf("internal error: %v", err)
			}
			var d *textir.Diagnostic
			var tl *interp.TooLargeError
			if !errors.As(err, &d) && !errors.As(err, &tl) {
				t.Fatalf("unlocated error %T: %v", err, err)
			}
			return
		}
		for name, v := range res {
			if int64(v.Len()) > interp.MaxElements {
				t.Fatalf("output %s has %d elements, more than the limit %d", name, v.Len(), interp.MaxElements)
			}
		}
	})
}

var fuzzDebug = os.Getenv("RECOM_FUZZ_DEBUG") != ""

func debugf(format string, args ...any) {
	if fuzzDebug {
		fmt.Fprintf(os.Stderr, format+"\n", args...)
	}
}
