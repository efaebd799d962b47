package gen

import (
	"fmt"
	"sort"
	"strings"
)

// column is one embedding column of a spec, with the names TensorFlow
// gives it.
type column struct {
	g         *Group
	group     int
	index     int    // across the whole spec
	key       string // the feature key (Placeholder name)
	weightKey string // weighted: the weight feature
	intKey    string // crossed: the int64 feature crossed with key's strings
	numKey    string // crossed with boundaries: the numeric feature bucketized into the cross
	name      string // the feature column's name (input_layer sorts by it)
	style     TableStyle
	share     *shareGroup
}

// shareGroup is one table of shared_embedding_columns.
type shareGroup struct {
	collection string // "<a>_<b>_shared_embedding"
	members    []*column
	table      tableRef
	made       bool
}

var keyPrefix = map[Kind]string{
	HashedString: "str", HashedInt: "int", SplitString: "tok", Identity: "id",
	Vocabulary: "voc", Bucketized: "num", Weighted: "wstr", Shared: "sh", Crossed: "xs",
}

// columns expands a spec into its columns, in spec order.
func columns(s *Spec, override TableStyle) []*column {
	total := s.NumColumns()
	width := len(fmt.Sprint(total - 1))
	if width < 4 {
		width = 4
	}
	var cols []*column
	idx := 0
	for gi := range s.Groups {
		g := &s.Groups[gi]
		style := override
		if style == "" {
			style = g.Tables
		}
		if style == "" {
			style = s.Tables
		}
		if style == "" {
			style = Variable
		}
		var sg *shareGroup
		for i := 0; i < g.Count; i++ {
			c := &column{g: g, group: gi, index: idx, style: style}
			c.key = fmt.Sprintf("%s_%0*d", keyPrefix[g.Kind], width, idx)
			switch g.Kind {
			case Bucketized:
				c.name = c.key + "_bucketized_embedding"
			case Weighted:
				c.weightKey = c.key + "_weight"
				c.name = c.key + "_weighted_by_" + c.weightKey + "_embedding"
			case Crossed:
				c.intKey = fmt.Sprintf("xi_%0*d", width, idx)
				names := []string{c.key, c.intKey}
				if g.Boundaries > 0 {
					c.numKey = fmt.Sprintf("xn_%0*d", width, idx)
					names = append(names, c.numKey+"_bucketized")
				}
				sort.Strings(names)
				c.name = strings.Join(names, "_X_") + "_embedding"
			case Shared:
				c.name = c.key + "_shared_embedding"
				if i%g.Share == 0 {
					sg = &shareGroup{}
				}
				sg.members = append(sg.members, c)
				c.share = sg
			default:
				c.name = c.key + "_embedding"
			}
			cols = append(cols, c)
			idx++
		}
	}
	for _, c := range cols {
		if sg := c.share; sg != nil && sg.collection == "" {
			names := make([]string, len(sg.members))
			for i, m := range sg.members {
				names[i] = m.key
			}
			sort.Strings(names)
			coll := ""
			for i, n := range names {
				if i > 0 {
					coll += "_"
				}
				coll += n
			}
			sg.collection = coll + "_shared_embedding"
		}
	}
	return cols
}

// multiValued reports whether the column's placeholder is [batch, max]
// padded (a bag of more than one id from a dense tensor).
func (c *column) multiValued() bool {
	return c.g.Kind != SplitString && c.g.Kind != Bucketized && c.g.MaxPooling() > 1
}

// placeholderShape is the shape of the column's id (or value) feature.
func (c *column) placeholderShape() []int64 {
	switch {
	case c.g.Kind == SplitString:
		return []int64{-1}
	case c.multiValued():
		return []int64{-1, int64(c.g.MaxPooling())}
	case c.g.InputRank == 2:
		return []int64{-1, 1}
	}
	return []int64{-1}
}

// vocabulary returns the vocabulary list of a vocabulary column.
func vocabulary(n int64) []string {
	v := make([]string, n)
	for i := range v {
		v[i] = fmt.Sprintf("w%d", i)
	}
	return v
}

// boundaries returns the boundaries of a bucketized column: 0, 1, ..., n-1.
func boundaries(n int) []float32 {
	b := make([]float32, n)
	for i := range b {
		b[i] = float32(i)
	}
	return b
}
