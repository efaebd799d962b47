package conversion

import (
	"errors"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/textir"
)

type convCase struct {
	name     string
	build    func(x *irb)
	target   func(t *Target)
	patterns func(tc *TypeConverter) []ConversionPattern
	tc       *TypeConverter
	mode     Mode
	want     string // the IR after conversion (checked when set)
	wantErr  string // the full error text, notes included
}

func runCases(t *testing.T, cases []convCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := newCtx()
			x := newIRB(ctx)
			m := x.Module()
			tc.build(x)
			target := NewTarget(ctx)
			target.AddLegalOp("test.module")
			if tc.target != nil {
				tc.target(target)
			}
			var pats []ConversionPattern
			if tc.patterns != nil {
				pats = tc.patterns(tc.tc)
			}
			err := ApplyConversion(m, target, pats, tc.tc, Options{Mode: tc.mode, ExpensiveChecks: true})
			if tc.wantErr != "" {
				var d *textir.Diagnostic
				if err == nil || !errors.As(err, &d) {
					t.Fatalf("got error %v, want Diagnostic %q\n%s", err, tc.wantErr, dump(m))
				}
				if got := err.Error(); got != tc.wantErr {
					t.Errorf("error:\n got %s\nwant %s", got, tc.wantErr)
				}
			} else if err != nil {
				t.Fatalf("unexpected error: %v\n%s", err, dump(m))
			}
			if tc.want != "" {
				if got, want := dump(m), trim(tc.want); got != want {
					t.Errorf("got:\n%s\nwant:\n%s", got, want)
				}
			}
		})
	}
}

func TestPartialAndFull(t *testing.T) {
	build := func(x *irb) {
		v := at(x.Op("a.x", 1), 1).Result(0)
		at(x.Op("b.y", 0, v), 2)
		at(x.Op("c.z", 0), 3)
	}
	target := func(t *Target) {
		t.AddLegalDialect("b")
		t.AddIllegalOp("a.x")
	}
	pats := func(*TypeConverter) []ConversionPattern { return []ConversionPattern{rename("a.x", "b.x", nil)} }
	runCases(t, []convCase{
		{name: "partial keeps unknown ops", build: build, target: target, patterns: pats, mode: Partial, want: `
			|test.module {
			|  %0 = b.x
			|  b.y(%0)
			|  c.z
			|}`},
		{name: "full rejects unknown ops", build: build, target: target, patterns: pats, mode: Full,
			wantErr: "t.mlir:3:3: error: failed to legalize operation 'c.z'"},
		{name: "partial rejects illegal ops left", build: build, mode: Partial,
			target: func(t *Target) { target(t); t.AddIllegalDialect("c") }, patterns: pats,
			wantErr: "t.mlir:3:3: error: failed to legalize operation 'c.z' that was explicitly marked illegal"},
		{name: "unknown ops dynamically legal", build: build, mode: Full, patterns: pats,
			target: func(t *Target) {
				target(t)
				t.MarkUnknownOpDynamicallyLegal(func(op *textir.Operation) bool { return op.Name() == "c.z" })
			}},
		{name: "op entry wins over dialect entry", build: build, mode: Full, patterns: pats,
			target: func(t *Target) {
				target(t)
				t.AddLegalOp("c.z")
				t.AddIllegalDialect("c", "b")
				t.AddLegalOp("b.x", "b.y")
			}},
	})
}

func TestFirstIllegalOpInWalkOrder(t *testing.T) {
	runCases(t, []convCase{{
		name: "nested op before a later top-level op",
		build: func(x *irb) {
			at(x.Op("ok.a", 0), 1)
			x.Region("ok.r", nil, func([]*textir.Value) {
				at(x.Op("ok.b", 0), 3)
				at(x.Op("bad.first", 0), 4)
			})
			at(x.Op("bad.second", 0), 6)
		},
		target:  func(t *Target) { t.AddLegalDialect("ok"); t.AddIllegalDialect("bad") },
		mode:    Partial,
		wantErr: "t.mlir:4:3: error: failed to legalize operation 'bad.first' that was explicitly marked illegal",
	}, {
		name: "name location names the node",
		build: func(x *irb) {
			x.Op("bad.x", 0).SetLoc(textir.NameLoc{Name: "embedding/lookup"})
		},
		target:  func(t *Target) { t.AddIllegalDialect("bad") },
		mode:    Full,
		wantErr: `loc("embedding/lookup"): error: failed to legalize operation 'bad.x'`,
	}})
}

