package gen

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/npz"
)

// Feeds draws random inputs for every Placeholder of the spec's model, for
// a batch of the given size: one array per placeholder, named like it, in
// creation order. Each column draws from its own stream of the seed, so a
// column's feed does not depend on the others. Rows are empty with
// probability 1-coverage; present rows hold a bag of ids whose length
// follows the pooling distribution; a fraction `invalid` of ids are
// negative, out of vocabulary or outside the boundaries. An absent
// split_string feature is "", which StringSplitV2 (like Python's
// str.split) turns into one empty token: as in TensorFlow, such a row pools
// the embedding of hash(""), it is not an empty row. A spec with serving
// inputs gets the one array of serialized tf.Example records that holds
// those values (exampleFeeds).
func Feeds(s *Spec, batch int, seed uint64) ([]npz.Array, error) {
	if err := CheckRows(int64(batch)); err != nil {
		return nil, &FieldError{Field: "batch", Msg: err.Error()}
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if err := s.CheckSize(); err != nil {
		return nil, err
	}
	var out []npz.Array
	add := func(name string, t *interp.Tensor, err error) error {
		if err != nil {
			return fmt.Errorf("feed %s: %w", name, err)
		}
		out = append(out, npz.Array{Name: name, Tensor: t})
		return nil
	}
	for _, c := range columns(s, "") {
		r := streamRNG(seed, c.key)
		bags := drawBags(r, c, batch)
		shape := c.placeholderShape()
		shape[0] = int64(batch)
		width := 1
		if len(shape) == 2 {
			width = int(shape[1])
		}
		switch c.g.Kind {
		case Crossed:
			if err := crossedFeeds(seed, c, batch, add); err != nil {
				return nil, err
			}
		case SplitString:
			v := make([]string, batch)
			for i, bag := range bags {
				toks := make([]string, len(bag))
				for j, id := range bag {
					toks[j] = "v" + strconv.FormatInt(id, 10)
				}
				v[i] = strings.Join(toks, c.g.Separator)
			}
			t, err := interp.New(shape, v)
			if err := add(c.key, t, err); err != nil {
				return nil, err
			}
		case HashedString, Shared, Weighted, Vocabulary:
			v := make([]string, batch*width)
			prefix := "v"
			if c.g.Kind == Vocabulary {
				prefix = "w"
			}
			for i, bag := range bags {
				for j, id := range bag {
					switch {
					case id < 0:
						v[i*width+j] = "oov" + strconv.FormatInt(-id, 10)
					default:
						v[i*width+j] = prefix + strconv.FormatInt(id, 10)
					}
				}
			}
			t, err := interp.New(shape, v)
			if err := add(c.key, t, err); err != nil {
				return nil, err
			}
			if c.g.Kind == Weighted {
				w := make([]float32, batch*width)
				for i, bag := range bags {
					for j := range bag {
						w[i*width+j] = float32(0.1 + 1.9*r.Float64())
					}
				}
				t, err := interp.New(shape, w)
				if err := add(c.weightKey, t, err); err != nil {
					return nil, err
				}
			}
		case HashedInt, Identity:
			v := make([]int64, batch*width)
			for i := range v {
				v[i] = -1
			}
			for i, bag := range bags {
				copy(v[i*width:], bag)
			}
			t, err := interp.New(shape, v)
			if err := add(c.key, t, err); err != nil {
				return nil, err
			}
		case Bucketized:
			v := make([]float32, batch)
			for i, bag := range bags {
				v[i] = float32(bag[0]) - 0.5
			}
			t, err := interp.New(shape, v)
			if err := add(c.key, t, err); err != nil {
				return nil, err
			}
		}
	}
	if d := s.Dense; d != nil {
		r := streamRNG(seed, DenseInput)
		v := make([]float32, batch*d.Features)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		t, err := interp.New([]int64{int64(batch), int64(d.Features)}, v)
		if err := add(DenseInput, t, err); err != nil {
			return nil, err
		}
	}
	if s.Serving != "" {
		return exampleFeeds(s, out, batch, seed)
	}
	return out, nil
}

func streamRNG(seed uint64, name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.New(rand.NewPCG(seed, h.Sum64()^0x9e3779b97f4a7c15))
}

// universe is the number of distinct valid ids a column's feed draws from.
func universe(g *Group) int64 {
	switch g.Kind {
	case Vocabulary:
		return g.VocabularySize
	case Bucketized:
		return int64(g.Boundaries) + 1
	}
	return g.Buckets
}

// drawBags draws each row's ids. Valid ids are in [0, universe); invalid
// ones are encoded per kind: negative (< -1) for integers and strings (an
// out-of-vocabulary string "oov<n>"), >= buckets for identity columns with
// a default value, and far outside the boundaries for bucketized columns.
func drawBags(r *rand.Rand, c *column, batch int) [][]int64 {
	g := c.g
	u := universe(g)
	var zipf *rand.Zipf
	if p := g.Feed.Popularity; p != nil && p.Dist == "zipf" && u > 1 {
		zipf = rand.NewZipf(r, p.S, 1, uint64(u-1))
	}
	draw := func() int64 {
		if g.Feed.Invalid > 0 && r.Float64() < g.Feed.Invalid {
			switch {
			case g.Kind == Bucketized:
				if r.IntN(2) == 0 {
					return -1_000_000
				}
				return 1_000_000
			case g.Kind == Identity && g.DefaultValue != nil && r.IntN(2) == 0:
				return g.Buckets + r.Int64N(1000)
			}
			return -2 - r.Int64N(1000)
		}
		if zipf != nil {
			return int64(zipf.Uint64())
		}
		return r.Int64N(u)
	}
	cov := g.Feed.coverage()
	bags := make([][]int64, batch)
	for i := range bags {
		if cov < 1 && r.Float64() >= cov {
			continue
		}
		n := poolLength(r, g)
		bag := make([]int64, n)
		for j := range bag {
			bag[j] = draw()
			if g.Kind == Bucketized {
				// Bucket b is drawn as the value b - 0.5.
				if bag[j] == -1_000_000 || bag[j] == 1_000_000 {
					continue
				}
			}
		}
		bags[i] = bag
	}
	return bags
}

// poolLength draws a bag length from the group's pooling distribution.
func poolLength(r *rand.Rand, g *Group) int {
	p := g.Feed.Pooling
	if p == nil {
		return 1
	}
	switch p.Dist {
	case "fixed":
		return p.Length
	case "uniform":
		return p.Min + r.IntN(p.Max-p.Min+1)
	case "normal":
		for range 1000 {
			if n := int(math.Round(p.Mean + p.Std*r.NormFloat64())); n >= 1 && n <= p.Max {
				return n
			}
		}
		return int(math.Round(p.Mean))
	case "one_sided_normal":
		for range 1000 {
			if n := int(math.Round(p.Mean + math.Abs(p.Std*r.NormFloat64()))); n <= p.Max {
				return max(n, 1)
			}
		}
		return int(math.Round(p.Mean))
	}
	return 1
}
