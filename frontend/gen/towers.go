package gen

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"sort"

	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
)

// Tower is one tower of a two-tower (DSSM) retrieval model: an input_layer
// over the columns of the groups it names, under the variable scope Name
// (TensorFlow's `with tf.compat.v1.variable_scope(name):
// input_layer(features, columns)`), then an MLP. The model's output is the
// sigmoid of the dot product of the two towers' outputs.
type Tower struct {
	// Name is the tower's scope ("user", "item").
	Name string `json:"name"`
	// Groups are the indices (into Spec.Groups) of the tower's column
	// groups; every group belongs to exactly one tower.
	Groups []int `json:"groups"`
	// Hidden are the widths of the tower's dense layers, a ReLU after each
	// but the last. Empty: the tower's output is its embedding layer.
	Hidden []int `json:"hidden,omitempty"`
	// ColumnLayers writes each of the tower's columns as an input_layer of
	// its own at the top scope (input_layer, input_layer_1, ...: a TF1
	// Estimator model that calls input_layer once per feature, as
	// hallucination11/serving's DSSM does), whose one-column concatenation
	// is an Identity; the tower is then tf.concat of them named after it
	// (an Identity "<name>/<name>" when it has one column: no ConcatV2).
	ColumnLayers bool `json:"column_layers,omitempty"`
	// BatchNorm puts tf.layers.batch_normalization (inference: the moving
	// mean and variance) and an inference dropout (an Identity) after each
	// dense layer but the last.
	BatchNorm bool `json:"batch_norm,omitempty"`
}

// towerName is what a tower's scope may be: a TensorFlow op name's
// characters, no "/" (one scope).
var towerName = regexp.MustCompile(`^[A-Za-z0-9.][A-Za-z0-9_.\-]*$`)

// TowerEmbeddingNode is the embedding layer of the tower named name.
func TowerEmbeddingNode(name string) string { return name + "/" + EmbeddingNode }

// validateTowers checks s.Towers (bad reports a field's error).
func (s *Spec) validateTowers(bad func(field, format string, args ...any)) {
	if len(s.Towers) == 0 {
		return
	}
	if len(s.Towers) != 2 {
		bad("towers", "a two-tower model has 2 towers, got %d", len(s.Towers))
	}
	if s.Dense != nil {
		bad("dense", "a two-tower model has no DLRM dense part (its towers have their own MLPs)")
	}
	owner := map[int]int{}
	names := map[string]bool{}
	for i, t := range s.Towers {
		f := func(n string) string { return fmt.Sprintf("towers[%d].%s", i, n) }
		switch {
		case !towerName.MatchString(t.Name):
			bad(f("name"), "%q is not a scope name (letters, digits, '_', '.', '-')", t.Name)
		case names[t.Name]:
			bad(f("name"), "%q names two towers", t.Name)
		}
		names[t.Name] = true
		if len(t.Groups) == 0 {
			bad(f("groups"), "a tower needs at least one group")
		}
		for j, gi := range t.Groups {
			switch o, seen := owner[gi]; {
			case gi < 0 || gi >= len(s.Groups):
				bad(fmt.Sprintf("towers[%d].groups[%d]", i, j), "%d is not a group index (the spec has %d groups)", gi, len(s.Groups))
			case seen:
				bad(fmt.Sprintf("towers[%d].groups[%d]", i, j), "group %d is already in tower %d", gi, o)
			default:
				owner[gi] = i
			}
		}
		n := 0
		for _, gi := range t.Groups {
			if gi >= 0 && gi < len(s.Groups) {
				n += s.Groups[gi].Count
			}
		}
		if len(t.Groups) > 0 && n == 0 {
			bad(f("groups"), "the tower's groups have no columns")
		}
		for j, w := range t.Hidden {
			if w <= 0 {
				bad(fmt.Sprintf("towers[%d].hidden[%d]", i, j), "must be positive (got %d)", w)
			}
		}
	}
	for gi := range s.Groups {
		if _, ok := owner[gi]; !ok {
			bad(fmt.Sprintf("groups[%d]", gi), "belongs to no tower")
		}
	}
	if len(s.Towers) == 2 {
		a, b := s.towerWidth(0), s.towerWidth(1)
		if a > 0 && b > 0 && a != b {
			bad("towers", "the towers' outputs have widths %d and %d: the dot product needs equal widths", a, b)
		}
	}
}

// towerWidth is the width of tower i's output (0 when its groups are not
// all valid).
func (s *Spec) towerWidth(i int) int {
	t := &s.Towers[i]
	if n := len(t.Hidden); n > 0 {
		return t.Hidden[n-1]
	}
	w := 0
	for _, gi := range t.Groups {
		if gi < 0 || gi >= len(s.Groups) {
			return 0
		}
		w += s.Groups[gi].Count * s.Groups[gi].Dim
	}
	return w
}