func TestDynamicLegality(t *testing.T) {
	done := func(op *textir.Operation) bool { return op.Attr("done") != nil }
	mark := cpat("a.op", "mark", 1, func(op *textir.Operation, _ []*textir.Value, rw *ConversionRewriter) bool {
		if op.Attr("skip") != nil {
			return false
		}
		rw.ModifyOpInPlace(op, func() { op.SetAttr("done", textir.UnitAttr{}) })
		return true
	})
	runCases(t, []convCase{
		{name: "updated in place until legal", mode: Full,
			build:    func(x *irb) { x.Op("a.op", 0); x.Op("a.op", 0).SetAttr("done", textir.UnitAttr{}) },
			target:   func(t *Target) { t.AddDynamicallyLegalOp(done, "a.op") },
			patterns: func(*TypeConverter) []ConversionPattern { return []ConversionPattern{mark} },
			want: `
				|test.module {
				|  a.op {done = {}}
				|  a.op {done = {}}
				|}`},
		{name: "dynamically illegal counts as illegal in partial mode", mode: Partial,
			build: func(x *irb) {
				x.Op("a.op", 0)
				at(x.Op("a.op", 0), 7).SetAttr("skip", textir.UnitAttr{})
			},
			target:   func(t *Target) { t.AddDynamicallyLegalDialect(done, "a") },
			patterns: func(*TypeConverter) []ConversionPattern { return []ConversionPattern{mark} },
			wantErr:  "t.mlir:7:3: error: failed to legalize operation 'a.op' that was explicitly marked illegal"},
	})
}

func TestRecursiveLegalization(t *testing.T) {
	build := func(x *irb) { x.Op("use.it", 0, at(x.Op("a.x", 1), 1).Result(0)) }
	target := func(t *Target) { t.AddIllegalDialect("a"); t.AddLegalDialect("b", "use") }
	runCases(t, []convCase{
		{name: "created illegal ops are converted", mode: Full, build: build, target: target,
			patterns: func(*TypeConverter) []ConversionPattern {
				return []ConversionPattern{rename("a.x", "a.y", nil), rename("a.y", "a.z", nil), rename("a.z", "b.done", nil)}
			},
			want: `
				|test.module {
				|  %0 = b.done
				|  use.it(%0)
				|}`},
		{name: "pattern produced an op nobody converts", mode: Full, build: build, target: target,
			patterns: func(*TypeConverter) []ConversionPattern { return []ConversionPattern{rename("a.x", "a.y", nil)} },
			wantErr: "t.mlir:1:3: error: failed to legalize operation 'a.y'\n" +
				"t.mlir:1:3: note: created by pattern 'a.x->a.y' while legalizing operation 'a.x'"},
		{name: "cycle stops at the depth limit", mode: Full, build: build, target: target,
			patterns: func(*TypeConverter) []ConversionPattern {
				return []ConversionPattern{rename("a.x", "a.y", nil), rename("a.y", "a.x", nil)}
			},
			wantErr: "t.mlir:1:3: error: failed to legalize operation 'a.y'\n" +
				"t.mlir:1:3: note: created by pattern 'a.x->a.y' while legalizing operation 'a.x'\n" +
				"t.mlir:1:3: note: legalization stopped at depth 32: the patterns may form a cycle"},
		{name: "benefit order", mode: Full, build: build, target: target,
			patterns: func(*TypeConverter) []ConversionPattern {
				low := rename("a.x", "b.low", nil).(*Pattern)
				high := rename("a.x", "b.high", nil).(*Pattern)
				high.Weight = 2
				fails := cpat("", "any-fails", 3, func(*textir.Operation, []*textir.Value, *ConversionRewriter) bool { return false })
				return []ConversionPattern{low, high, fails}
			},
			want: `
				|test.module {
				|  %0 = b.high
				|  use.it(%0)
				|}`},
		{name: "ops of an inlined region are legalized", mode: Full, target: target,
			build: func(x *irb) {
				x.Region("a.wrap", nil, func([]*textir.Value) { x.Op("use.it", 0, x.V("a.x")) })
			},
			patterns: func(*TypeConverter) []ConversionPattern {
				return []ConversionPattern{
					cpat("a.wrap", "unwrap", 1, func(op *textir.Operation, _ []*textir.Value, rw *ConversionRewriter) bool {
						rw.InlineBlockBefore(op.Region(0).Front(), op, nil)
						rw.EraseOp(op)
						return true
					}),
					rename("a.x", "b.x", nil),
				}
			},
			want: `
				|test.module {
				|  %0 = b.x
				|  use.it(%0)
				|}`},
	})
}

