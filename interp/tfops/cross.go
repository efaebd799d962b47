package tfops

import (
	le "encoding/binary"
	"math"
	"strconv"
	"strings"

	farm "github.com/dgryski/go-farm"

	"github.com/recom-compiler/recom/interp"
)

// The sparse crosses: SparseCross (crossed_column's op, hashed or joined
// as strings), SparseCrossV2 (strings joined with a given separator) and
// SparseCrossHashed (tf.raw_ops.SparseCrossHashed). The semantics follow
// TensorFlow's CPU kernel (tensorflow/core/kernels/sparse_cross_op.cc,
// tensorflow/tensorflow@042cf90):
//
//   - the inputs are the sparse tensors first, then the dense [B, k]
//     matrices; a sparse input's features of row b are its values whose
//     index row is b (in order), a dense input's are the k elements of
//     row b;
//   - row b of the output holds the cartesian product of its inputs'
//     features, the last input varying fastest; a row where an input has
//     no feature has no cross; the output's indices are [b, k] and its
//     dense shape [B, the most crosses of a row];
//   - strings: the features joined with the separator ("_X_" for
//     SparseCross), integers in decimal;
//   - SparseCross hashed: h = hash_key, then h = FingerprintCat64(h, f) for
//     each feature f (Fingerprint64 of a string, an int64 as itself); the
//     id is h mod num_buckets, or h mod (2^63 - 1) when num_buckets is 0;
//   - SparseCrossHashed: h starts at the first feature's hash instead of
//     a key; a string's hash is Fingerprint64, or with strong_hash
//     SipHash-2-4 keyed by salt; an int64 of a sparse input hashes its
//     first 4 bytes (little-endian), as TensorFlow's kernel does (it takes
//     sizeof(DataType), 4, as the length), with Fingerprint64 or SipHash;
//     an int64 of a dense input is itself, or with strong_hash SipHash of
//     its first 4 bytes.

// CrossMode is how a sparse cross combines the features of a cross.
type CrossMode int

const (
	// CrossJoin joins the features as strings with Sep (SparseCross with
	// out_type string, SparseCrossV2).
	CrossJoin CrossMode = iota
	// CrossHashKey is SparseCross's hashed output: FingerprintCat64 from
	// HashKey.
	CrossHashKey
	// CrossHashedV2 is SparseCrossHashed: FingerprintCat64 from the first
	// feature's hash.
	CrossHashedV2
)

// CrossSpec is what a sparse cross computes.
type CrossSpec struct {
	Mode       CrossMode
	Sep        string    // CrossJoin
	NumBuckets int64     // hashed: > 0, or 0 for 2^63 - 1
	HashKey    uint64    // CrossHashKey
	Strong     bool      // CrossHashedV2: SipHash-2-4 keyed with Salt
	Salt       [2]uint64 // CrossHashedV2
}

// CrossInput is one input of a sparse cross: the features of each batch
// row. A sparse input (Starts set) has row b's features at
// Values[Starts[b] : Starts[b+1]]; a dense one (Starts nil) is a [B, k]
// matrix with k features in every row.
type CrossInput struct {
	Values *interp.Tensor // int64 or string
	Starts []int64
}

// count returns the features of row b.
func (c *CrossInput) count(b int64) int64 {
	if c.Starts != nil {
		return c.Starts[b+1] - c.Starts[b]
	}
	return c.Values.Dim(1)
}

// at returns the element index of row b's n-th feature.
func (c *CrossInput) at(b, n int64) int {
	if c.Starts != nil {
		return int(c.Starts[b] + n)
	}
	return int(b*c.Values.Dim(1) + n)
}

// ShiftMix is TensorFlow's ShiftMix (tensorflow/core/platform/fingerprint.h).
func shiftMix(v uint64) uint64 { return v ^ (v >> 47) }

// FingerprintCat64 combines two fingerprints as TensorFlow's
// FingerprintCat64 does (tensorflow/core/platform/fingerprint.h): the
// combination of SparseCross's hashed output.
func FingerprintCat64(fp1, fp2 uint64) uint64 {
	const mul = 0xc6a4a7935bd1e995
	r := fp1 ^ mul
	r ^= shiftMix(fp2*mul) * mul
	r *= mul
	r = shiftMix(r) * mul
	return shiftMix(r)
}

// CrossBucket reduces a cross's hash h to its id: h mod numBuckets, or
// h mod (2^63 - 1) when numBuckets is 0.
func CrossBucket(h uint64, numBuckets int64) int64 {
	if numBuckets > 0 {
		return int64(h % uint64(numBuckets))
	}
	return int64(h % math.MaxInt64)
}