// towers writes the two towers and their dot product and returns the
// output node's name: each tower an input_layer over its columns and its
// MLP under its scope, then dot/Mul, dot/Sum (over axis 1, kept) and the
// sigmoid.
func (g *gen) towers(cols []*column) string {
	b := g.b
	var outs []tensor
	for i := range g.spec.Towers {
		t := &g.spec.Towers[i]
		in := map[int]bool{}
		for _, gi := range t.Groups {
			in[gi] = true
		}
		var tc []*column
		for _, c := range cols {
			if in[c.group] {
				tc = append(tc, c)
			}
		}
		// With ColumnLayers, everything is at the top scope (the tower's
		// name is its concatenation's), as in a TF1 Estimator model:
		// dense, dense_1, ..., batch_normalization, ... across towers.
		var h tensor
		s := b.scope
		if t.ColumnLayers {
			h = g.columnLayers(t.Name, tc)
		} else {
			_, s = b.enter(t.Name)
			h = g.inputLayer(tc)
		}
		width := 0
		for _, c := range tc {
			width += c.g.Dim
		}
		for j, w := range t.Hidden {
			last := j+1 == len(t.Hidden)
			h = g.mlpLayer("dense", h, width, w, !last)
			if t.BatchNorm && !last {
				h = g.batchNorm(h, w)
			}
			width = w
		}
		b.exit(s)
		outs = append(outs, h)
	}
	_, s := b.enter("dot")
	mul := b.binary("Mul", "mul", outs[0], outs[1], tfpb.DataType_DT_INVALID)
	axis := b.scalarI32("Sum/reduction_indices", 1)
	sum := b.op("Sum", "Sum", []tensor{mul, axis}, attrs("T", aType(dtFloat), "Tidx", aType(dtInt32), "keep_dims", aBool(true)))
	sum.dt = dtFloat
	b.exit(s)
	p := b.op("Sigmoid", PredictionNode, []tensor{sum}, g.b.tAttr(dtFloat))
	return p.ref
}

// columnLayers writes each column as an input_layer of its own at the top
// scope (sorted by name, as input_layer sorts a layer's columns) and
// returns tf.concat of them along axis 1 under the tower's name: a
// ConcatV2 named name, or for one column an Identity "name/name"
// (array_ops.concat of one tensor).
func (g *gen) columnLayers(name string, cols []*column) tensor {
	b := g.b
	sorted := append([]*column{}, cols...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].name < sorted[j].name })
	var outs []tensor
	for _, c := range sorted {
		outs = append(outs, g.inputLayer([]*column{c}))
	}
	if len(outs) == 1 {
		_, s := b.enter(name)
		out := b.identity(name, outs[0])
		b.exit(s)
		return out
	}
	return b.concatV2(name, outs, 1)
}

// batchNorm is tf.layers.batch_normalization of x ([B, w]) at inference
// (TF1's fused=False form): x * (gamma * rsqrt(moving_variance + eps)) +
// (beta - moving_mean * gamma * rsqrt(moving_variance + eps)), then the
// dropout layer's inference Identity.
func (g *gen) batchNorm(x tensor, w int) tensor {
	b := g.b
	style := denseStyle(g.spec)
	full, s := b.enter("batch_normalization")
	fill := func(base, spread float64) func(*rand.Rand, []float32) {
		return func(r *rand.Rand, v []float32) {
			for i := range v {
				v[i] = float32(base + spread*r.Float64())
			}
		}
	}
	shape := []int64{int64(w)}
	gamma := g.variable(full+"/gamma", style, shape, fill(0.5, 1))
	beta := g.variable(full+"/beta", style, shape, fill(-0.1, 0.2))
	mean := g.variable(full+"/moving_mean", style, shape, fill(-0.2, 0.4))
	variance := g.variable(full+"/moving_variance", style, shape, fill(0.5, 1))
	_, s2 := b.enter("batchnorm")
	read := func(name string, t tableRef) tensor {
		if !t.resource {
			return t.read
		}
		rv := b.op("ReadVariableOp", name+"/ReadVariableOp", []tensor{t.read}, attrs("dtype", aType(dtFloat)))
		rv.dt = dtFloat
		return rv
	}
	eps := b.scalarF32("add/y", 0.001)
	add := b.binary("AddV2", "add", read("add", variance), eps, tfpb.DataType_DT_INVALID)
	rs := b.op("Rsqrt", "Rsqrt", []tensor{add}, b.tAttr(dtFloat))
	rs.dt = dtFloat
	mul := b.binary("Mul", "mul", rs, read("mul", gamma), tfpb.DataType_DT_INVALID)
	mul1 := b.binary("Mul", "mul_1", x, mul, tfpb.DataType_DT_INVALID)
	mul2 := b.binary("Mul", "mul_2", read("mul_2", mean), mul, tfpb.DataType_DT_INVALID)
	sub := b.binary("Sub", "sub", read("sub", beta), mul2, tfpb.DataType_DT_INVALID)
	out := b.binary("AddV2", "add_1", mul1, sub, tfpb.DataType_DT_INVALID)
	b.exit(s2)
	b.exit(s)
	_, s3 := b.enter("dropout")
	out = b.identity("Identity", out)
	b.exit(s3)
	return out
}
