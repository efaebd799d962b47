package gen

import (
	"fmt"
	"path"
	"strings"

	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/dialects/tfg/optab"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/textir"
)

// What the feeds of tf.nn's lookups must be, beyond what follow finds:
// the ids of a lookup in a partitioned table index the whole table, and
// the sparse weights of embedding_lookup_sparse have their ids' indices.

// partitionedLookup recognises rs as the Reshape(ids, [-1]) of
// embedding_lookup over a table in shards (its positions
// Range(Size(flat)) split by DynamicPartition and stitched back with the
// shards' gathers), and returns the rows of the whole table (the shards'
// together) and its name.
func partitionedLookup(rs *textir.Operation) (int64, string, bool) {
	flat := optab.Result(rs, "output")
	if c, ok := constOf(optab.Operand(rs, "shape")); !ok || c.Len() != 1 {
		return 0, "", false
	} else if n, ok := c.Int64At(0); !ok || n != -1 {
		return 0, "", false
	}
	for u := range flat.Users() {
		if u.Name() != "tfg.Size" {
			continue
		}
		for rg := range optab.Result(u, "output").Users() {
			if rg.Name() != "tfg.Range" {
				continue
			}
			for dp := range optab.Result(rg, "output").Users() {
				if dp.Name() != "tfg.DynamicPartition" {
					continue
				}
				if rows, name, ok := stitchedRows(dp); ok {
					return rows, name, true
				}
			}
		}
	}
	return 0, "", false
}

// stitchedRows returns the rows of the shards that the stitch of the
// positions DynamicPartition dp splits gathers, and their table's name
// (the shards' without "/part_<i>").
func stitchedRows(dp *textir.Operation) (int64, string, bool) {
	for _, out := range optab.Results(dp, "outputs") {
		for st := range out.Users() {
			if st.Name() != "tfg.ParallelDynamicStitch" && st.Name() != "tfg.DynamicStitch" {
				continue
			}
			var total int64
			var name string
			for _, d := range optab.Operands(st, "data") {
				g := d.DefiningOp()
				for g != nil && g.Name() == "tfg.Identity" {
					g = tfg.DataOperands(g)[0].DefiningOp()
				}
				var table *textir.Value
				switch {
				case g == nil:
					return 0, "", false
				case g.Name() == "tfg.GatherV2" || g.Name() == "tfg.Gather":
					table = optab.Operand(g, "params")
				case g.Name() == "tfg.ResourceGather":
					table = optab.Operand(g, "resource")
				default:
					return 0, "", false
				}
				rows, by := tableRows(table)
				if rows <= 0 {
					return 0, "", false
				}
				total += rows
				if name == "" {
					name = by
					if dir, base := path.Split(by); strings.HasPrefix(base, "part_") {
						name = strings.TrimSuffix(dir, "/")
					}
				}
			}
			return total, name, total > 0
		}
	}
	return 0, "", false
}

// pairSparse pairs the sparse groups whose values meet within alignDepth
// ops (embedding_lookup_sparse multiplies each id's row by its weight;
// safe_ prunes the weights with the ids): the one of float values (the
// weights) takes the indices of the one of integer values (the ids).
func (a *analysis) pairSparse() {
	var groups []*sparseGroup
	seen := map[*sparseGroup]bool{}
	for _, in := range a.inputs {
		if g := in.group; g != nil && g.values != nil && g.indices != nil && !seen[g] {
			seen[g] = true
			groups = append(groups, g)
		}
	}
	// A vector of floats alone (its sparse tensor's other parts cut away:
	// embedding_lookup_sparse reads only the weights' values) is a group
	// of its values.
	for _, in := range a.inputs {
		if in.group == nil && in.dtype.IsFloat() && len(in.shape) == 1 && in.vals.used {
			g := &sparseGroup{values: in}
			in.group, in.role = g, sparseValues
			groups = append(groups, g)
		}
	}
	reach := make([]map[*textir.Operation]bool, len(groups))
	for i, g := range groups {
		reach[i] = reachable(g.values.op.Result(0), alignDepth)
	}
	for i, w := range groups {
		if w.values.dtype.IsInteger() || w.like != nil {
			continue
		}
		defer func() {
			if w.indices == nil && w.like == nil {
				// Not weights after all: a plain input again.
				w.values.group, w.values.role = nil, notSparse
			}
		}()
		for j, ids := range groups {
			if i == j || !ids.values.dtype.IsInteger() || ids.indices == nil {
				continue
			}
			for op := range reach[i] {
				if reach[j][op] {
					w.like = ids
					break
				}
			}
			if w.like != nil {
				break
			}
		}
	}
}

// drawLike draws group g with the indices and dense shape of the group it
// is like (already drawn), and values of its own.
func drawLike(g *sparseGroup, specs map[*input]*InputSpec, seed uint64, tables *tableSource,
	out map[*input]*interp.Tensor, how map[*input]string) error {
	lead := g.like
	ind := out[lead.indices]
	nnz := int(ind.Dim(0))
	desc := fmt.Sprintf("sparse tensor (%d values) with the indices of %s", nnz, lead.values.name)
	d, err := newDomain(g.values.vals, specs[g.values], tables)
	if err != nil {
		return fmt.Errorf("input %s: %w", g.values.name, err)
	}
	buf, err := interp.MakeSlice(g.values.dtype, nnz)
	if err != nil {
		return err
	}
	present := make([]bool, nnz)
	for i := range present {
		present[i] = true
	}
	if err := d.fill(streamRNG(seed, g.values.name), buf, present); err != nil {
		return fmt.Errorf("input %s: %w", g.values.name, err)
	}
	t, err := interp.FromSlice([]int64{int64(nnz)}, buf)
	if err != nil {
		return err
	}
	out[g.values], how[g.values] = t, desc+" values: "+d.what
	copyPart := func(mine, theirs *input, what string) error {
		if mine == nil {
			return nil
		}
		t := out[theirs]
		if theirs == nil || t == nil || t.DType() != mine.dtype {
			return fmt.Errorf("input %s: the sparse %s of %s do not fit it", mine.name, what, lead.values.name)
		}
		out[mine], how[mine] = t, desc+" "+what
		return nil
	}
	if err := copyPart(g.indices, lead.indices, "indices"); err != nil {
		return err
	}
	return copyPart(g.shape, lead.shape, "dense_shape")
}
