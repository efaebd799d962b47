package tfgtoemb_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/recom-compiler/recom/dialects/all"
	"github.com/recom-compiler/recom/frontend/gen"
	"github.com/recom-compiler/recom/frontend/graphdef"
	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
	"github.com/recom-compiler/recom/frontend/importer"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/lowering/pass"
	"github.com/recom-compiler/recom/textir"

	"github.com/recom-compiler/recom/backend/nvptx"
)

// fuzzBase is one generated model the fuzzer mutates, with its tables and
// a small feed.
type fuzzBase struct {
	graph   *tfpb.GraphDef
	vars    map[string]*interp.Tensor
	feeds   map[string]*interp.Tensor
	outputs []string
}

var (
	fuzzBasesOnce sync.Once
	fuzzBasesList []fuzzBase
	fuzzBasesErr  error
)

// fuzzBases generates the models: small subsets of the bundled spec (a few
// columns of each kind) in each table style, and a micro model.
func fuzzBases() ([]fuzzBase, error) {
	fuzzBasesOnce.Do(func() {
		for _, c := range []genCase{{preset: "micro", columns: 3}, {preset: "small", columns: 9}, {preset: "small", columns: 9, tables: "resource"},
			{preset: "small", columns: 9, tables: "const"}, {preset: "probe", columns: 4}} {
			s, err := gen.Preset(c.preset)
			if err == nil {
				s, err = s.Scale(c.columns)
			}
			var m *gen.Model
			if err == nil {
				m, err = gen.Generate(s, gen.Options{Seed: 3, Tables: gen.TableStyle(c.tables)})
			}
			if err != nil {
				fuzzBasesErr = fmt.Errorf("%s/%d: %w", c.preset, c.columns, err)
				return
			}
			b := fuzzBase{graph: m.Graph, vars: map[string]*interp.Tensor{}, feeds: map[string]*interp.Tensor{}, outputs: []string{gen.EmbeddingNode}}
			if m.Output != gen.EmbeddingNode {
				b.outputs = append(b.outputs, m.Output)
			}
			for _, a := range m.Tables {
				b.vars[a.Name] = a.Tensor
			}
			feeds, err := gen.Feeds(s, 3, 11)
			if err != nil {
				fuzzBasesErr = err
				return
			}
			for _, a := range feeds {
				b.feeds[a.Name] = a.Tensor
			}
			fuzzBasesList = append(fuzzBasesList, b)
		}
		// Plain lookups (plain_test.go): partitioned by both strategies,
		// sparse with and without weights, in TF 1.15's and 2.16's graphs.
		for _, spec := range []string{plainSpecs()["tf1.15-variable-mod"], plainSpecs()["tf2.16-resource-div"]} {
			s, err := gen.ParseLookupSpec([]byte(spec), "spec")
			var m *gen.Model
			if err == nil {
				m, err = gen.GenerateLookups(s, gen.Options{Seed: 3})
			}
			if err != nil {
				fuzzBasesErr = err
				return
			}
			b := fuzzBase{graph: m.Graph, vars: map[string]*interp.Tensor{}, outputs: []string{m.Output},
				feeds: plainFeeds(s, 3, false, rand.New(rand.NewPCG(3, 11)))}
			for _, a := range m.Tables {
				b.vars[a.Name] = a.Tensor
			}
			fuzzBasesList = append(fuzzBasesList, b)
		}
	})
	return fuzzBasesList, fuzzBasesErr
}

// mutator applies the fuzzer's bytes to a GraphDef as edits.
type mutator struct {
	b []byte
	i int
}

func (m *mutator) next() int {
	if m.i >= len(m.b) {
		return 0
	}
	c := m.b[m.i]
	m.i++
	return int(c)
}

// pick returns a choice in [0, n) from two bytes.
func (m *mutator) pick(n int) int {
	if n <= 0 {
		return 0
	}
	return (m.next()<<8 | m.next()) % n
}

// smallInt returns a small integer, now and then a hostile one.
func (m *mutator) smallInt() int64 {
	switch c := m.next(); c {
	case 255:
		return math.MaxInt64
	case 254:
		return -1
	case 253:
		return 1 << 40
	case 252:
		return 0
	default:
		return int64(c%16) - 2
	}
}

