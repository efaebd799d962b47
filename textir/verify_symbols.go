package textir

// SymbolName returns the op's symbol name (its "sym_name" string attribute,
// in properties or attributes) and whether it has one.
func SymbolName(op *Operation) (string, bool) {
	s, ok := op.LookupAttr("sym_name").(StringAttr)
	return s.Value, ok
}

// IsSymbolTable reports whether op is a registered op with the SymbolTable trait.
func IsSymbolTable(op *Operation) bool { return op.HasTrait(SymbolTable) }

// NearestSymbolTable returns the closest op enclosing op (op itself
// excluded) that is a symbol table, or nil.
func NearestSymbolTable(op *Operation) *Operation {
	for p := op.ParentOp(); p != nil; p = p.ParentOp() {
		if IsSymbolTable(p) {
			return p
		}
	}
	return nil
}

// LookupSymbolIn returns the op directly inside the symbol table op whose
// symbol name is name, or nil. It scans the table's ops: callers that look up
// many symbols should build a SymbolTableIndex instead.
func LookupSymbolIn(table *Operation, name string) *Operation {
	for _, r := range table.regions {
		for _, b := range r.blocks {
			for o := b.first; o != nil; o = o.next {
				if n, ok := SymbolName(o); ok && n == name {
					return o
				}
			}
		}
	}
	return nil
}

// LookupSymbol resolves ref from op: the root is looked up in the nearest
// enclosing symbol table (and then in the tables above it), and each nested
// reference inside the previous symbol, which must be a symbol table.
func LookupSymbol(from *Operation, ref SymbolRefAttr) *Operation {
	for t := NearestSymbolTable(from); t != nil; t = NearestSymbolTable(t) {
		if s := LookupSymbolIn(t, ref.Root); s != nil {
			for _, n := range ref.Nested {
				if !IsSymbolTable(s) {
					return nil
				}
				if s = LookupSymbolIn(s, n); s == nil {
					return nil
				}
			}
			return s
		}
	}
	return nil
}

// SymbolTableIndex maps the symbol names of one symbol table op to their ops.
type SymbolTableIndex map[string]*Operation

// NewSymbolTableIndex indexes the symbols directly inside table (the first
// definition wins when a name repeats).
func NewSymbolTableIndex(table *Operation) SymbolTableIndex {
	m := SymbolTableIndex{}
	for _, r := range table.regions {
		for _, b := range r.blocks {
			for o := b.first; o != nil; o = o.next {
				if n, ok := SymbolName(o); ok {
					if _, dup := m[n]; !dup {
						m[n] = o
					}
				}
			}
		}
	}
	return m
}

// verifySymbolTable checks the shape of a symbol table op and that the
// symbol names directly inside it are unique.
func verifySymbolTable(op *Operation) *Diagnostic {
	if len(op.regions) != 1 {
		return op.Errorf("operations with a 'SymbolTable' must have exactly one region")
	}
	if len(op.regions[0].blocks) > 1 {
		return op.Errorf("operations with a 'SymbolTable' must have exactly one block")
	}
	var seen map[string]*Operation
	for _, b := range op.regions[0].blocks {
		for o := b.first; o != nil; o = o.next {
			n, ok := SymbolName(o)
			if !ok {
				continue
			}
			if seen == nil {
				seen = map[string]*Operation{}
			}
			if first, dup := seen[n]; dup {
				return o.Errorf("redefinition of symbol named '%s'", n).
					AttachNote(first.DiagLoc(), "see existing symbol definition here")
			}
			seen[n] = o
		}
	}
	return nil
}
