package tfops

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/recom-compiler/recom/interp"
)

func TestDynamicPartition(t *testing.T) {
	data := tn[float32](sh(4, 2), 1, 2, 3, 4, 5, 6, 7, 8)
	out, err := DynamicPartition(data, vec[int32](1, 0, 1, 1), 3)
	if err != nil {
		t.Fatal(err)
	}
	check(t, "partition 0", out[0], nil, tn[float32](sh(1, 2), 3, 4), "")
	check(t, "partition 1", out[1], nil, tn[float32](sh(3, 2), 1, 2, 5, 6, 7, 8), "")
	check(t, "partition 2 (empty)", out[2], nil, tn[float32](sh(0, 2)), "")

	// Partitions of rank 2 over rank-2 data: scalars out.
	out, err = DynamicPartition(tn[int64](sh(2, 2), 10, 11, 12, 13), tn[int32](sh(2, 2), 0, 1, 1, 0), 2)
	if err != nil {
		t.Fatal(err)
	}
	check(t, "rank-2 partitions 0", out[0], nil, vec[int64](10, 13), "")
	check(t, "rank-2 partitions 1", out[1], nil, vec[int64](11, 12), "")

	for _, tc := range []struct {
		name      string
		data, par *interp.Tensor
		n         int64
		err       string
	}{
		{"out of range", data, vec[int32](0, 3, 1, 1), 3, "partitions[1] = 3 is not in [0, 3)"},
		{"negative", data, vec[int32](0, -1, 1, 1), 3, "partitions[1] = -1"},
		{"shape not a prefix", data, vec[int32](0, 1, 1), 3, "must start with partitions.shape"},
		{"int64 partitions", data, vec[int64](0, 1, 1, 0), 3, "must be int32"},
		{"no partitions", data, vec[int32](0, 0, 0, 0), 0, "at least 1"},
	} {
		_, err := DynamicPartition(tc.data, tc.par, tc.n)
		check(t, tc.name, nil, err, nil, tc.err)
	}
}

func TestDynamicStitch(t *testing.T) {
	got, err := DynamicStitch(
		[]*interp.Tensor{vec[int32](6), vec[int32](4, 1), tn[int32](sh(2, 2), 5, 2, 0, 3)},
		[]*interp.Tensor{tn[float32](sh(1, 2), 61, 62), tn[float32](sh(2, 2), 41, 42, 11, 12),
			tn[float32](sh(2, 2, 2), 51, 52, 21, 22, 1, 2, 31, 32)})
	check(t, "TensorFlow's example", got, err,
		tn[float32](sh(7, 2), 1, 2, 11, 12, 21, 22, 31, 32, 41, 42, 51, 52, 61, 62), "")
	got, err = DynamicStitch([]*interp.Tensor{vec[int32](0, 1), vec[int32](1)},
		[]*interp.Tensor{vec[int64](7, 8), vec[int64](9)})
	check(t, "a later index wins", got, err, vec[int64](7, 9), "")
	got, err = DynamicStitch([]*interp.Tensor{vec[int32](3)}, []*interp.Tensor{vec[int32](5)})
	check(t, "gaps are zero", got, err, vec[int32](0, 0, 0, 5), "")
	got, err = DynamicStitch([]*interp.Tensor{vec[int32]()}, []*interp.Tensor{tn[float32](sh(0, 3))})
	check(t, "no indices", got, err, tn[float32](sh(0, 3)), "")

	for _, tc := range []struct {
		name      string
		ind, data []*interp.Tensor
		err       string
	}{
		{"negative index", []*interp.Tensor{vec[int32](0, -1)}, []*interp.Tensor{vec[float32](1, 2)}, "is out of range"},
		{"shape mismatch", []*interp.Tensor{vec[int32](0), vec[int32](1)},
			[]*interp.Tensor{tn[float32](sh(1, 2), 1, 2), tn[float32](sh(1, 3), 1, 2, 3)}, "does not equal"},
		{"dtype mismatch", []*interp.Tensor{vec[int32](0), vec[int32](1)},
			[]*interp.Tensor{vec[float32](1), vec[int32](1)}, "is int32"},
		{"unpaired", []*interp.Tensor{vec[int32](0)}, nil, "as many indices"},
		{"too large", []*interp.Tensor{vec[int32](math.MaxInt32)}, []*interp.Tensor{tn[float32](sh(1, 4), 1, 2, 3, 4)}, "limit"},
	} {
		_, err := DynamicStitch(tc.ind, tc.data)
		check(t, tc.name, nil, err, nil, tc.err)
	}
}

