package tfg

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/interp/tfops"
	"github.com/recom-compiler/recom/textir"
)

// variable is a variable's value in a run: a tensor, or, for a random
// variable read only through gathers, its dtype, shape and random key.
type variable struct {
	name  string
	dtype interp.DType
	shape []int64
	value *interp.Tensor // nil while lazy
	key   uint64
}

// materialize makes the whole value of a lazy variable.
func (v *variable) materialize() (*interp.Tensor, error) {
	if v.value == nil {
		n, err := interp.NumElements(v.shape)
		if err != nil {
			return nil, fmt.Errorf("variable %q: %v", v.name, err)
		}
		t, err := exec.RandomRows(v.dtype, v.shape, v.key, 0, n)
		if err != nil {
			return nil, fmt.Errorf("variable %q: %v", v.name, err)
		}
		v.value = t
	}
	return v.value, nil
}

// stubs maps the placeholder tensors that stand for lazy variables (what a
// VariableV2 read only by gathers yields) to their variables.
type stubs map[*interp.Tensor]*variable

func stubsOf(st *exec.State) stubs {
	if s, ok := st.Resource("var-stubs").(stubs); ok {
		return s
	}
	s := stubs{}
	st.SetResource("var-stubs", s)
	return s
}

// lookupVariable returns the run's variable of node name, creating it from
// the options on first use.
func lookupVariable(op *textir.Operation, st *exec.State, name string, dt interp.DType, shape []int64, known bool) (*variable, error) {
	key := "var:" + name
	if v, ok := st.Resource(key).(*variable); ok {
		return v, nil
	}
	v := &variable{name: name, dtype: dt, shape: shape}
	opts := st.Options()
	if t, ok := opts.Variables[name]; ok {
		if t.DType() != dt {
			return nil, op.Errorf("variable %q is given as %v, but its dtype is %v", name, t.DType(), dt)
		}
		if known && !sameDims(shape, t.Shape()) {
			return nil, op.Errorf("variable %q is given with shape %s, but its shape is %s", name, interp.ShapeString(t.Shape()), interp.ShapeString(shape))
		}
		v.value, v.shape = t, t.Shape()
	} else if opts.RandomTables {
		if !known {
			return nil, op.Errorf("variable %q has no static shape: give its value", name)
		}
		for _, d := range shape {
			if d < 0 {
				return nil, op.Errorf("variable %q has no static shape: give its value", name)
			}
		}
		if _, err := interp.NumElements(shape); err != nil {
			return nil, op.Errorf("variable %q: %v", name, err)
		}
		v.key = exec.RandomKey(opts.Seed, name)
	} else {
		return nil, op.Errorf("no value for variable %q (give it, or use random tables)", name)
	}
	st.SetResource(key, v)
	return v, nil
}

func sameDims(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] >= 0 && a[i] != b[i] {
			return false
		}
	}
	return true
}

