package gen

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"

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
	ex.what = fmt.Sprintf("serialized tf.Example records (%d sparse, %d dense features)", counts[0], counts[1])
	return ex, nil
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
	for _, fd := range ex.features {
		f, d := fd.f, fd.d
		n := 0
		if f.dense {
			if f.hasDefault && r.Float64() < ex.missing {
				continue
			}
			n = 1
			for i, s := range f.shape {
				if s < 0 && i == 0 {
					s = int64(d.length(r, defaultWidth))
				}
				n *= int(max(s, 0))
			}
		} else {
			if d.empty > 0 && r.Float64() < d.empty {
				continue
			}
			n = d.length(r, 1<<30)
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
