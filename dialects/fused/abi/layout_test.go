package abi

import (
	"slices"
	"strings"
	"testing"
)

// The placement of every kind of region, computed by hand: row splits,
// one or two words per value, hashed strings in slots with the long
// ones' bytes, strings as offsets with their bytes, weights, and the id
// pass's scratch (a split column's 2n+bytes words). Layer.LayoutInto
// and the rules a runtime keeps (LayoutRules) place them alike, batch
// after batch into one Layout.
func TestLayoutRegions(t *testing.T) {
	hash := []Transform{{Op: TransformHash, NumBuckets: 10}}
	col := func(name, kind, source string, weighted bool, ts []Transform) Column {
		return Column{Name: name, Kind: kind, Combiner: "sum", Rows: 10, Width: 4, Lanes: 1, Vector: 4, StoreWidth: 4,
			Segments: 1, RowsInFlight: 1, BagsPerTask: 32, Pooling: 1, Source: source, Transforms: ts, Weighted: weighted, ParamsOffset: -1}
	}
	l := &Layer{Schedule: ScheduleTuned, Width: 28, Block: 256, Columns: []Column{
		col("ids", KindLookup, SourceIDs, true, nil),         // splits, ids, weights
		col("f32", KindGather, SourceF32, false, hash[:0:0]), // values only
		col("i64", KindLookup, SourceI64, false, []Transform{{Op: TransformCheckRange, NumBuckets: 10}}),
		col("slots", KindLookup, SourceStr, false, hash), // splits, slots, bytes; scratch
		col("offsets", KindGather, SourceStr, false, []Transform{{Op: TransformVocab}}),
		col("split", KindLookup, SourceSplit, false, hash), // no splits; offsets, bytes; scratch 2n+bytes
		col("f64", KindGather, SourceF64, false, []Transform{{Op: TransformCheckRange, NumBuckets: 10}}),
	}}
	for i := range l.Columns {
		c := &l.Columns[i]
		c.OutOffset = 4 * int64(i)
		c.TableOffset = int64(i) * TableAlign
		if len(c.Transforms) > 0 {
			c.ParamsOffset = int64(10+i) * TableAlign
		}
	}
	const batch = 5
	la, err := l.Launch(batch)
	if err != nil {
		t.Fatal(err)
	}
	sizes := []ColumnSize{{N: 7}, {N: 5}, {N: 3}, {N: 6, Bytes: 9}, {N: 5, Bytes: 13}, {N: 5, Bytes: 21}, {N: 5}}
	C := int64(len(l.Columns))
	pos := align4(l.TaskMapOffset() + la.Tasks)
	type region struct{ splits, values, weights, bytes, scratch int64 }
	var want []region
	next := func(n int64) int64 { at := pos; pos = align4(pos + n); return at }
	want = append(want, region{next(batch + 1), next(7), next(7), -1, -1}) // ids
	want = append(want, region{-1, next(5), -1, -1, -1})                   // f32
	want = append(want, region{next(batch + 1), next(2 * 3), -1, -1, -1})  // i64
	r := region{splits: next(batch + 1), values: next(2 * 6), weights: -1}
	r.bytes = next((9 + 3) / 4)
	want = append(want, r) // slots
	r = region{splits: -1, values: next(5 + 1), weights: -1}
	r.bytes = next((13 + 3) / 4)
	want = append(want, r) // offsets
	r = region{splits: -1, values: next(5 + 1), weights: -1}
	r.bytes = next((21 + 3) / 4)
	want = append(want, r)                                   // split
	want = append(want, region{-1, next(2 * 5), -1, -1, -1}) // f64
	words := pos
	want[2].scratch = next(3)        // i64: check_range, an id pass
	want[3].scratch = next(6)        // slots: hash
	want[4].scratch = next(5)        // offsets: vocab
	want[5].scratch = next(2*5 + 21) // split: 2n + bytes
	want[6].scratch = next(5)        // f64: check_range
	var lay Layout
	rules := l.LayoutRules()
	for round := range 3 { // the same Layout again and again
		if round == 1 {
			err = l.LayoutInto(&lay, la, sizes)
		} else {
			err = rules.LayoutInto(&lay, la, sizes)
		}
		if err != nil {
			t.Fatal(err)
		}
		if lay.Words != words || lay.Scratch != pos-words || lay.Header != align4(l.TaskMapOffset()+la.Tasks) {
			t.Fatalf("round %d: words %d scratch %d header %d, want %d %d", round, lay.Words, lay.Scratch, lay.Header, words, pos-words)
		}
		for i := range C {
			w, c := want[i], &l.Columns[i]
			params := int64(-1)
			if len(c.Transforms) > 0 {
				params = c.ParamsOffset / TableAlign
			}
			wantDesc := []int64{w.splits, w.values, w.weights, c.TableOffset / TableAlign, c.OutOffset, params, w.bytes, la.BagsPerTask[i], w.scratch}
			if got := lay.Desc[DescWords*i : DescWords*(i+1)]; !slices.Equal(got, wantDesc) {
				t.Errorf("round %d: column %q: descriptor %v, want %v", round, c.Name, got, wantDesc)
			}
		}
	}
	// Sizes the 32-bit offsets cannot hold are refused, naming the column.
	big := slices.Clone(sizes)
	big[3].Bytes = 1 << 33
	if err := rules.LayoutInto(&lay, la, big); err == nil || !strings.Contains(err.Error(), `"slots"`) {
		t.Errorf("2^33 bytes of strings: %v", err)
	}
	if err := rules.LayoutInto(&lay, la, sizes[:3]); err == nil {
		t.Error("3 sizes for 7 columns are taken")
	}
}