// TestPartitionedLookup runs embedding_lookup's op chain for a table in
// shards (DynamicPartition of the ids by shard, a gather per shard,
// DynamicStitch of the rows) with both partition strategies, as
// embedding_ops.py writes them, and checks it against a gather from the
// whole table: shard p of "div" holds a contiguous block of rows, shard p
// of "mod" the rows r with r mod n == p.
func TestPartitionedLookup(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, rows := range []int64{13, 16, 5} {
		for _, n := range []int64{1, 2, 3, 5} {
			const d = 3
			full := make([]float32, rows*d)
			for i := range full {
				full[i] = r.Float32()
			}
			table := tn(sh(rows, d), full...)
			ids := make([]int64, 40)
			for i := range ids {
				ids[i] = r.Int64N(rows)
			}
			want, err := GatherV2(table, vec(ids...), sc[int32](0), 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, strategy := range []string{"mod", "div"} {
				shards := shardRows(rows, n, strategy)
				parts := make([]*interp.Tensor, n)
				for p, rs := range shards {
					var vals []float32
					for _, row := range rs {
						vals = append(vals, full[row*d:(row+1)*d]...)
					}
					parts[p] = tn(sh(int64(len(rs)), d), vals...)
				}
				got, err := lookupPartitioned(parts, vec(ids...), strategy)
				if err != nil {
					t.Fatalf("%d rows, %d shards, %s: %v", rows, n, strategy, err)
				}
				check(t, strategy, got, nil, want, "")
			}
		}
	}
}

// shardRows returns the rows of the whole table that each shard holds:
// the first rows % n shards one more than the others.
func shardRows(rows, n int64, strategy string) [][]int64 {
	out := make([][]int64, n)
	if strategy == "mod" {
		for r := int64(0); r < rows; r++ {
			out[r%n] = append(out[r%n], r)
		}
		return out
	}
	next := int64(0)
	for p := range n {
		size := rows / n
		if p < rows%n {
			size++
		}
		for range size {
			out[p] = append(out[p], next)
			next++
		}
	}
	return out
}

// lookupPartitioned is _embedding_lookup_and_transform for len(params) > 1.
func lookupPartitioned(params []*interp.Tensor, ids *interp.Tensor, strategy string) (*interp.Tensor, error) {
	np := int64(len(params))
	npT := sc(np)
	var assign, newIDs *interp.Tensor
	var err error
	must := func(t *interp.Tensor, e error) *interp.Tensor {
		if e != nil && err == nil {
			err = e
		}
		return t
	}
	if strategy == "mod" {
		assign = must(FloorMod(ids, npT))
		newIDs = must(FloorDiv(ids, npT))
	} else {
		total := int64(0)
		for _, p := range params {
			total += p.Dim(0)
		}
		tot := sc(total)
		ipp := must(FloorDiv(tot, npT))
		extras := must(FloorMod(tot, npT))
		ipp1 := must(AddV2(ipp, sc[int64](1)))
		assign = must(Maximum(must(FloorDiv(ids, ipp1)), must(FloorDiv(must(Sub(ids, extras)), ipp))))
		newIDs = must(Select(must(Less(assign, extras)), must(FloorMod(ids, ipp1)), must(FloorMod(must(Sub(ids, extras)), ipp))))
	}
	if err != nil {
		return nil, err
	}
	a32 := make([]int32, assign.Len())
	for i, v := range assign.Int64s() {
		a32[i] = int32(v)
	}
	assign32 := vec(a32...)
	gather, err := DynamicPartition(newIDs, assign32, np)
	if err != nil {
		return nil, err
	}
	pos := make([]int32, ids.Len())
	for i := range pos {
		pos[i] = int32(i)
	}
	pindices, err := DynamicPartition(vec(pos...), assign32, np)
	if err != nil {
		return nil, err
	}
	rows := make([]*interp.Tensor, np)
	for p := range rows {
		if rows[p], err = GatherV2(params[p], gather[p], sc[int32](0), 0); err != nil {
			return nil, err
		}
	}
	return DynamicStitch(pindices, rows)
}

func TestDivNoNan(t *testing.T) {
	inf := float32(math.Inf(1))
	got, err := DivNoNan(tn[float32](sh(2, 2), 1, 2, 3, inf), tn[float32](sh(2, 1), 2, 0))
	check(t, "broadcast, zero divisor", got, err, tn[float32](sh(2, 2), 0.5, 1, 0, 0), "")
	got, err = DivNoNan(vec(0.0, 1), vec(0.0, 4))
	check(t, "0/0", got, err, vec(0.0, 0.25), "")
	_, err = DivNoNan(vec[int32](1), vec[int32](0))
	check(t, "ints", nil, err, nil, "unsupported dtype")
}
