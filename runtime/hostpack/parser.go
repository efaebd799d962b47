package hostpack

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/textir"
)

// ExampleParser computes results of a ParseExample or ParseExampleV2 op
// from a batch of serialized records on the host, with the record
// index and rules of the layer's plan (example.go) and the semantics of
// tfops.ParseExample: for a runtime that needs some of a parse's results
// outside the embedding layer (the dense features of a model's MLP). It
// is safe for concurrent use.
type ExampleParser struct {
	x       *exPlan
	results []exResult
	workers int
	pool    sync.Pool // *exParseState
}

// exResult is one result the parser computes: its feature and argument.
type exResult struct {
	f   int
	arg string
	dt  interp.DType
}

// exParseState is a Parse's buffers: a Packer of a plan of the one
// parse (its index and the pool's ranges) and a node's.
type exParseState struct {
	k  Packer
	ns nodeState
}

// NewExampleParser returns the parser of the results of parse op op
// (each a result of op) whose records are a vector; it fails when op's
// configuration is not constant or not one the kernel accepts (the
// interpreter then parses the records). workers bounds the goroutines
// of one batch: the caller and the packers' pool (0: GOMAXPROCS).
func NewExampleParser(op *textir.Operation, results []*textir.Value, workers int) (*ExampleParser, error) {
	spec, err := tfg.ExampleSpecOf(op)
	if err != nil {
		return nil, err
	}
	if tt, ok := spec.Serialized().Type().(*textir.TensorType); ok && len(tt.Shape) != 1 {
		return nil, op.Errorf("hostpack: the records are not a vector (%s): one example is parsed by the interpreter", tt)
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	p := &ExampleParser{x: newExPlan(op, spec, 0), workers: workers}
	for _, v := range results {
		o, arg, k, ok := tfg.ExampleResult(v)
		if !ok || o != op {
			return nil, op.Errorf("hostpack: a value that is not a result of the parse")
		}
		dt, err := dtypeOf(op, v)
		if err != nil {
			return nil, err
		}
		p.results = append(p.results, exResult{f: p.x.feature(arg, k), arg: arg, dt: dt})
	}
	return p, nil
}

// Parse returns the parser's results for the batch of serialized records
// (a string vector), as new tensors.
func (p *ExampleParser) Parse(records *interp.Tensor) ([]*interp.Tensor, error) {
	if records == nil || records.DType() != interp.String {
		return nil, p.x.op.Errorf("the records must be strings")
	}
	st, _ := p.pool.Get().(*exParseState)
	if st == nil {
		st = &exParseState{k: Packer{p: &Plan{examples: []*exPlan{p.x}, workers: p.workers}, ex: make([]exBatch, 1)}}
	}
	xb := &st.k.ex[0]
	defer p.pool.Put(st)
	if err := st.k.index(0, records, p.workers); err != nil {
		return nil, err
	}
	out := make([]*interp.Tensor, len(p.results))
	for i, r := range p.results {
		n := &gnode{kind: gExample, op: p.x.op, exFeat: r.f, exArg: r.arg, dt: []interp.DType{r.dt}}
		if err := evalExample(n, &st.ns, p.x, xb); err != nil {
			return nil, err
		}
		t, err := p.tensor(r, &st.ns.res[0], xb)
		if err != nil {
			return nil, err
		}
		out[i] = t
	}
	xb.recs = nil // the pooled state keeps no records
	return out, nil
}

// tensor copies a result's vector into a new tensor of its shape and
// dtype.
func (p *ExampleParser) tensor(r exResult, v *vec, xb *exBatch) (*interp.Tensor, error) {
	f := &p.x.feats[r.f]
	var shape []int64
	switch r.arg {
	case tfg.ExampleSparseIndices:
		shape = []int64{v.d0, 2}
	case tfg.ExampleDenseValues:
		shape = []int64{int64(xb.B)}
		if f.VarLen {
			shape = append(shape, v.d1)
			shape = append(shape, f.Shape[1:]...)
		} else {
			shape = append(shape, f.Shape...)
		}
	default:
		shape = []int64{int64(v.len())}
	}
	buf, err := interp.MakeSlice(r.dt, v.len())
	if err != nil {
		return nil, p.x.op.Errorf("%v", err)
	}
	switch b := buf.(type) {
	case []string:
		copy(b, v.s)
	case []float32:
		copy(b, v.f32)
	case []int64:
		copy(b, v.i)
	case []int32:
		for j, x := range v.i {
			b[j] = int32(x)
		}
	default:
		return nil, p.x.op.Errorf("hostpack: a parse result of %v", r.dt)
	}
	return interp.FromSlice(shape, buf)
}

// String names the parse and what the parser computes, for a summary.
func (p *ExampleParser) String() string {
	return fmt.Sprintf("%s: %d results parsed from the records on the host (runtime/hostpack)", p.x.desc(), len(p.results))
}
