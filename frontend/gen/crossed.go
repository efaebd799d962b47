package gen

import (
	"math/rand/v2"
	"strconv"

	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
	"github.com/recom-compiler/recom/interp"
)

// DefaultHashKey is crossed_column's hash key when it names none
// (sparse_ops._DEFAULT_HASH_KEY).
const DefaultHashKey = 0xDECAFCAFFE

// numShape is the shape of a crossed column's numeric feature: one value
// per row, [batch] or [batch, 1] as the group's input rank says.
func (c *column) numShape() []int64 {
	if c.g.InputRank == 2 {
		return []int64{-1, 1}
	}
	return []int64{-1}
}

func aTypes(ts ...tfpb.DataType) *tfpb.AttrValue {
	return &tfpb.AttrValue{Value: &tfpb.AttrValue_List{List: &tfpb.AttrValue_ListValue{Type: ts}}}
}

// crossed is _CrossedColumn._get_sparse_tensors: each key's tensor (a raw
// feature as _LazyBuilder.get gives it, ExpandDims'd to [batch, 1] when it
// is [batch]; a bucketized column's sparse ids), then
// sparse_ops.sparse_cross_hashed(keys, hash_bucket_size, hash_key), whose
// _sparse_cross_internal passes the SparseTensors first and casts integer
// values to int64.
func (g *gen) crossed(c *column) sparseT {
	b := g.b
	var sparse []sparseT
	if c.numKey != "" {
		sp := g.bucketized(c, c.numKey, c.numShape())
		sp.values = b.cast("Cast", sp.values, dtInt64)
		sparse = append(sparse, sp)
	}
	dense := []tensor{g.raw(c, c.key), g.raw(c, c.intKey)}
	var in []tensor
	var sparseTypes, denseTypes []tfpb.DataType
	for _, sp := range sparse {
		in = append(in, sp.indices)
	}
	for _, sp := range sparse {
		in = append(in, sp.values)
		sparseTypes = append(sparseTypes, sp.values.dt)
	}
	for _, sp := range sparse {
		in = append(in, sp.shape)
	}
	internal := dtString
	for _, x := range dense {
		in = append(in, x)
		denseTypes = append(denseTypes, x.dt)
		if x.dt != dtString {
			internal = dtInt64
		}
	}
	for _, t := range sparseTypes {
		if t != dtString {
			internal = dtInt64
		}
	}
	sc := b.op("SparseCross", "SparseCross", in, attrs("N", aInt(int64(len(sparse))), "hashed_output", aBool(true),
		"num_buckets", aInt(c.g.Buckets), "hash_key", aInt(DefaultHashKey), "sparse_types", aTypes(sparseTypes...),
		"dense_types", aTypes(denseTypes...), "out_type", aType(dtInt64), "internal_type", aType(internal)))
	return sparseT{indices: sc.out(0, dtInt64), values: sc.out(1, dtInt64), shape: sc.out(2, dtInt64)}
}

// crossedFeeds draws a crossed column's features: strings "v<id>" and
// int64 ids (a row's bag padded with "" and -1 to the placeholder's width:
// TensorFlow crosses the padding too), and with Boundaries a value of the
// numeric feature (bucket b drawn as b - 0.5).
func crossedFeeds(seed uint64, c *column, batch int, add func(string, *interp.Tensor, error) error) error {
	shape := c.placeholderShape()
	shape[0] = int64(batch)
	width := 1
	if len(shape) == 2 {
		width = int(shape[1])
	}
	strs := make([]string, batch*width)
	for i, bag := range drawBags(streamRNG(seed, c.key), c, batch) {
		for j, id := range bag {
			if id < 0 {
				strs[i*width+j] = "oov" + strconv.FormatInt(-id, 10)
			} else {
				strs[i*width+j] = "v" + strconv.FormatInt(id, 10)
			}
		}
	}
	t, err := interp.New(shape, strs)
	if err := add(c.key, t, err); err != nil {
		return err
	}
	ints := make([]int64, batch*width)
	for i := range ints {
		ints[i] = -1
	}
	for i, bag := range drawBags(streamRNG(seed, c.intKey), c, batch) {
		copy(ints[i*width:], bag)
	}
	t, err = interp.New(shape, ints)
	if err := add(c.intKey, t, err); err != nil {
		return err
	}
	if c.numKey == "" {
		return nil
	}
	r := streamRNG(seed, c.numKey)
	nums := make([]float32, batch)
	for i := range nums {
		nums[i] = float32(drawBucket(r, c.g)) - 0.5
	}
	ns := c.numShape()
	ns[0] = int64(batch)
	t, err = interp.New(ns, nums)
	return add(c.numKey, t, err)
}

// drawBucket draws the bucket of a crossed column's numeric feature: one
// of its Boundaries+1 buckets, or with the invalid fraction far outside
// the boundaries.
func drawBucket(r *rand.Rand, g *Group) int64 {
	if g.Feed.Invalid > 0 && r.Float64() < g.Feed.Invalid {
		if r.IntN(2) == 0 {
			return -1_000_000
		}
		return 1_000_000
	}
	return r.Int64N(int64(g.Boundaries) + 1)
}
