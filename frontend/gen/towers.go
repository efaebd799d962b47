package gen

import (
	"fmt"
	"regexp"

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
		_, s := b.enter(t.Name)
		h := g.inputLayer(tc)
		width := 0
		for _, c := range tc {
			width += c.g.Dim
		}
		for j, w := range t.Hidden {
			h = g.mlpLayer("dense", h, width, w, j+1 < len(t.Hidden))
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
