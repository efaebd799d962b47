package session

import (
	"github.com/recom-compiler/recom/dialects/fused"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/runtime/hostpack"
	"github.com/recom-compiler/recom/textir"
)

// A parse of serialized tf.Example records (ParseExample,
// ParseExampleV2: a model served from records): the embedding layers'
// packers read the records themselves (runtime/hostpack parses them
// straight into the packed inputs), so the session computes only the
// results that something else reads — the dense features of the MLP, an
// output — in one host step before the graph that parses just those
// (hostpack.ExampleParser: the same record index and rules, without the
// interpreter). A parse none of whose results is read outside the
// layers costs the session nothing.

// planParse plans parse op op (a tfg.ParseExample or ParseExampleV2 the
// outputs need): its results read only by the layers' packers are
// theirs (kindPacked); the others are computed by a host step.
func (p *plan) planParse(op *textir.Operation, ops []*textir.Operation, packed map[*textir.Operation]*textir.Operation, outVals []*textir.Value) error {
	needed := map[*textir.Operation]bool{}
	for _, o := range ops {
		needed[o] = true
	}
	isOut := map[*textir.Value]bool{}
	for _, v := range outVals {
		isOut[v] = true
	}
	var host []*textir.Value
	for _, r := range dataResults(op) {
		read := isOut[r]
		for u := range r.Users() {
			if needed[u] && packed[u] == nil && u.Name() != fused.EmbeddingLayerOp {
				read = true
			}
		}
		if read {
			host = append(host, r)
			continue
		}
		p.values[r] = &value{v: r, kind: kindPacked}
	}
	if len(host) == 0 {
		return nil
	}
	ins := dataOperands(op)
	vals := make([]*value, len(ins))
	for i, v := range ins {
		vals[i] = p.values[v]
		switch {
		case vals[i] == nil:
			return op.Errorf("operand #%d has no planned value", i)
		case vals[i].kind != kindFeed && vals[i].kind != kindConst:
			return op.Errorf("operand #%d is %s: a parse's records and configuration must be a feed and constants", i, kindName(vals[i].kind))
		}
	}
	parser, err := hostpack.NewExampleParser(op, host, 0)
	if err != nil {
		return err
	}
	s := &hostStep{op: op, node: nodeName(op), in: vals, run: func(in []*interp.Tensor) ([]*interp.Tensor, error) {
		return parser.Parse(in[0])
	}}
	for _, r := range host {
		v := &value{v: r, kind: kindHost, host: p.nhost}
		p.nhost++
		p.values[r] = v
		s.out = append(s.out, v)
	}
	p.pre = append(p.pre, s)
	return nil
}

// isParseHost reports whether v is a result of a parse the session
// computes on the host, which a layer may read too (its packer parses the
// records itself).
func isParseHost(v *value) bool {
	op := v.v.DefiningOp()
	return v.kind == kindHost && tfg.IsExampleParse(op)
}
