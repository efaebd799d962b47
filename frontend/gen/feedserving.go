package gen

import (
	"fmt"
	"sort"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/npz"
	"github.com/recom-compiler/recom/interp/tfexample"
)

// denseMissing is the fraction of records that leave the dense part's
// features out (the parse then gives their default, zeros).
const denseMissing = 0.1

// exampleFeeds turns the feeds Feeds drew for the placeholders of a spec
// into the serialized tf.Example records of its serving input (one
// ExampleInput array of batch strings): each record holds, for each
// feature key, the row's values without the padding the placeholders
// carry ("" for strings, -1 for integers, and the weights at those
// places); a sparse feature whose row is empty and a split_string feature
// whose row is "" are left out of the record (the parse gives an empty
// row and the default "" for them), and a tenth of the records leave the
// dense features out. Keys are written in sorted order (rotated where the
// record would end in a zero byte: npzSafe).
func exampleFeeds(s *Spec, arrays []npz.Array, batch int, seed uint64) ([]npz.Array, error) {
	byName := map[string]*interp.Tensor{}
	for _, a := range arrays {
		byName[a.Name] = a.Tensor
	}
	records := make([]tfexample.Example, batch)
	add := func(row int, key string, f tfexample.Feature) {
		records[row] = append(records[row], tfexample.Entry{Key: key, Feature: f})
	}
	for _, c := range columns(s, "") {
		t := byName[c.key]
		if t == nil {
			return nil, fmt.Errorf("feed %s: not drawn", c.key)
		}
		width := t.Len() / batch
		switch c.g.Kind {
		case HashedString, Vocabulary, Shared, Weighted:
			v := t.Strings()
			var w []float32
			if c.g.Kind == Weighted {
				w = byName[c.weightKey].Float32s()
			}
			for i := range batch {
				var ids []string
				var ws []float32
				for j := i * width; j < (i+1)*width; j++ {
					if v[j] == "" {
						continue
					}
					ids = append(ids, v[j])
					if w != nil {
						ws = append(ws, w[j])
					}
				}
				if len(ids) == 0 {
					continue
				}
				add(i, c.key, tfexample.Bytes(ids...))
				if w != nil {
					add(i, c.weightKey, tfexample.Floats(ws...))
				}
			}
		case HashedInt, Identity:
			v := t.Int64s()
			for i := range batch {
				var ids []int64
				for _, x := range v[i*width : (i+1)*width] {
					if x != -1 {
						ids = append(ids, x)
					}
				}
				if len(ids) > 0 {
					add(i, c.key, tfexample.Int64s(ids...))
				}
			}
		case SplitString:
			for i, x := range t.Strings() {
				if x != "" {
					add(i, c.key, tfexample.Bytes(x))
				}
			}
		case Bucketized:
			for i, x := range t.Float32s() {
				add(i, c.key, tfexample.Floats(x))
			}
		case Crossed:
			// Required fixed-length features: every row's values as fed.
			iv, nv := byName[c.intKey], byName[c.numKey]
			if iv == nil || (c.numKey != "" && nv == nil) {
				return nil, fmt.Errorf("feed %s: its crossed features are not drawn", c.key)
			}
			v, ints := t.Strings(), iv.Int64s()
			for i := range batch {
				add(i, c.key, tfexample.Bytes(v[i*width:(i+1)*width]...))
				add(i, c.intKey, tfexample.Int64s(ints[i*width:(i+1)*width]...))
				if nv != nil {
					add(i, c.numKey, tfexample.Floats(nv.Float32s()[i]))
				}
			}
		}
	}
	if d := s.Dense; d != nil {
		v := byName[DenseInput].Float32s()
		r := streamRNG(seed, DenseInput+"/missing")
		for i := range batch {
			if r.Float64() < denseMissing {
				continue
			}
			add(i, DenseInput, tfexample.Floats(v[i*d.Features:(i+1)*d.Features]...))
		}
	}
	out := make([]string, batch)
	for i, e := range records {
		sort.SliceStable(e, func(a, b int) bool { return e[a].Key < e[b].Key })
		out[i] = string(npzSafe(e))
	}
	return []npz.Array{{Name: ExampleInput, Tensor: interp.Vector(out...)}}, nil
}

// npzSafe marshals a record so that it does not end in a zero byte, which
// .npz's fixed-width strings would drop: its entries are rotated until
// one does not, or else an Example field TensorFlow's parsers skip (field
// 2, a varint 1) ends it.
func npzSafe(e tfexample.Example) []byte {
	for range max(len(e), 1) {
		if b := e.Marshal(); len(b) == 0 || b[len(b)-1] != 0 {
			return b
		}
		if len(e) < 2 {
			break // nothing to rotate: an empty record marshals as an empty features message
		}
		e = append(e[len(e)-1:], e[:len(e)-1]...)
	}
	return protowire.AppendVarint(protowire.AppendTag(e.Marshal(), 2, protowire.VarintType), 1)
}