var mutDTypes = []tfpb.DataType{tfpb.DataType_DT_FLOAT, tfpb.DataType_DT_INT32, tfpb.DataType_DT_INT64, tfpb.DataType_DT_STRING,
	tfpb.DataType_DT_BOOL, tfpb.DataType_DT_DOUBLE, tfpb.DataType_DT_RESOURCE}

// mutate edits g in place: up to 8 edits, each one of drop a node,
// duplicate a node, rewire an input, change an attribute (dtype, int,
// bool, shape, list), truncate or reshape a tensor, rename the op.
func (m *mutator) mutate(g *tfpb.GraphDef) {
	for k := 0; k < 8 && m.i < len(m.b); k++ {
		nodes := g.Node
		if len(nodes) == 0 {
			return
		}
		n := nodes[m.pick(len(nodes))]
		switch m.next() % 7 {
		case 0: // drop
			j := 0
			for _, x := range nodes {
				if x != n {
					nodes[j] = x
					j++
				}
			}
			g.Node = nodes[:j]
		case 1: // duplicate under a new name (or the same, now and then)
			d := proto.Clone(n).(*tfpb.NodeDef)
			if m.next()%8 != 0 {
				d.Name = fmt.Sprintf("%s/dup%d", n.Name, k)
			}
			g.Node = append(g.Node, d)
		case 2: // rewire an input to another node's output
			if len(n.Input) > 0 {
				src := nodes[m.pick(len(nodes))]
				in := src.Name
				switch c := m.next() % 4; c {
				case 1, 2:
					in = fmt.Sprintf("%s:%d", src.Name, c)
				case 3:
					in = "^" + src.Name
				}
				n.Input[m.pick(len(n.Input))] = in
			}
		case 3, 4: // change an attribute
			if len(n.Attr) == 0 {
				continue
			}
			keys := make([]string, 0, len(n.Attr))
			for key := range n.Attr {
				keys = append(keys, key)
			}
			sortStrings(keys)
			a := n.Attr[keys[m.pick(len(keys))]]
			switch v := a.Value.(type) {
			case *tfpb.AttrValue_Type:
				v.Type = mutDTypes[m.next()%len(mutDTypes)]
			case *tfpb.AttrValue_I:
				v.I = m.smallInt()
			case *tfpb.AttrValue_B:
				v.B = !v.B
			case *tfpb.AttrValue_S:
				v.S = []byte([]string{"", "x", "mod", "div", "sqrtn", "mean", "sum"}[m.next()%7])
			case *tfpb.AttrValue_Shape:
				if v.Shape == nil {
					v.Shape = &tfpb.TensorShapeProto{}
				}
				if len(v.Shape.Dim) > 0 && m.next()%2 == 0 {
					v.Shape.Dim[m.pick(len(v.Shape.Dim))].Size = m.smallInt()
				} else {
					v.Shape.Dim = append(v.Shape.Dim, &tfpb.TensorShapeProto_Dim{Size: m.smallInt()})
				}
			case *tfpb.AttrValue_List:
				if v.List != nil && len(v.List.I) > 0 {
					v.List.I[m.pick(len(v.List.I))] = m.smallInt()
				}
			case *tfpb.AttrValue_Tensor:
				mutateTensor(m, v.Tensor)
			}
		case 5: // truncate or reshape a tensor
			for _, key := range []string{"value"} {
				if a, ok := n.Attr[key]; ok {
					if t := a.GetTensor(); t != nil {
						mutateTensor(m, t)
					}
				}
			}
		case 6: // become another op of the graph
			n.Op = nodes[m.pick(len(nodes))].Op
		}
	}
}

