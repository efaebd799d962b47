package gen

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/tfexample"
	"github.com/recom-compiler/recom/textir"
)

// exampleDomain draws serialized tf.Example records.
type exampleDomain struct {
	features []*featureDomain
	missing  float64
	what     string
}

type featureDomain struct {
	f *exampleFeature
	d *domain
	// ids: for the weight feature of a weighted categorical column, the
	// column's ids feature, whose count of values a record's weights
	// must have (TensorFlow pairs them by their sparse indices).
	ids *featureDomain
}

func newExampleDomain(parses []*textir.Operation, sp *InputSpec, tables *tableSource) (*exampleDomain, error) {
	ex := &exampleDomain{missing: defaultMissing}
	if sp.Missing != nil {
		ex.missing = *sp.Missing
	}
	seen := map[string]bool{}
	var counts [2]int
	for _, op := range parses {
		fs, err := exampleFeatures(op)
		if err != nil {
			return nil, err
		}
		for _, f := range fs {
			if seen[f.key] {
				continue
			}
			seen[f.key] = true
			inherit := &InputSpec{MinLength: sp.MinLength, MaxLength: sp.MaxLength, Empty: sp.Empty, Invalid: sp.Invalid}
			fsp := sp.Features[f.key].merged(inherit)
			d, err := newDomain(f.vals, fsp, tables)
			if err != nil {
				return nil, fmt.Errorf("feature %q: %w", f.key, err)
			}
			if f.dense {
				counts[1]++
			} else {
				counts[0]++
			}
			ex.features = append(ex.features, &featureDomain{f: f, d: d})
		}
	}
	for k := range sp.Features {
		if !seen[k] {
			return nil, &FieldError{Field: "features." + k, Msg: "the graph parses no such feature"}
		}
	}
	slices.SortFunc(ex.features, func(a, b *featureDomain) int { return strings.Compare(a.f.key, b.f.key) })
	weighted := pairWeights(ex.features, parses)
	ex.what = fmt.Sprintf("serialized tf.Example records (%d sparse, %d dense features)", counts[0], counts[1])
	if weighted > 0 {
		ex.what += fmt.Sprintf(", %d weight features as long as their ids", weighted)
	}
	return ex, nil
}

// weightedBy is in the name of a weighted categorical column, and of the
// nodes under it: TensorFlow names the column IDS_weighted_by_WEIGHTS
// after its categorical column (named by its feature key) and its weight
// feature's key (feature_column's WeightedCategoricalColumn.name).
const weightedBy = "_weighted_by_"

// pairWeights finds the weighted categorical columns among the sparse
// features, by the names of the graph's nodes (weightedBy), and sets each
// weight feature's ids; it returns how many it paired.
func pairWeights(features []*featureDomain, parses []*textir.Operation) int {
	if len(parses) == 0 {
		return 0
	}
	sparse := map[string]*featureDomain{}
	for _, fd := range features {
		if !fd.f.dense {
			sparse[fd.f.key] = fd
		}
	}
	top := parses[0]
	for top.ParentOp() != nil {
		top = top.ParentOp()
	}
	n := 0
	top.Walk(func(op *textir.Operation) bool {
		name := tfg.NodeName(op)
		if !strings.Contains(name, weightedBy) {
			return true
		}
		for _, seg := range strings.Split(name, "/") {
			idsKey, rest, ok := strings.Cut(seg, weightedBy)
			ids := sparse[idsKey]
			if !ok || ids == nil {
				continue
			}
			// The weight key is the longest sparse float feature's key that
			// starts the rest ("_embedding", "_indicator" or nothing follow).
			var w *featureDomain
			for key, fd := range sparse {
				if fd != ids && fd.f.dtype == interp.Float32 && strings.HasPrefix(rest, key) &&
					(len(rest) == len(key) || rest[len(key)] == '_') && (w == nil || len(key) > len(w.f.key)) {
					w = fd
				}
			}
			if w != nil && w.ids == nil {
				w.ids = ids
				n++
			}
		}
		return true
	})
	return n
}

// draw draws one serialized record. A record must not end in a zero byte:
// .npz stores strings as NumPy's fixed-width bytes, which drop trailing
// zeros (an empty list, a last value 0); its entries are put in another
// order, or its values drawn again, until it does not.
func (ex *exampleDomain) draw(r *rand.Rand) (string, error) {
	for range 20 {
		e, err := ex.drawExample(r)
		if err != nil {
			return "", err
		}
		for range max(len(e), 1) {
			if b := e.Marshal(); len(b) == 0 || b[len(b)-1] != 0 {
				return string(b), nil
			}
			if len(e) == 0 {
				break // no feature (its features message is empty: 0x0a 0x00)
			}
			e = append(e[len(e)-1:], e[:len(e)-1]...)
		}
	}
	// Every entry ends in a zero byte, draw after draw (a feed spec of
	// zeros): an Example field TensorFlow's parsers skip ends the record.
	e, err := ex.drawExample(r)
	if err != nil {
		return "", err
	}
	return string(protowire.AppendVarint(protowire.AppendTag(e.Marshal(), 2, protowire.VarintType), 1)), nil
}

// drawExample draws the features of one record.
func (ex *exampleDomain) drawExample(r *rand.Rand) (tfexample.Example, error) {
	var e tfexample.Example
	// Each feature's count of values, -1 when the record leaves it out;
	// then a weight feature takes its ids' count.
	counts := make(map[*featureDomain]int, len(ex.features))
	for _, fd := range ex.features {
		f, d := fd.f, fd.d
		n := -1
		switch {
		case f.dense && !(f.hasDefault && r.Float64() < ex.missing):
			n = 1
			for i, s := range f.shape {
				if s < 0 && i == 0 {
					s = int64(d.length(r, defaultWidth))
				}
				n *= int(max(s, 0))
			}
		case !f.dense && !(d.empty > 0 && r.Float64() < d.empty):
			n = d.length(r, 1<<30)
		}
		counts[fd] = n
	}
	for _, fd := range ex.features {
		f, d := fd.f, fd.d
		n := counts[fd]
		if fd.ids != nil {
			n = counts[fd.ids]
		}
		if n < 0 {
			continue
		}
		var feat tfexample.Feature
		switch f.dtype {
		case interp.Int64:
			v := make([]int64, n)
			for i := range v {
				v[i] = d.drawInt(r)
			}
			feat = tfexample.Int64s(v...)
		case interp.Float32:
			v := make([]float32, n)
			for i := range v {
				v[i] = float32(d.drawFloat(r))
			}
			feat = tfexample.Floats(v...)
		default:
			v := make([]string, n)
			for i := range v {
				s, err := d.drawString(r)
				if err != nil {
					return nil, err
				}
				v[i] = s
			}
			feat = tfexample.Bytes(v...)
		}
		e = append(e, tfexample.Entry{Key: f.key, Feature: feat})
	}
	return e, nil
}