// onlyGathered reports whether every use of v, through Identity ops, is the
// params operand of a Gather, GatherV2 or ResourceGather.
func onlyGathered(v *textir.Value, depth int) bool {
	if depth > 16 {
		return false
	}
	for u := range v.Uses() {
		o := u.Owner()
		switch o.Name() {
		case "tfg.Gather", "tfg.GatherV2", "tfg.ResourceGather":
			if u.Index() != 0 {
				return false
			}
		case "tfg.Identity", "tfg.Snapshot":
			if !onlyGathered(o.Result(0), depth+1) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

func variableV2(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
	dt, err := attrType(op, "dtype")
	if err != nil {
		return nil, err
	}
	shape, known, err := attrShape(op, "shape")
	if err != nil {
		return nil, err
	}
	v, err := lookupVariable(op, st, NodeName(op), dt, shape, known)
	if err != nil {
		return nil, err
	}
	if v.value == nil && onlyGathered(op.Result(0), 0) {
		stub, err := interp.Zeros(dt, []int64{0})
		if err != nil {
			return nil, err
		}
		stubsOf(st)[stub] = v
		st.MarkLazy()
		return []*interp.Tensor{stub}, nil
	}
	t, err := v.materialize()
	if err != nil {
		return nil, op.Errorf("%v", err)
	}
	return []*interp.Tensor{t}, nil
}

func handleTensor(name string) *interp.Tensor { return interp.Scalar(name) }

func varHandleOp(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
	dt, err := attrType(op, "dtype")
	if err != nil {
		return nil, err
	}
	shape, known, err := attrShape(op, "shape")
	if err != nil {
		return nil, err
	}
	name := NodeName(op)
	if _, err := lookupVariable(op, st, name, dt, shape, known); err != nil {
		return nil, err
	}
	return []*interp.Tensor{handleTensor(name)}, nil
}

// handleVariable resolves a resource handle to the run's variable.
func handleVariable(op *textir.Operation, st *exec.State, h *interp.Tensor) (*variable, error) {
	if h.DType() != interp.String || h.Len() != 1 {
		return nil, op.Errorf("resource operand is not a variable handle")
	}
	v, ok := st.Resource("var:" + h.Strings()[0]).(*variable)
	if !ok {
		return nil, op.Errorf("resource %q is not a variable", h.Strings()[0])
	}
	return v, nil
}

func readVariableOp(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
	d, err := nIn(op, in, 1)
	if err != nil {
		return nil, err
	}
	v, err := handleVariable(op, st, d[0])
	if err != nil {
		return nil, err
	}
	if dt, err := attrType(op, "dtype"); err == nil && dt != v.dtype {
		return nil, op.Errorf("reads variable %q of dtype %v as %v", v.name, v.dtype, dt)
	}
	t, err := v.materialize()
	if err != nil {
		return nil, op.Errorf("%v", err)
	}
	return []*interp.Tensor{t}, nil
}

func resourceGather(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
	d, err := nIn(op, in, 2)
	if err != nil {
		return nil, err
	}
	v, err := handleVariable(op, st, d[0])
	if err != nil {
		return nil, err
	}
	if attrInt(op, "batch_dims", 0) != 0 {
		t, err := v.materialize()
		if err != nil {
			return nil, op.Errorf("%v", err)
		}
		return one(tfops.GatherV2(t, d[1], interp.Scalar(int32(0)), attrInt(op, "batch_dims", 0)))
	}
	return one(gatherVariable(v, d[1]))
}

// gatherVariable gathers rows (axis 0) of a variable, making only the rows
// needed when it is lazy.
func gatherVariable(v *variable, indices *interp.Tensor) (*interp.Tensor, error) {
	if v.value != nil {
		return tfops.GatherV2(v.value, indices, interp.Scalar(int32(0)), 0)
	}
	if len(v.shape) == 0 {
		return nil, fmt.Errorf("params must be at least 1 dimensional")
	}
	rows := v.shape[0]
	inner := int64(1)
	for _, d := range v.shape[1:] {
		inner *= d
	}
	ish := indices.Shape()
	shape := append(ish, v.shape[1:]...)
	n, err := interp.NumElements(shape)
	if err != nil {
		return nil, err
	}
	buf, err := interp.MakeSlice(v.dtype, int(n))
	if err != nil {
		return nil, err
	}
	for i := 0; i < indices.Len(); i++ {
		r, ok := indices.Int64At(i)
		if !ok {
			return nil, fmt.Errorf("indices must be int32 or int64, got %v", indices.DType())
		}
		if r < 0 || r >= rows {
			return nil, fmt.Errorf("indices%s = %d is not in [0, %d)", interp.ShapeString(interp.Unravel(int64(i), ish)), r, rows)
		}
		exec.FillRandom(sliceOf(buf, int64(i)*inner, inner), v.key, r*inner)
	}
	return interp.FromSlice(shape, buf)
}

// sliceOf returns buf[from:from+n] for a backing slice of any dtype.
func sliceOf(buf any, from, n int64) any {
	switch b := buf.(type) {
	case []float32:
		return b[from : from+n]
	case []float64:
		return b[from : from+n]
	case []int8:
		return b[from : from+n]
	case []int16:
		return b[from : from+n]
	case []int32:
		return b[from : from+n]
	case []int64:
		return b[from : from+n]
	case []uint8:
		return b[from : from+n]
	case []bool:
		return b[from : from+n]
	case []string:
		return b[from : from+n]
	}
	return nil
}

// table is a hash table of a run.
type table struct {
	name    string
	ht      *tfops.HashTable
	mutable bool
	filled  bool
	given   bool // filled from exec.Options.Tables
}

func registerTables() {
	mk := func(mutable bool) exec.Kernel {
		return func(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
			kt, err := attrType(op, "key_dtype")
			if err != nil {
				return nil, err
			}
			vt, err := attrType(op, "value_dtype")
			if err != nil {
				return nil, err
			}
			name := NodeName(op)
			if _, ok := st.Resource("table:" + name).(*table); !ok {
				ht, err := tfops.NewHashTable(kt, vt)
				if err != nil {
					return nil, op.Errorf("%v", err)
				}
				tb := &table{name: name, ht: ht, mutable: mutable}
				if data, ok := st.Options().Tables[name]; ok {
					if err := ht.Import(data.Keys, data.Values); err != nil {
						return nil, op.Errorf("table %q from the options: %v", name, err)
					}
					tb.filled, tb.given = true, true
				}
				st.SetResource("table:"+name, tb)
			}
			return []*interp.Tensor{handleTensor(name)}, nil
		}
	}
	reg("HashTableV2", mk(false))
	reg("MutableHashTableV2", mk(true))
	fill := func(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
		d, err := nIn(op, in, 3)
		if err != nil {
			return nil, err
		}
		tb, err := handleTable(op, st, d[0])
		if err != nil {
			return nil, err
		}
		if tb.mutable && tb.filled {
			ht, err := tfops.NewHashTable(tb.ht.KeyType(), tb.ht.ValueType())
			if err != nil {
				return nil, err
			}
			tb.ht = ht
		}
		if op.Name() == Name+".InitializeTableV2" {
			err = tb.ht.Initialize(d[1], d[2])
		} else {
			err = tb.ht.Import(d[1], d[2])
		}
		if err != nil {
			return nil, err
		}
		tb.filled = true
		return nil, nil
	}
	reg("InitializeTableV2", fill)
	reg("LookupTableImportV2", fill)
	reg("InitializeTableFromTextFileV2", initializeTableFromTextFile)
	exec.RegisterInitializer(Name+".InitializeTableV2", 0)
	exec.RegisterInitializer(Name+".LookupTableImportV2", 0)
	exec.RegisterInitializer(Name+".InitializeTableFromTextFileV2", 0)
	reg("LookupTableFindV2", func(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
		d, err := nIn(op, in, 3)
		if err != nil {
			return nil, err
		}
		tb, err := handleTable(op, st, d[0])
		if err != nil {
			return nil, err
		}
		if !tb.filled {
			if tb.mutable {
				// An empty mutable table: every key is missing.
				ht, _ := tfops.NewHashTable(tb.ht.KeyType(), tb.ht.ValueType())
				empty, _ := interp.Zeros(tb.ht.KeyType(), []int64{0})
				emptyV, _ := interp.Zeros(tb.ht.ValueType(), []int64{0})
				if err := ht.Import(empty, emptyV); err != nil {
					return nil, err
				}
				tb.ht, tb.filled = ht, true
			} else {
				return nil, uninitialized(op, tb)
			}
		}
		return one(tb.ht.Find(d[1], d[2]))
	})
	reg("LookupTableSizeV2", func(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
		d, err := nIn(op, in, 1)
		if err != nil {
			return nil, err
		}
		tb, err := handleTable(op, st, d[0])
		if err != nil {
			return nil, err
		}
		return []*interp.Tensor{interp.Scalar(tb.ht.Size())}, nil
	})
}

// initializeTableFromTextFile is InitializeTableFromTextFileV2
// (tfops.HashTable.InitializeFromTextFile): a relative file name is
// resolved against exec.Options.AssetDir. A table whose contents the
// options give (exec.Options.Tables) keeps them, and the file is not read:
// the given contents stand for it, as for a graph whose initializers were
// cut away.
func initializeTableFromTextFile(op *textir.Operation, in []*interp.Tensor, st *exec.State) ([]*interp.Tensor, error) {
	d, err := nIn(op, in, 2)
	if err != nil {
		return nil, err
	}
	tb, err := handleTable(op, st, d[0])
	if err != nil {
		return nil, err
	}
	if tb.mutable {
		return nil, op.Errorf("table %q is not initializable: a MutableHashTableV2 has no initializer", tb.name)
	}
	fn := d[1]
	if fn.DType() != interp.String || fn.Rank() != 0 {
		return nil, op.Errorf("filename should be a single string, but got %v%s", fn.DType(), interp.ShapeString(fn.Shape()))
	}
	if tb.given {
		return nil, nil
	}
	keyIndex, okK := op.Attr("key_index").(textir.IntegerAttr)
	valueIndex, okV := op.Attr("value_index").(textir.IntegerAttr)
	if !okK || !okV {
		return nil, op.Errorf("requires integer attributes 'key_index' and 'value_index'")
	}
	path := fn.Strings()[0]
	if dir := st.Options().AssetDir; path != "" && dir != "" && !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	c := tfops.TextFileInit{
		KeyIndex: keyIndex.Value, ValueIndex: valueIndex.Value,
		VocabSize: attrInt(op, "vocab_size", -1), Delimiter: attrString(op, "delimiter", "\t"), Offset: attrInt(op, "offset", 0),
	}
	if err := tb.ht.InitializeFromTextFile(path, c); err != nil {
		return nil, err
	}
	tb.filled = true
	return nil, nil
}

// tableInitOps are the ops that fill a table given as their operand 0.
var tableInitOps = map[string]bool{
	Name + ".InitializeTableV2": true, Name + ".LookupTableImportV2": true, Name + ".InitializeTableFromTextFileV2": true,
	Name + ".InitializeTable": true, Name + ".LookupTableImport": true, Name + ".InitializeTableFromTextFile": true,
	Name + ".InitializeTableFromDataset": true,
}

// uninitialized is the error of a lookup in a table nothing filled: it
// names the table's initializers that the program holds but the
// interpreter cannot run, if any.
func uninitialized(op *textir.Operation, tb *table) error {
	var found []string
	var visit func(v *textir.Value, depth int)
	visit = func(v *textir.Value, depth int) {
		if v == nil || depth > 16 {
			return
		}
		for u := range v.Uses() {
			o := u.Owner()
			switch {
			case tableInitOps[o.Name()] && u.Index() == 0:
				if _, ok := exec.Lookup(o.Name()); !ok {
					found = append(found, fmt.Sprintf("%s (node %q)", o.Name(), NodeName(o)))
				}
			case o.Name() == Name+".Identity" && u.Index() == 0:
				visit(o.Result(0), depth+1)
			}
		}
	}
	if ds := DataOperands(op); len(ds) > 0 {
		src := ds[0]
		for i := 0; i < 16 && src.DefiningOp() != nil && src.DefiningOp().Name() == Name+".Identity"; i++ {
			ins := DataOperands(src.DefiningOp())
			if len(ins) == 0 {
				break
			}
			src = ins[0]
		}
		visit(src, 0)
	}
	if len(found) > 0 {
		sort.Strings(found)
		return op.Errorf("table %q is not initialized: its initializer %s has no semantics in the interpreter (give its contents as a table)", tb.name, strings.Join(found, ", "))
	}
	return op.Errorf("table %q is not initialized: its initializer is not in the program (give its contents as a table)", tb.name)
}

func handleTable(op *textir.Operation, st *exec.State, h *interp.Tensor) (*table, error) {
	if h.DType() != interp.String || h.Len() != 1 {
		return nil, op.Errorf("table operand is not a table handle")
	}
	tb, ok := st.Resource("table:" + h.Strings()[0]).(*table)
	if !ok {
		return nil, op.Errorf("resource %q is not a hash table", h.Strings()[0])
	}
	return tb, nil
}

// TableInitData evaluates the keys and values of every table initializer
// (InitializeTableV2, LookupTableImportV2) under root and returns them by
// table node name. Tools use it to carry a graph's vocabulary tables into
// a subgraph extracted from it, whose initializers were cut away. opts
// may be nil (random variables).
func TableInitData(ctx context.Context, root *textir.Operation, opts *exec.Options) (map[string]exec.TableData, error) {
	type init struct {
		table      string
		keys, vals string
	}
	var inits []init
	var outs []string
	var bad error
	root.Walk(func(op *textir.Operation) bool {
		switch op.Name() {
		case Name + ".InitializeTableV2", Name + ".LookupTableImportV2":
		default:
			return true
		}
		ds := DataOperands(op)
		if len(ds) != 3 || ds[0].DefiningOp() == nil || ds[1].DefiningOp() == nil || ds[2].DefiningOp() == nil {
			if bad == nil {
				bad = op.Errorf("expects a table, keys and values defined by ops")
			}
			return false
		}
		tname := func(v *textir.Value) string {
			return fmt.Sprintf("%s:%d", NodeName(v.DefiningOp()), v.Index())
		}
		in := init{table: NodeName(ds[0].DefiningOp()), keys: tname(ds[1]), vals: tname(ds[2])}
		inits = append(inits, in)
		outs = append(outs, in.keys, in.vals)
		return false
	})
	if bad != nil {
		return nil, bad
	}
	res := map[string]exec.TableData{}
	if len(inits) == 0 {
		return res, nil
	}
	if opts == nil {
		// Keys and values are constants, but control edges may reach
		// variables (global_step): give those random values.
		opts = &exec.Options{RandomTables: true, DataOnly: true}
	}
	vals, err := exec.Run(ctx, root, nil, outs, opts)
	if err != nil {
		return nil, err
	}
	sort.Slice(inits, func(i, j int) bool { return inits[i].table < inits[j].table })
	for _, in := range inits {
		res[in.table] = exec.TableData{Keys: vals[in.keys], Values: vals[in.vals]}
	}
	return res, nil
}
