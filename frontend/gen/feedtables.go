package gen

import (
	"context"
	"fmt"
	"strings"

	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/dialects/tfg/optab"
	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/interp/tfops"
	"github.com/recom-compiler/recom/textir"
)

// tableSource reads the keys of lookup tables: given, from the module's
// constant initializers, or from vocabulary files.
type tableSource struct {
	ctx    context.Context
	m      *textir.Operation
	given  map[string]exec.TableData
	assets map[string]string
	// init holds what the module's initializers put in its tables, once
	// evaluated (initErr: why they could not be).
	init     map[string]exec.TableData
	initErr  error
	initDone bool
}

// keysOf returns the keys of the table that lookup reads, and where they
// came from.
func (s *tableSource) keysOf(lookup *textir.Operation) (*interp.Tensor, string, error) {
	table := optab.Operand(lookup, "table_handle")
	for table != nil && table.DefiningOp() != nil && table.DefiningOp().Name() == "tfg.Identity" {
		table = tfg.DataOperands(table.DefiningOp())[0]
	}
	if table == nil || table.DefiningOp() == nil {
		return nil, "", lookup.Errorf("the table of the lookup is not an op")
	}
	top := table.DefiningOp()
	name := tfg.NodeName(top)
	if d, ok := s.given[name]; ok {
		return d.Keys, "table " + name, nil
	}
	// The initializer may reach the table through Identity ops (the
	// returns of an inlined function).
	for seen, work := 0, []*textir.Value{table}; len(work) > 0 && seen < 4096; seen++ {
		v := work[0]
		work = work[1:]
		for u := range v.Uses() {
			if u.Owner().Name() == "tfg.InitializeTableFromTextFileV2" && argAt(u.Owner(), u.Index()) == "table_handle" {
				return s.fileKeys(u.Owner(), top)
			}
			if u.Owner().Name() == "tfg.Identity" {
				work = append(work, u.Owner().Result(0))
			}
		}
	}
	if !s.initDone {
		s.initDone = true
		s.init, s.initErr = tfg.TableInitData(s.ctx, s.m, nil)
	}
	if d, ok := s.init[name]; ok {
		return d.Keys, "table " + name, nil
	}
	if s.initErr != nil {
		return nil, "", fmt.Errorf("table %s: evaluating the graph's table initializers: %w", name, s.initErr)
	}
	return nil, "", top.Errorf("table %s: no initializer in the graph fills it", name)
}

// fileKeys reads the keys an InitializeTableFromTextFileV2 puts in table
// top, with the interpreter's reader of such files (TensorFlow's rules:
// whole lines, line numbers or a column, the first vocab_size lines). The
// file is the SavedModel asset that the filename tensor is, else the
// tensor's constant value.
func (s *tableSource) fileKeys(init, top *textir.Operation) (*interp.Tensor, string, error) {
	fv := optab.Operand(init, "filename")
	var path string
	if d := fv.DefiningOp(); d != nil {
		path = s.assets[fmt.Sprintf("%s:%d", tfg.NodeName(d), fv.Index())]
	}
	if path == "" {
		c, ok := constOf(fv)
		if !ok || c.DType() != interp.String || c.Len() != 1 {
			return nil, "", init.Errorf("the vocabulary file's name is not a string constant")
		}
		path = c.Strings()[0]
	}
	intAttr := func(name string, def int64) int64 {
		if a, ok := init.Attr(name).(textir.IntegerAttr); ok {
			return a.Value
		}
		return def
	}
	c := tfops.TextFileInit{KeyIndex: intAttr("key_index", tfops.WholeLine), ValueIndex: intAttr("value_index", tfops.LineNumber),
		VocabSize: intAttr("vocab_size", -1), Delimiter: "\t", Offset: intAttr("offset", 0)}
	if a, ok := init.Attr("delimiter").(textir.StringAttr); ok {
		c.Delimiter = a.Value
	}
	keyType, _ := attrDType(top, "key_dtype")
	valueType, _ := attrDType(top, "value_dtype")
	keys, _, err := tfops.ReadTextFileTable(path, c, keyType, valueType)
	if err != nil {
		return nil, "", init.Errorf("%v", err)
	}
	return keys, "file " + path, nil
}

// stringKeys returns the keys of the tables that lookups read (their
// union, in order).
func (s *tableSource) stringKeys(lookups []*textir.Operation) ([]string, string, error) {
	var out []string
	var from []string
	seen := map[string]bool{}
	for _, l := range lookups {
		k, src, err := s.keysOf(l)
		if err != nil {
			return nil, "", err
		}
		from = append(from, src)
		for _, v := range k.Strings() {
			if !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
	}
	return out, sources(from), nil
}

// sources names where keys came from: the first source, and how many more.
func sources(from []string) string {
	if len(from) <= 1 {
		return strings.Join(from, "")
	}
	return fmt.Sprintf("%s and %d more", from[0], len(from)-1)
}

// intKeys is stringKeys for integer keys.
func (s *tableSource) intKeys(lookups []*textir.Operation) ([]int64, string, error) {
	var out []int64
	var from []string
	seen := map[int64]bool{}
	for _, l := range lookups {
		k, src, err := s.keysOf(l)
		if err != nil {
			return nil, "", err
		}
		from = append(from, src)
		for i := range k.Len() {
			v, ok := k.Int64At(i)
			if ok && !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
	}
	return out, sources(from), nil
}