func TestTypeConversion(t *testing.T) {
	// test.func(^(%a: i64)) { %1 = old.add(%a, %a); keep(%1); old.ret(%1) }
	build := func(x *irb) {
		at(x.Region("test.func", []textir.Type{textir.I64()}, func(args []*textir.Value) {
			s := at(x.Op("old.add", 1, args[0], args[0]), 2).Result(0)
			at(x.Op("test.keep", 0, s), 3)
			at(x.Op("old.ret", 0, s), 4)
		}), 1)
	}
	funcPattern := func(tc *TypeConverter) ConversionPattern {
		return cpat("test.func", "func-signature", 1, func(op *textir.Operation, _ []*textir.Value, rw *ConversionRewriter) bool {
			if op.Attr("converted") != nil {
				return false
			}
			if !rw.ConvertRegionTypes(op.Region(0), nil) {
				return false
			}
			rw.ModifyOpInPlace(op, func() { op.SetAttr("converted", textir.UnitAttr{}) })
			return true
		})
	}
	pats := func(tc *TypeConverter) []ConversionPattern {
		return []ConversionPattern{funcPattern(tc), rename("old.add", "new.add", tc), rename("old.ret", "new.ret", tc)}
	}
	target := func(t *Target) {
		t.AddIllegalDialect("old")
		t.AddLegalDialect("new")
		t.AddDynamicallyLegalOp(func(op *textir.Operation) bool { return op.Attr("converted") != nil }, "test.func")
	}
	runCases(t, []convCase{
		{name: "partial keeps a cast for the unconverted user", mode: Partial, tc: i64ToI32(), build: build, target: target, patterns: pats,
			want: `
				|test.module {
				|  test.func {converted = {}} {
				|  ^(%arg0: i32):
				|    %0 = new.add(%arg0, %arg0) : i32
				|    %1 = builtin.unrealized_conversion_cast(%0)
				|    test.keep(%1)
				|    new.ret(%0)
				|  }
				|}`},
		{name: "illegal user without a pattern", mode: Full, tc: i64ToI32(), build: build, patterns: pats,
			target:  func(t *Target) { target(t); t.AddIllegalOp("test.keep") },
			wantErr: "t.mlir:3:3: error: failed to legalize operation 'test.keep'"},
		{name: "full conversion names the user still on the old type", mode: Full, tc: i64ToI32(), build: build, patterns: pats,
			target: func(t *Target) { target(t); t.AddLegalOp("test.keep") },
			wantErr: "t.mlir:3:3: error: failed to legalize operation 'test.keep': operand #0 still has type 'i64', whose value was converted to 'i32'\n" +
				"t.mlir:2:3: note: value converted here"},
		{name: "converted user of an unconverted producer gets a target cast", mode: Partial, tc: i64ToI32(),
			build:  func(x *irb) { x.Op("old.use", 0, at(x.Op("src.v", 1), 1).Result(0)) },
			target: func(t *Target) { t.AddIllegalDialect("old"); t.AddLegalDialect("new") },
			patterns: func(tc *TypeConverter) []ConversionPattern {
				return []ConversionPattern{cpat("old.use", "use", 1, func(op *textir.Operation, operands []*textir.Value, rw *ConversionRewriter) bool {
					if operands[0].Type() != textir.I32() {
						return false
					}
					rw.Create(&textir.OperationState{Name: "new.use", Operands: operands})
					rw.EraseOp(op)
					return true
				})}
			},
			want: `
				|test.module {
				|  %0 = src.v
				|  %1 = builtin.unrealized_conversion_cast(%0) : i32
				|  new.use(%1)
				|}`},
		{name: "full conversion rejects the unconverted producer", mode: Full, tc: i64ToI32(),
			build:  func(x *irb) { x.Op("old.use", 0, at(x.Op("src.v", 1), 1).Result(0)) },
			target: func(t *Target) { t.AddIllegalDialect("old"); t.AddLegalDialect("new", "src") },
			patterns: func(tc *TypeConverter) []ConversionPattern {
				return []ConversionPattern{rename("old.use", "new.use", tc)}
			},
			wantErr: "t.mlir:1:3: error: failed to legalize a value of type 'i64': it has a user converted to 'i32'\n" +
				"loc(unknown): note: see user 'new.use' here"},
	})
}

