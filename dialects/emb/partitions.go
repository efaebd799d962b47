package emb

import (
	"fmt"

	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/textir"
)

// Partitioned tables. TensorFlow splits a large variable into shards
// along its rows (a tf.compat.v1 partitioner: variables "<name>/part_0",
// "<name>/part_1", ...), and embedding_lookup finds an id's row by a
// partition strategy. An emb.table with 'partitions' (the shards' variable
// names, in order) and 'partition_strategy' stands for the whole [R, D]
// table:
//
//	"mod": row r is row r / n of shard r mod n;
//	"div": the shards' rows one after the other.
//
// Shard p of n has R / n rows, one more when p < R mod n: what
// TensorFlow's partitioners make, and what both strategies need so that
// exactly the ids in [0, R) have a row (--lower-emb checks the sizes).

// Attributes of a partitioned emb.table.
const (
	AttrPartitions        = "partitions"
	AttrPartitionStrategy = "partition_strategy"
)

// Partition strategies (embedding_lookup's partition_strategy).
const (
	StrategyMod = "mod"
	StrategyDiv = "div"
)

// TablePart is one shard of a partitioned table: its variable's name and
// rows.
type TablePart struct {
	Name string
	Rows int64
}

// ShardRows returns the rows of shard p of a table of rows rows in n
// shards.
func ShardRows(rows, n, p int64) int64 {
	r := rows / n
	if p < rows%n {
		r++
	}
	return r
}

// ShardOf returns the shard of row r of a table of rows rows in n shards,
// and r's row in it.
func ShardOf(strategy string, rows, n, r int64) (shard, row int64) {
	if strategy == StrategyMod {
		return r % n, r / n
	}
	big := rows/n + 1 // the rows of the first rows%n shards
	extras := rows % n
	if r < extras*big {
		return r / big, r % big
	}
	return extras + (r-extras*big)/(big-1), (r - extras*big) % (big - 1)
}

// Partitions returns the shards of a partitioned emb.table, in order, and
// its strategy; nil for a table of one variable.
func Partitions(op *textir.Operation) ([]TablePart, string) {
	a, ok := op.LookupAttr(AttrPartitions).(textir.ArrayAttr)
	tt, ok2 := op.Result(0).Type().(*textir.TensorType)
	if !ok || !ok2 || len(tt.Shape) != 2 || len(a.Elems) == 0 {
		return nil, ""
	}
	s, _ := op.LookupAttr(AttrPartitionStrategy).(textir.StringAttr)
	n := int64(len(a.Elems))
	parts := make([]TablePart, n)
	for p, e := range a.Elems {
		name, _ := e.(textir.StringAttr)
		parts[p] = TablePart{Name: name.Value, Rows: ShardRows(tt.Shape[0], n, int64(p))}
	}
	return parts, s.Value
}

// verifyPartitions checks a table's 'partitions' and 'partition_strategy'.
func verifyPartitions(op *textir.Operation) error {
	pa := op.LookupAttr(AttrPartitions)
	sa := op.LookupAttr(AttrPartitionStrategy)
	if pa == nil {
		if sa != nil {
			return op.Errorf("has a 'partition_strategy' but no 'partitions'")
		}
		return nil
	}
	a, ok := pa.(textir.ArrayAttr)
	if !ok || len(a.Elems) == 0 {
		return op.Errorf("requires 'partitions' to be a non-empty array of variable names")
	}
	if op.LookupAttr(AttrValue) != nil {
		return op.Errorf("has both a 'value' and 'partitions'")
	}
	seen := map[string]bool{}
	for i, e := range a.Elems {
		s, ok := e.(textir.StringAttr)
		if !ok || s.Value == "" {
			return op.Errorf("requires 'partitions' to hold non-empty strings, but #%d is %s", i, textir.AttrString(e))
		}
		if seen[s.Value] {
			return op.Errorf("names the partition %q twice", s.Value)
		}
		seen[s.Value] = true
	}
	if s, _ := sa.(textir.StringAttr); s.Value != StrategyMod && s.Value != StrategyDiv {
		got := "none"
		if sa != nil {
			got = textir.AttrString(sa)
		}
		return op.Errorf("requires 'partition_strategy' \"mod\" or \"div\", got %s", got)
	}
	tt := op.Result(0).Type().(*textir.TensorType)
	if n := int64(len(a.Elems)); n > tt.Shape[0] {
		return op.Errorf("has %d partitions for %d rows (every partition needs a row)", n, tt.Shape[0])
	}
	return nil
}

// partitionedTable is emb.table with partitions: the shards' variables
// (exec.Options.Variables, or with RandomTables the random values of the
// tfg variables of their names) made into the whole table; large random
// shards read only by lookups stay lazy.
func partitionedTable(op *textir.Operation, st *exec.State, tt *textir.TensorType, dt interp.DType, parts []TablePart, strategy string) ([]*interp.Tensor, error) {
	opts := st.Options()
	width := tt.Shape[1]
	shards := make([]*table, len(parts))
	lazy := false
	for p, part := range parts {
		if t, ok := opts.Variables[part.Name]; ok {
			if t.DType() != dt {
				return nil, op.Errorf("partition %q is given as %v, but the table holds %v", part.Name, t.DType(), dt)
			}
			if t.Rank() != 2 || t.Dim(0) != part.Rows || t.Dim(1) != width {
				return nil, op.Errorf("partition %q is given with shape %s, but partition %d of the table is %dx%d", part.Name, interp.ShapeString(t.Shape()), p, part.Rows, width)
			}
			shards[p] = &table{value: t, rows: part.Rows, width: width}
			continue
		}
		if !opts.RandomTables {
			return nil, op.Errorf("no value for variable %q (partition %d of the table; give it, or use random tables)", part.Name, p)
		}
		shards[p] = &table{key: exec.RandomKey(opts.Seed, part.Name), rows: part.Rows, width: width}
		lazy = true
	}
	whole := &table{parts: shards, strategy: strategy, rows: tt.Shape[0], width: width}
	if lazy && tt.Shape[0]*width > LazyTableElements && onlyLookups(op.Result(0)) {
		stub, err := interp.Zeros(dt, []int64{0, width})
		if err != nil {
			return nil, op.Errorf("%v", err)
		}
		lazyOf(st)[stub] = whole
		st.MarkLazy()
		return []*interp.Tensor{stub}, nil
	}
	var out *interp.Tensor
	var err error
	switch dt {
	case interp.Float32:
		out, err = interp.New(tt.Shape, assemble[float32](whole))
	case interp.Float64:
		out, err = interp.New(tt.Shape, assemble[float64](whole))
	default:
		err = fmt.Errorf("unsupported table dtype %v", dt)
	}
	if err != nil {
		return nil, op.Errorf("%v", err)
	}
	return []*interp.Tensor{out}, nil
}

// assemble makes the whole table of a partitioned one.
func assemble[T float32 | float64](t *table) []T {
	d := t.width
	out := make([]T, t.rows*d)
	for r := int64(0); r < t.rows; r++ {
		dst := out[r*d : (r+1)*d]
		copy(dst, row(t, r, dst))
	}
	return out
}
