package session

import (
	"fmt"
	"strings"

	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/tfops"
	"github.com/recom-compiler/recom/textir"
)

// DensePlan is the part of a session's plan after its embedding layers,
// as the session planned it: the dense layers (fused.dense) in dependence
// order, with their constant weights, and the steps after them with their
// constant operands: the device steps (in the graph; Device set), then the
// host steps after the graph. It is what a peer needs to compute the
// same model from the layers' outputs (bench/peers.py reads it from
// `recom bench --e2e --dump-inputs`).
//
// Values are named: "layerI" is the output of embedding layer I (B×width),
// "denseI" the output of Dense[I] (B×N), "inputI" the I-th value uploaded
// from the feeds (Inputs[I]), "devI" the result of the I-th device step (a
// device value), "hI" a host value computed after the graph. A dense
// layer that reads a device step's result (which Host lists after the
// dense layers) has that input as a PlanRef of kind "other".
type DensePlan struct {
	Layers int `json:"layers"`
	// LayerNodes are the layers' nodes (the fused.embedding_layer ops'
	// TensorFlow names), by layer.
	LayerNodes []string    `json:"layer_nodes"`
	Inputs     []PlanInput `json:"inputs"`
	Dense      []PlanDense `json:"dense"`
	Host       []PlanHost  `json:"host"`
	Outputs    []PlanRef   `json:"outputs"`
	Names      []string    `json:"output_names"`
}

// PlanInput is a value a dense layer reads from the host: a feed (Feed
// set) or a value computed on the host before the graph (Feed empty,
// What says which).
type PlanInput struct {
	Name  string `json:"name"`
	Node  string `json:"node,omitempty"` // the TensorFlow node that computes it
	Feed  string `json:"feed,omitempty"`
	Width int64  `json:"width"`
	What  string `json:"what,omitempty"`
	// Computed is for the caller: it wrote the value of Node (not a
	// feed) for the peers.
	Computed bool `json:"computed,omitempty"`
}

// PlanRef is an operand: Kind "device" (Name, viewed as [batch]+Rest),
// "host" (Name), "const" (Const, written by the caller; Name is its file
// stem once it is), "feed" (Name is the placeholder) or "other" (What
// says what a peer cannot have).
type PlanRef struct {
	Kind  string         `json:"kind"`
	Name  string         `json:"name,omitempty"`
	Rest  []int64        `json:"rest,omitempty"`
	What  string         `json:"what,omitempty"`
	Const *interp.Tensor `json:"-"`
}

// PlanDense is one fused.dense: Output = act(concat(Inputs)·Weight +
// Bias), Weight K×N (transposed here when the op reads it N×K).
type PlanDense struct {
	Node       string         `json:"node"`
	Inputs     []PlanRef      `json:"inputs"`
	Ks         []int64        `json:"ks"`
	N          int64          `json:"n"`
	Activation string         `json:"activation"`
	Accumulate string         `json:"accumulate"`
	Output     string         `json:"output"`
	WeightFile string         `json:"weight,omitempty"`
	BiasFile   string         `json:"bias,omitempty"`
	Weight     *interp.Tensor `json:"-"`
	Bias       *interp.Tensor `json:"-"`
}

// PlanHost is one step after the dense layers: the TensorFlow op (Op
// without its dialect prefix), its node, its operands, the attributes
// its native step reads, and its results' names. Device says that the
// session computes it on the device, in the batch's graph (a device
// step), rather than on the host after the graph.
type PlanHost struct {
	Op      string         `json:"op"`
	Node    string         `json:"node"`
	Device  bool           `json:"device,omitempty"`
	Inputs  []PlanRef      `json:"inputs"`
	Attrs   map[string]any `json:"attrs,omitempty"`
	Outputs []string       `json:"outputs"`
}

