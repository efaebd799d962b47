package gen

import (
	"strings"

	"github.com/recom-compiler/recom/interp/npz"
)

// ColumnStats describes the feed of one column.
type ColumnStats struct {
	Key string
	// Coverage is the fraction of rows with at least one id.
	Coverage float64
	// MeanPooling is the mean number of ids of the rows that have any.
	MeanPooling float64
	// Invalid is the fraction of ids that are invalid (see Feed.Invalid).
	Invalid float64
}

// FeedStats measures feeds drawn for the spec, column by column (spec
// order); columns without an array are left zero.
func FeedStats(s *Spec, arrays []npz.Array) []ColumnStats {
	byName := map[string]npz.Array{}
	for _, a := range arrays {
		byName[a.Name] = a
	}
	var out []ColumnStats
	for _, c := range columns(s, "") {
		st := ColumnStats{Key: c.key}
		a, ok := byName[c.key]
		if !ok {
			out = append(out, st)
			continue
		}
		shape := a.Tensor.Shape()
		rows := int(shape[0])
		width := 1
		if len(shape) == 2 {
			width = int(shape[1])
		}
		var present, ids, invalid int
		for r := 0; r < rows; r++ {
			n := 0
			for j := 0; j < width; j++ {
				i := r*width + j
				switch {
				case c.g.Kind == SplitString:
					v := a.Tensor.Strings()[i]
					if v == "" {
						continue
					}
					for _, tok := range strings.Split(v, c.g.Separator) {
						n++
						if strings.HasPrefix(tok, "oov") {
							invalid++
						}
					}
				case a.Tensor.Strings() != nil:
					v := a.Tensor.Strings()[i]
					if v == "" {
						continue
					}
					n++
					if strings.HasPrefix(v, "oov") {
						invalid++
					}
				case a.Tensor.Int64s() != nil:
					v := a.Tensor.Int64s()[i]
					if v == -1 {
						continue
					}
					n++
					if v < 0 || v >= c.g.Buckets {
						invalid++
					}
				case a.Tensor.Float32s() != nil:
					v := a.Tensor.Float32s()[i]
					n++
					if v < -1 || v > float32(c.g.Boundaries)+1 {
						invalid++
					}
				}
			}
			if n > 0 {
				present++
				ids += n
			}
		}
		if rows > 0 {
			st.Coverage = float64(present) / float64(rows)
		}
		if present > 0 {
			st.MeanPooling = float64(ids) / float64(present)
		}
		if ids > 0 {
			st.Invalid = float64(invalid) / float64(ids)
		}
		out = append(out, st)
	}
	return out
}