func TestCustomMaterialization(t *testing.T) {
	ctx := newCtx()
	x := newIRB(ctx)
	m := x.Module()
	v := x.Op("old.def", 1).Result(0)
	x.Op("keep.use", 0, v)
	tc := i64ToI32()
	tc.SourceMaterialization = func(b *textir.Builder, t textir.Type, in []*textir.Value, loc textir.Location) *textir.Value {
		return b.Create(&textir.OperationState{Name: "keep.ext", Operands: in, ResultTypes: []textir.Type{t}, Loc: loc}).Result(0)
	}
	target := NewTarget(ctx)
	target.AddLegalOp("test.module")
	target.AddLegalDialect("keep", "new")
	target.AddIllegalDialect("old")
	if err := ApplyFullConversion(m, target, []ConversionPattern{rename("old.def", "new.def", tc)}, tc); err != nil {
		t.Fatal(err)
	}
	if got, want := dump(m), trim(`
		|test.module {
		|  %0 = new.def : i32
		|  %1 = keep.ext(%0)
		|  keep.use(%1)
		|}`); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestPatternFailureMustNotChangeIR(t *testing.T) {
	build := func(x *irb) { at(x.Op("a.x", 0), 5) }
	target := func(t *Target) { t.AddIllegalDialect("a") }
	runCases(t, []convCase{
		{name: "change through the rewriter", mode: Full, build: build, target: target,
			patterns: func(*TypeConverter) []ConversionPattern {
				return []ConversionPattern{cpat("a.x", "sloppy", 1, func(op *textir.Operation, _ []*textir.Value, rw *ConversionRewriter) bool {
					rw.Create(&textir.OperationState{Name: "b.half"})
					return false
				})}
			},
			wantErr: "t.mlir:5:3: error: 'a.x' op pattern 'sloppy' returned failure but IR did change"},
		{name: "change behind the rewriter's back", mode: Full, build: build, target: target,
			patterns: func(*TypeConverter) []ConversionPattern {
				return []ConversionPattern{cpat("a.x", "sneaky", 1, func(op *textir.Operation, _ []*textir.Value, rw *ConversionRewriter) bool {
					op.SetAttr("touched", textir.UnitAttr{})
					return false
				})}
			},
			wantErr: "t.mlir:5:3: error: 'a.x' op pattern 'sneaky' returned failure but IR did change"},
	})
}

func TestTypeConverterOrder(t *testing.T) {
	tc := NewTypeConverter(
		func(t textir.Type) (textir.Type, bool) { return t, true },
		func(t textir.Type) (textir.Type, bool) {
			if t == textir.I64() {
				return textir.I32(), true
			}
			return nil, false
		},
		func(t textir.Type) (textir.Type, bool) {
			if t == textir.F32() {
				return nil, false // defer to earlier conversions
			}
			if t == textir.I1() {
				return textir.I8(), true
			}
			return nil, false
		})
	for _, c := range []struct{ in, out textir.Type }{
		{textir.I64(), textir.I32()}, {textir.I1(), textir.I8()}, {textir.F32(), textir.F32()},
	} {
		if got, ok := tc.ConvertType(c.in); !ok || got != c.out {
			t.Errorf("ConvertType(%s) = %v, %v; want %s", c.in, got, ok, c.out)
		}
	}
	if tc.IsLegal(textir.I64()) || !tc.IsLegal(textir.F32()) {
		t.Error("IsLegal")
	}
	if _, ok := NewTypeConverter().ConvertType(textir.I64()); ok {
		t.Error("an empty converter converts nothing")
	}
	if !strings.Contains(CastOpName, "unrealized_conversion_cast") {
		t.Error(CastOpName)
	}
}

// Populate functions add to a PatternList; the list converts as a slice,
// and among patterns of equal benefit the one added first applies.
func TestPatternList(t *testing.T) {
	populateFirst := func(l *PatternList) { l.Add(rename("a.x", "b.first", nil)) }
	populateMore := func(l *PatternList) {
		l.Add(rename("a.x", "b.second", nil), rename("a.y", "b.y", nil))
	}
	var list PatternList
	populateFirst(&list)
	populateMore(&list)
	if len(list) != 3 {
		t.Fatalf("the list holds %d patterns, want 3", len(list))
	}
	runCases(t, []convCase{{
		name:     "first added wins a tie",
		mode:     Partial,
		build:    func(x *irb) { x.Op("use.it", 0, x.Op("a.x", 1).Result(0)); x.Op("a.y", 0) },
		target:   func(t *Target) { t.AddIllegalDialect("a"); t.AddLegalDialect("b") },
		patterns: func(*TypeConverter) []ConversionPattern { return list },
		want: `
			|test.module {
			|  %0 = b.first
			|  use.it(%0)
			|  b.y
			|}`,
	}})
}