// CrossFeatureHash returns the hash a hashed cross of spec s combines for
// element i of t, an input's values (dense: a dense input's).
func CrossFeatureHash(s *CrossSpec, t *interp.Tensor, i int, dense bool) uint64 {
	if strs := t.Strings(); strs != nil {
		b := []byte(strs[i])
		if s.Mode == CrossHashedV2 && s.Strong {
			return SipHash24(s.Salt[0], s.Salt[1], b)
		}
		return farm.Fingerprint64(b)
	}
	v, _ := t.Int64At(i)
	if s.Mode != CrossHashedV2 || (dense && !s.Strong) {
		return uint64(v)
	}
	var b [8]byte
	le.LittleEndian.PutUint64(b[:], uint64(v))
	if s.Strong {
		return SipHash24(s.Salt[0], s.Salt[1], b[:4])
	}
	return farm.Fingerprint64(b[:4])
}

func crossString(t *interp.Tensor, i int) string {
	if s := t.Strings(); s != nil {
		return s[i]
	}
	v, _ := t.Int64At(i)
	return strconv.FormatInt(v, 10)
}

// Cross computes a sparse cross of the inputs over batch rows: each row's
// crosses as (splits, values), row b's at values[splits[b]:splits[b+1]]
// (int64 ids when hashed, else strings), and the most crosses of a row.
// The number of crosses is checked against interp.MaxElements before
// anything is allocated for them.
func Cross(op string, in []CrossInput, batch int64, s CrossSpec) (splits []int64, values *interp.Tensor, maxCount int64, err error) {
	for i := range in {
		v := in[i].Values
		if v.DType() != interp.Int64 && v.DType() != interp.String {
			return nil, nil, 0, errorf(op, "input %d has dtype %v, want int64 or string", i, v.DType())
		}
		if in[i].Starts == nil && (v.Rank() != 2 || v.Dim(0) != batch) {
			return nil, nil, 0, errorf(op, "dense input %d has shape %s, want [%d, k]", i, shapeStr(v.Shape()), batch)
		}
		if in[i].Starts != nil && int64(len(in[i].Starts)) != batch+1 {
			return nil, nil, 0, errorf(op, "input %d has %d row starts for %d rows", i, len(in[i].Starts), batch)
		}
	}
	if batch < 0 {
		return nil, nil, 0, errorf(op, "negative batch size %d", batch)
	}
	// Count first: the product of the inputs' features, every row.
	splits = make([]int64, batch+1)
	for b := range batch {
		n := int64(1)
		if len(in) == 0 {
			n = 0
		}
		for i := range in {
			c := in[i].count(b)
			if c == 0 {
				n = 0
				break
			}
			if n > interp.MaxElements/c {
				return nil, nil, 0, &interp.TooLargeError{What: op + "'s output", Limit: interp.MaxElements}
			}
			n *= c
		}
		maxCount = max(maxCount, n)
		if splits[b]+n > interp.MaxElements {
			return nil, nil, 0, &interp.TooLargeError{What: op + "'s output", Limit: interp.MaxElements}
		}
		splits[b+1] = splits[b] + n
	}
	total := splits[batch]
	var ids []int64
	var strs []string
	hashed := s.Mode != CrossJoin
	if hashed {
		ids = make([]int64, 0, total)
	} else {
		strs = make([]string, 0, total)
	}
	perm := make([]int64, len(in))
	var sb strings.Builder
	for b := range batch {
		clear(perm)
		for range splits[b+1] - splits[b] {
			if hashed {
				var h uint64
				for i := range in {
					f := CrossFeatureHash(&s, in[i].Values, in[i].at(b, perm[i]), in[i].Starts == nil)
					switch {
					case s.Mode == CrossHashKey && i == 0:
						h = FingerprintCat64(s.HashKey, f)
					case i == 0:
						h = f
					default:
						h = FingerprintCat64(h, f)
					}
				}
				ids = append(ids, CrossBucket(h, s.NumBuckets))
			} else {
				sb.Reset()
				for i := range in {
					if i > 0 {
						sb.WriteString(s.Sep)
					}
					sb.WriteString(crossString(in[i].Values, in[i].at(b, perm[i])))
				}
				strs = append(strs, sb.String())
			}
			// The next cross: the last input varies fastest.
			for i := len(perm) - 1; i >= 0; i-- {
				perm[i]++
				if perm[i] < in[i].count(b) {
					break
				}
				perm[i] = 0
			}
		}
	}
	if hashed {
		values, err = interp.New([]int64{total}, ids)
	} else {
		values, err = interp.New([]int64{total}, strs)
	}
	return splits, values, maxCount, err
}