func mutateTensor(m *mutator, t *tfpb.TensorProto) {
	if t == nil {
		return
	}
	switch m.next() % 4 {
	case 0:
		if len(t.IntVal) > 0 {
			t.IntVal = t.IntVal[:m.pick(len(t.IntVal))]
		}
		if len(t.Int64Val) > 0 {
			t.Int64Val = t.Int64Val[:m.pick(len(t.Int64Val))]
		}
		if len(t.FloatVal) > 0 {
			t.FloatVal = t.FloatVal[:m.pick(len(t.FloatVal))]
		}
		if len(t.StringVal) > 0 {
			t.StringVal = t.StringVal[:m.pick(len(t.StringVal))]
		}
		if len(t.TensorContent) > 0 {
			t.TensorContent = t.TensorContent[:m.pick(len(t.TensorContent))]
		}
	case 1:
		if t.TensorShape != nil && len(t.TensorShape.Dim) > 0 {
			t.TensorShape.Dim[m.pick(len(t.TensorShape.Dim))].Size = m.smallInt()
		}
	case 2:
		switch {
		case len(t.IntVal) > 0:
			t.IntVal[m.pick(len(t.IntVal))] = int32(m.smallInt())
		case len(t.Int64Val) > 0:
			t.Int64Val[m.pick(len(t.Int64Val))] = m.smallInt()
		case len(t.FloatVal) > 0:
			t.FloatVal[m.pick(len(t.FloatVal))] = float32(m.smallInt())
		}
	case 3:
		t.Dtype = mutDTypes[m.next()%len(mutDTypes)]
	}
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// lowerPipeline is --lower-emb, then --simplify-shapes when that pass is
// registered.
func lowerPipeline() string {
	if _, ok := pass.Lookup("simplify-shapes"); ok {
		return "lower-emb,simplify-shapes,fuse"
	}
	return "lower-emb"
}

// FuzzLowerEmb runs the whole pipeline on generated models mutated by the
// fuzzer's bytes (nodes dropped or duplicated, inputs rewired, attributes,
// dtypes and ints changed, tensors truncated): graphdef.Validate,
// importer.Import, textir.Verify, --lower-emb, --simplify-shapes and --fuse
// through the pass manager with verification after each pass, print,
// parse, and the fused kernel through the NVPTX emitter. No stage may panic or hang; a pass may fail only with a
// located diagnostic. When the tfg program runs in the interpreter on the
// model's small feed, the lowered program must give the same outputs or a
// located error, never a different answer.
func FuzzLowerEmb(f *testing.F) {
	bases, err := fuzzBases()
	if err != nil {
		f.Fatal(err)
	}
	for i := range bases {
		f.Add([]byte{byte(i)})
		f.Add([]byte{byte(i), 0, 5, 3, 0, 9, 2, 1, 0, 40, 0})
		f.Add([]byte{byte(i), 0, 17, 4, 0, 30, 0, 0, 3, 1})
		f.Add([]byte{byte(i), 1, 2, 5, 1, 0, 3, 2, 0, 7, 2, 0, 1})
	}
	defer func(n, e int64) { textir.MaxDenseElements, interp.MaxElements = n, e }(textir.MaxDenseElements, interp.MaxElements)
	textir.MaxDenseElements = 1 << 12
	interp.MaxElements = 1 << 20
	ctx := all.NewContext()
	pipeline := lowerPipeline()
	fuzzing := flag.Lookup("test.fuzz").Value.String() != ""
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 || len(data) > 256 {
			return
		}
		if fuzzing {
			// A hang is a finding: crash the worker so that the fuzzer keeps the input.
			w := time.AfterFunc(30*time.Second, func() { panic("FuzzLowerEmb: input took more than 30s") })
			defer w.Stop()
		}
		base := bases[int(data[0])%len(bases)]
		g := proto.Clone(base.graph).(*tfpb.GraphDef)
		(&mutator{b: data[1:]}).mutate(g)
		if err := graphdef.Validate(g); err != nil {
			return
		}
		ref, err := importer.Import(ctx, g)
		if err != nil {
			return
		}
		if err := textir.Verify(ctx, ref); err != nil {
			return
		}
		low, ok := runPipeline(t, ctx, ref, "lower-emb")
		if !ok {
			return
		}
		opts := &exec.Options{Variables: base.vars}
		want, err := run(ref, base.feeds, base.outputs, opts)
		if err != nil {
			return
		}
		checkSame(t, "lower-emb", low, want, base, opts)
		if pipeline != "lower-emb" {
			// The later passes: no panic, located errors, IR that verifies
			// and parses back; programs that run give the tfg program's
			// outputs (after --fuse the kernel runs in the gpu simulator);
			// and the fused kernel is emitted as NVPTX LLVM IR or refused
			// with a located diagnostic.
			prev := low
			for _, p := range []string{"simplify-shapes", "fuse"} {
				next, ok := runPipeline(t, ctx, prev, p)
				if !ok {
					return
				}
				if got, err := run(next, base.feeds, base.outputs, opts); err == nil {
					for _, o := range base.outputs {
						if err := got[o].AllClose(want[o], 1e-5, 1e-6); err != nil {
							t.Fatalf("output %s after %s differs: %v", o, p, err)
						}
					}
				}
				prev = next
			}
			if _, err := nvptx.EmitText(prev); err != nil {
				var d *textir.Diagnostic
				if !errors.As(err, &d) {
					t.Fatalf("emitting the fused kernel failed without a location: %v", err)
				}
			}
		}
	})
}

