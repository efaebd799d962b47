package tfgtoemb

import (
	"fmt"
	"path/filepath"

	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/dialects/tfg/optab"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/interp/tfops"
	"github.com/recom-compiler/recom/lowering/rewrite"
	"github.com/recom-compiler/recom/textir"
)

// Vocabulary files (categorical_column_with_vocabulary_file, and
// index_table_from_file behind it): a HashTableV2 filled by
// InitializeTableFromTextFileV2 with each whole line a key and its line
// number its value (TextFileIdTableInitializer: key_index -2, value_index
// -1). Before the columns are matched, the pass reads each such file, as
// TensorFlow does when it initializes the table, and replaces the
// initializer with InitializeTableV2 of the file's keys and line numbers as
// constants: the same table, which the vocabulary pattern (vocabKeys)
// then matches as a vocabulary list, so that the lookup becomes an
// emb.vocab_lookup, computed in the fused kernel. The file is read when
// compiling: the compiled program holds the vocabulary it read. A file
// that cannot be read (missing, malformed, duplicate keys, which
// TensorFlow refuses too) leaves its initializer as it is, with a remark;
// its columns' ids are then computed by the tfg ops, before the layer.

// bindVocabularyFiles binds the vocabulary files of block b (see above);
// relative file names are read from dir ("" : the current directory). It
// returns the number of files read.
func bindVocabularyFiles(rw *rewrite.Rewriter, b *textir.Block, dir string, emit func(*textir.Diagnostic)) int64 {
	var inits []*textir.Operation
	for op := range b.Ops() {
		if op.Name() == "tfg.InitializeTableFromTextFileV2" {
			inits = append(inits, op)
		}
	}
	var n int64
	for _, init := range inits {
		keys, values, why := readVocabularyFile(init, dir)
		if why == "" && keys == nil {
			continue // not a vocabulary's initializer
		}
		if why != "" {
			emit(init.Remarkf("vocabulary file not read: %s; the lookups of its table stay in tfg", why))
			continue
		}
		table := optab.Operand(init, "table_handle")
		name := tfg.NodeName(init)
		rw.SetInsertionPoint(init)
		k := tfgOp(rw, "Const", name+"/keys", init.Loc(), nil, keys.Type, typeAttr("dtype", keys.Type.Elem),
			textir.NamedAttribute{Name: "value", Value: keys})
		v := tfgOp(rw, "Const", name+"/values", init.Loc(), nil, values.Type, typeAttr("dtype", values.Type.Elem),
			textir.NamedAttribute{Name: "value", Value: values})
		operands := []*textir.Value{table, optab.Result(k, "output"), optab.Result(v, "output")}
		for _, o := range init.Operands() {
			if tfg.IsControl(o.Type()) {
				operands = append(operands, o)
			}
		}
		ni := rw.Create(&textir.OperationState{Name: "tfg.InitializeTableV2", Loc: init.Loc(), Operands: operands,
			ResultTypes: []textir.Type{tfg.Control()},
			Attrs: []textir.NamedAttribute{typeAttr("Tkey", keys.Type.Elem), typeAttr("Tval", values.Type.Elem),
				{Name: "_mlir_name", Value: textir.Str(name)}}})
		rw.ReplaceOp(init, ni.Results())
		n++
	}
	return n
}

// readVocabularyFile reads the keys and line numbers of init, an
// InitializeTableFromTextFileV2, as constants of the table's key and value
// types. keys is nil and why "" when init is not a vocabulary's (another
// key or value column, another table); why says what went wrong otherwise.
func readVocabularyFile(init *textir.Operation, dir string) (keys, values *textir.DenseElementsAttr, why string) {
	intAttr := func(name string, def int64) int64 {
		if a, ok := init.Attr(name).(textir.IntegerAttr); ok {
			return a.Value
		}
		return def
	}
	c := tfops.TextFileInit{KeyIndex: intAttr("key_index", 0), ValueIndex: intAttr("value_index", 0),
		VocabSize: intAttr("vocab_size", -1), Delimiter: "\t", Offset: intAttr("offset", 0)}
	if a, ok := init.Attr("delimiter").(textir.StringAttr); ok {
		c.Delimiter = a.Value
	}
	if c.KeyIndex != tfops.WholeLine || c.ValueIndex != tfops.LineNumber || c.Offset != 0 {
		return nil, nil, ""
	}
	ht := def(strip(optab.Operand(init, "table_handle")))
	if !isOp(ht, "HashTableV2") {
		return nil, nil, ""
	}
	kt, ok1 := ht.Attr("key_dtype").(textir.TypeAttr)
	vt, ok2 := ht.Attr("value_dtype").(textir.TypeAttr)
	if !ok1 || !ok2 {
		return nil, nil, ""
	}
	kd, ok1 := exec.DTypeOf(kt.Type)
	vd, ok2 := exec.DTypeOf(vt.Type)
	if !ok1 || !ok2 || (kd != interp.String && kd != interp.Int64) || vd != interp.Int64 {
		return nil, nil, ""
	}
	fn := constAttr(optab.Operand(init, "filename"))
	if fn == nil || !fn.IsString() || fn.NumElements() != 1 {
		return nil, nil, "its file name is not a string constant"
	}
	path := fn.StringAt(0)
	if path != "" && dir != "" && !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	k, v, err := tfops.ReadTextFileTable(path, c, kd, vd)
	if err != nil {
		return nil, nil, err.Error()
	}
	n := int64(k.Len())
	if kd == interp.String {
		strs := k.Strings()
		seen := make(map[string]bool, len(strs))
		for i, s := range strs {
			if seen[s] {
				return nil, nil, fmt.Sprintf("%s: line %d repeats the key %q (TensorFlow's initializer fails)", path, i+1, s)
			}
			seen[s] = true
		}
		keys = textir.DenseStrings(textir.TensorOf([]int64{n}, kt.Type), strs)
	} else {
		ints := make([]int64, n)
		seen := make(map[int64]bool, n)
		for i := range ints {
			ints[i], _ = k.Int64At(i)
			if seen[ints[i]] {
				return nil, nil, fmt.Sprintf("%s: line %d repeats the key %d (TensorFlow's initializer fails)", path, i+1, ints[i])
			}
			seen[ints[i]] = true
		}
		keys = textir.DenseInts(textir.TensorOf([]int64{n}, kt.Type), ints)
	}
	ids := make([]int64, n)
	for i := range ids {
		ids[i], _ = v.Int64At(i)
	}
	return keys, textir.DenseInts(textir.TensorOf([]int64{n}, vt.Type), ids), ""
}