// SparseCrossInputs checks the inputs of SparseCross and its variants as
// TensorFlow's kernel does (indices int64 [n, 2] matrices, values vectors
// of n, shapes int64 vectors of 2, dense inputs matrices, one batch size)
// and returns them as CrossInputs, sparse ones first, and the batch size.
// A sparse input's entries must be ordered by row and inside the batch:
// TensorFlow's kernel silently drops the others, here they are an error.
func SparseCrossInputs(op string, indices, values, shapes, dense []*interp.Tensor) ([]CrossInput, int64, error) {
	if len(values) != len(indices) || len(shapes) != len(indices) {
		return nil, 0, errorf(op, "expected %d input values and shapes, got %d and %d", len(indices), len(values), len(shapes))
	}
	for i := range indices {
		idx, v, sh := indices[i], values[i], shapes[i]
		if idx.DType() != interp.Int64 || idx.Rank() != 2 {
			return nil, 0, errorf(op, "input indices should be an int64 matrix but received %v of shape %s at position %d", idx.DType(), shapeStr(idx.Shape()), i)
		}
		if idx.Dim(1) != 2 {
			return nil, 0, errorf(op, "expected D2 of index to be 2 got %d at position %d", idx.Dim(1), i)
		}
		if v.Rank() != 1 || v.Dim(0) != idx.Dim(0) {
			return nil, 0, errorf(op, "expected size of values to be %d got shape %s at position %d", idx.Dim(0), shapeStr(v.Shape()), i)
		}
		if sh.DType() != interp.Int64 || sh.Rank() != 1 || sh.Dim(0) != 2 {
			return nil, 0, errorf(op, "shape should imply a 2D tensor, but got %v of shape %s at position %d", sh.DType(), shapeStr(sh.Shape()), i)
		}
	}
	for i, d := range dense {
		if d.Rank() != 2 {
			return nil, 0, errorf(op, "dense inputs should be a matrix but received shape %s at position %d", shapeStr(d.Shape()), i)
		}
	}
	batch := int64(0)
	switch {
	case len(shapes) > 0:
		batch = shapes[0].Int64s()[0]
	case len(dense) > 0:
		batch = dense[0].Dim(0)
	}
	if batch < 0 || batch > interp.MaxElements {
		return nil, 0, errorf(op, "batch size %d is outside [0, %d]", batch, interp.MaxElements)
	}
	var out []CrossInput
	for i := range indices {
		if b := shapes[i].Int64s()[0]; b != batch {
			return nil, 0, errorf(op, "expected batch size %d got %d at position %d", batch, b, i)
		}
		ix := indices[i].Int64s()
		starts := make([]int64, batch+1)
		for j := int64(0); j < indices[i].Dim(0); j++ {
			r := ix[2*j]
			if r < 0 || r >= batch {
				return nil, 0, errorf(op, "indices[%d][%d] has batch row %d outside [0, %d)", i, j, r, batch)
			}
			if j > 0 && r < ix[2*(j-1)] {
				return nil, 0, errorf(op, "indices[%d] are not ordered by batch row", i)
			}
			starts[r+1]++
		}
		for r := range batch {
			starts[r+1] += starts[r]
		}
		out = append(out, CrossInput{Values: values[i], Starts: starts})
	}
	for i, d := range dense {
		if d.Dim(0) != batch {
			return nil, 0, errorf(op, "expected batch size %d got %d at dense tensor %d", batch, d.Dim(0), i)
		}
		out = append(out, CrossInput{Values: d})
	}
	return out, batch, nil
}

// SparseCrossOutputs makes the SparseTensor of a cross from its rows
// (Cross's splits and values): indices [b, k] and dense shape
// [B, maxCount].
func SparseCrossOutputs(splits []int64, values *interp.Tensor, maxCount int64) (indices, shape *interp.Tensor, err error) {
	batch := int64(len(splits) - 1)
	n := splits[batch]
	if indices, err = interp.Zeros(interp.Int64, []int64{n, 2}); err != nil {
		return nil, nil, err
	}
	idx := indices.Int64s()
	for b := range batch {
		for k := splits[b]; k < splits[b+1]; k++ {
			idx[2*k], idx[2*k+1] = b, k-splits[b]
		}
	}
	return indices, interp.Vector(batch, maxCount), nil
}