// DensePlan returns the session's plan after its layers (see DensePlan).
// Host steps before the graph are not part of it: a dense input computed
// by one is an Input with What set, and an operand read from one a
// PlanRef of kind "other".
func (s *Session) DensePlan() (*DensePlan, error) {
	p := s.plan
	out := &DensePlan{Layers: len(p.layers), Names: append([]string(nil), p.names...)}
	devName := map[*devValue]string{}
	for i, ls := range p.layers {
		devName[ls.out.base()] = fmt.Sprintf("layer%d", i)
		out.LayerNodes = append(out.LayerNodes, ls.node)
	}
	for i, d := range p.uploads {
		name := fmt.Sprintf("input%d", i)
		devName[d.base()] = name
		in := PlanInput{Name: name, Width: d.width}
		if fh := d.fromHost; fh != nil && fh.v.DefiningOp() != nil {
			in.Node = nodeName(fh.v.DefiningOp())
		}
		switch fh := d.fromHost; {
		case fh != nil && fh.kind == kindFeed:
			in.Feed = fh.feed
		default:
			in.What = "a value computed on the host before the graph"
		}
		out.Inputs = append(out.Inputs, in)
	}
	for i, ds := range p.dense {
		devName[ds.out.base()] = fmt.Sprintf("dense%d", i)
	}
	devMade := map[*devValue]*devStep{}
	for _, st := range p.devSteps {
		devMade[st.out] = st
	}
	ref := func(v *value) PlanRef {
		switch {
		case v.kind == kindDevice:
			n, ok := devName[v.dev.base()]
			if !ok {
				return PlanRef{Kind: "other", What: "a device value of no layer, dense layer or upload (" + v.dev.name + ")"}
			}
			return PlanRef{Kind: "device", Name: n, Rest: append([]int64(nil), v.dev.rest...)}
		case v.kind == kindConst && v.konst != nil:
			return PlanRef{Kind: "const", Const: v.konst}
		case v.kind == kindConst:
			return PlanRef{Kind: "other", What: "a table"}
		case v.kind == kindFeed:
			return PlanRef{Kind: "feed", Name: v.feed}
		case v.kind == kindHost && v.afterDevice:
			return PlanRef{Kind: "host", Name: fmt.Sprintf("h%d", v.host)}
		}
		return PlanRef{Kind: "other", What: kindName(v.kind) + " before the graph"}
	}
	for i, ds := range p.dense {
		d := ds.dense
		pd := PlanDense{Node: ds.node, Ks: append([]int64(nil), d.Ks...), N: d.N, Activation: d.Activation,
			Accumulate: d.Accumulate, Output: fmt.Sprintf("dense%d", i)}
		if pd.Activation == "" {
			pd.Activation = abi.ActNone
		}
		for _, in := range ds.in {
			n, ok := devName[in.base()]
			if st := devMade[in.base()]; !ok && st != nil {
				pd.Inputs = append(pd.Inputs, PlanRef{Kind: "other", What: "the result of a device step before the dense layer: " + st.describe()})
				continue
			}
			if !ok {
				return nil, ds.op.Errorf("an input (%s) is no layer's, dense layer's or upload's", in.name)
			}
			pd.Inputs = append(pd.Inputs, PlanRef{Kind: "device", Name: n, Rest: append([]int64(nil), in.rest...)})
		}
		w := ds.w.konst
		if w == nil {
			return nil, ds.op.Errorf("the weight has no value")
		}
		if d.TransposeB {
			perm, err := interp.New([]int64{2}, []int32{1, 0})
			if err != nil {
				return nil, err
			}
			if w, err = tfops.Transpose(w, perm); err != nil {
				return nil, ds.op.Errorf("transposing the weight: %v", err)
			}
		}
		pd.Weight = w
		if ds.b != nil {
			pd.Bias = ds.b.konst
		}
		out.Dense = append(out.Dense, pd)
	}
	for i, st := range p.devSteps {
		devName[st.out] = fmt.Sprintf("dev%d", i)
		ph := PlanHost{Op: strings.TrimPrefix(st.op.Name(), "tfg."), Node: st.node, Device: true, Attrs: exportAttrs(st.op),
			Outputs: []string{devName[st.out]}}
		for _, v := range st.in {
			ph.Inputs = append(ph.Inputs, ref(v))
		}
		out.Host = append(out.Host, ph)
	}
	for _, hs := range p.post {
		ph := PlanHost{Op: strings.TrimPrefix(hs.op.Name(), "tfg."), Node: hs.node, Attrs: exportAttrs(hs.op)}
		for _, v := range hs.in {
			ph.Inputs = append(ph.Inputs, ref(v))
		}
		for _, v := range hs.out {
			ph.Outputs = append(ph.Outputs, fmt.Sprintf("h%d", v.host))
		}
		out.Host = append(out.Host, ph)
	}
	for _, v := range p.outputs {
		out.Outputs = append(out.Outputs, ref(v))
	}
	return out, nil
}

// exportAttrs are op's attributes of plain kinds (the ones the host steps
// read: booleans, integers, lists of integers, strings, types).
func exportAttrs(op *textir.Operation) map[string]any {
	m := map[string]any{}
	for _, a := range op.Attrs() {
		switch v := a.Value.(type) {
		case textir.BoolAttr:
			m[a.Name] = v.Value
		case textir.IntegerAttr:
			m[a.Name] = v.Value
		case textir.FloatAttr:
			m[a.Name] = v.Value
		case textir.StringAttr:
			m[a.Name] = v.Value
		case textir.TypeAttr:
			m[a.Name] = v.Type.String()
		case textir.ArrayAttr:
			ints, ok := []int64{}, true
			for _, e := range v.Elems {
				iv, isInt := e.(textir.IntegerAttr)
				ok = ok && isInt
				ints = append(ints, iv.Value)
			}
			if ok {
				m[a.Name] = ints
			}
		}
	}
	if len(m) == 0 {
		return nil
	}
	return m
}