// runPipeline runs pipeline on a clone of m with verification after each
// pass, and checks that the result prints and parses back. A failure must
// be a located diagnostic from the pass, not from the verifier.
func runPipeline(t *testing.T, ctx *textir.Context, m *textir.Operation, pipeline string) (*textir.Operation, bool) {
	t.Helper()
	pm, err := pass.ParsePipeline(pipeline)
	if err != nil {
		t.Fatal(err)
	}
	pm.Config.Diag = func(*textir.Diagnostic) {}
	low := ctx.Clone(m, nil)
	if err := pm.Run(ctx, low); err != nil {
		var d *textir.Diagnostic
		if !errors.As(err, &d) || strings.HasPrefix(err.Error(), "<unknown>") || strings.Contains(err.Error(), "internal error") {
			t.Fatalf("%s failed without a located diagnostic: %v", pipeline, err)
		}
		var pe *pass.PassError
		if errors.As(err, &pe) && pe.Verify {
			t.Fatalf("%s produced IR that does not verify: %v", pipeline, err)
		}
		return nil, false
	}
	var b bytes.Buffer
	if err := textir.Print(&b, low, textir.PrintOptions{}); err != nil {
		t.Fatalf("print after %s: %v", pipeline, err)
	}
	if _, err := textir.Parse(ctx, "lowered.mlir", b.Bytes()); err != nil {
		t.Fatalf("IR after %s does not parse back: %v", pipeline, err)
	}
	return low, true
}

// checkSame runs the lowered program: it must give the outputs want (the
// tfg program's) or fail with a located diagnostic.
func checkSame(t *testing.T, what string, low *textir.Operation, want map[string]*interp.Tensor, base fuzzBase, opts *exec.Options) {
	t.Helper()
	got, err := run(low, base.feeds, base.outputs, opts)
	if err != nil {
		var d *textir.Diagnostic
		if !errors.As(err, &d) {
			t.Fatalf("the tfg program runs but the program after %s fails without a location: %v", what, err)
		}
		if fuzzCompared != nil {
			fuzzCompared(what + " error: " + err.Error())
		}
		return
	}
	for _, o := range base.outputs {
		if err := got[o].AllClose(want[o], 1e-5, 1e-6); err != nil {
			t.Fatalf("output %s of the program after %s differs: %v", o, what, err)
		}
	}
	if fuzzCompared != nil {
		fuzzCompared(what + " same")
	}
}

// fuzzCompared, when set by a test, hears each comparison.
var fuzzCompared func(string)

// The seeds of FuzzLowerEmb reach the comparison, and the unmutated models
// lower to programs with the same outputs.
func TestFuzzLowerEmbSeeds(t *testing.T) {
	bases, err := fuzzBases()
	if err != nil {
		t.Fatal(err)
	}
	ctx := all.NewContext()
	same := 0
	fuzzCompared = func(s string) {
		if strings.HasSuffix(s, " same") {
			same++
		} else {
			t.Error(s)
		}
	}
	defer func() { fuzzCompared = nil }()
	for _, b := range bases {
		ref, err := importer.Import(ctx, b.graph)
		if err != nil {
			t.Fatal(err)
		}
		low, ok := runPipeline(t, ctx, ref, "lower-emb")
		if !ok {
			t.Fatal("lower-emb failed")
		}
		opts := &exec.Options{Variables: b.vars}
		want, err := run(ref, b.feeds, b.outputs, opts)
		if err != nil {
			t.Fatal(err)
		}
		checkSame(t, "lower-emb", low, want, b, opts)
	}
	if same != len(bases) {
		t.Errorf("%d of %d models compared equal", same, len(bases))
	}
}
