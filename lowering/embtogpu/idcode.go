package embtogpu

import (
	"github.com/recom-compiler/recom/dialects/arith"
	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/dialects/gpu"
	"github.com/recom-compiler/recom/textir"
)

// The id computation in the kernel: each id position's raw value (an
// integer, a float or a string of the packed inputs) goes through the
// column's transforms (abi.Transform) to the row index. The code is per
// class (columns with the same abi.Column.Signature); the per-column
// numbers (bucket counts, defaults, where the boundaries and vocabularies
// are) are the column's parameter block in the static arena, read once per
// task by loadParams.

// view returns p reinterpreted as a pointer to elem (one gpu.ptr_cast per
// kernel, pointer and element type).
func (k *kb) view(a *kernelArgs, p *textir.Value, elem textir.Type) *textir.Value {
	if gpu.PtrElem(p.Type()) == elem {
		return p
	}
	type key struct {
		p    *textir.Value
		elem textir.Type
	}
	if a.views == nil {
		a.views = map[any]*textir.Value{}
	}
	kk := key{p, elem}
	if v, ok := a.views[kk]; ok {
		return v
	}
	// The cast goes at the start of the kernel so that every class can
	// use it.
	saved := *k.B
	k.B.SetInsertionPoint(a.entry)
	v := k.Val(gpu.PtrCastOp, []*textir.Value{p}, gpu.PtrType(elem, gpu.Global))
	*k.B = saved
	a.views[kk] = v
	return v
}

// loadParams reads c's parameter block (one slice of i64 values per
// transform) at the start of a class's code; a word with the same value
// in every column of the class (a.classParams, abi.ClassParams) is that
// constant instead: no load, and e.g. a hash's bucket count a constant
// divisor.
func (k *kb) loadParams(c *abi.Column, a *kernelArgs) {
	a.params = nil
	if len(c.Transforms) == 0 {
		return
	}
	t64 := k.view(a, a.tables, i64)
	base := k.mulc(a.paramsW, abi.TableAlign/2)
	idx := int64(0)
	for i := range c.Transforms {
		var ps []*textir.Value
		for j := range c.Transforms[i].ParamWords() {
			if i < len(a.classParams) && a.classParams[i][j] != nil {
				ps = append(ps, k.C64(*a.classParams[i][j]))
			} else {
				ps = append(ps, k.Load(t64, k.AddC(base, idx), 1, true)[0])
			}
			idx++
		}
		a.params = append(a.params, ps)
	}
}

// idValue is a value on its way to a row index.
type idValue struct {
	kind      string        // "int", "float", "str" or "intstr" (an integer standing for its decimal string)
	x         *textir.Value // int, float, intstr
	p, off, n *textir.Value // str: bytes p[off : off+n]
	pre       *fpPending    // str: its Fingerprint64 started (rawValue)
}

// columnIDs emits the row indices of id positions js of column c (bag
// starting at position a.bagLo; after the id pass, a.prepassed, each j is
// the id's word in the scratch: the position, or for "split" columns
// splitBag's): every position's loads first (rawValue), then the
// transforms of each, so that the positions' round trips to memory overlap.
func (k *kb) columnIDs(c *abi.Column, a *kernelArgs, js []*textir.Value) []*textir.Value {
	ids := make([]*textir.Value, len(js))
	vs := make([]idValue, len(js))
	for r, j := range js {
		ids[r], vs[r] = k.rawValue(c, a, j)
	}
	for r, j := range js {
		if ids[r] == nil {
			ids[r] = k.transformID(c, a, j, vs[r])
		}
	}
	return ids
}

// rawValue emits the loads of position j's value: the id itself when it
// needs no transform (after the id pass, or source "ids"), else the raw
// value, with a string's hash started when the first transform hashes it.
func (k *kb) rawValue(c *abi.Column, a *kernelArgs, j *textir.Value) (*textir.Value, idValue) {
	if a.prepassed {
		// Written by this warp's id pass: a plain (coherent) load.
		return k.Cast(arith.ExtSIOp, k.Load(a.in, k.Add(a.scratchW, j), 1, false)[0], i64), idValue{}
	}
	if c.IsCross() {
		return k.crossID(c, a, a.crossBag, k.Bin(arith.SubIOp, j, a.bagLo)), idValue{}
	}
	pos := k.Add(a.valuesOff, j)
	var v idValue
	switch c.Source {
	case abi.SourceIDs:
		return k.word(a.in, pos), idValue{}
	case abi.SourceI64:
		// valuesOff is a multiple of 4 words: 16-byte aligned.
		v = idValue{kind: "int", x: k.Load(k.view(a, a.in, i64), k.Add(k.Bin(arith.ShRUIOp, a.valuesOff, k.C64(1)), j), 1, true)[0]}
	case abi.SourceF32:
		v = idValue{kind: "float", x: k.Load(a.inF, pos, 1, true)[0]}
	case abi.SourceF64:
		v = idValue{kind: "float", x: k.Load(k.view(a, a.in, textir.F64()), k.Add(k.Bin(arith.ShRUIOp, a.valuesOff, k.C64(1)), j), 1, true)[0]}
	case abi.SourceStr:
		if c.StrSlots() {
			// valuesOff is a multiple of 4 words: the slots are 8-byte aligned.
			x := k.Load(k.view(a, a.in, i64), k.Add(k.Bin(arith.ShRUIOp, a.valuesOff, k.C64(1)), j), 1, true)[0]
			pre := k.fpStartSlot(k.view(a, a.in, textir.I8()), x, k.mulc(a.bytesW, 4))
			return nil, idValue{kind: "str", p: k.view(a, a.in, textir.I8()), off: pre.off, n: pre.n, pre: pre}
		}
		s := k.word(a.in, pos)
		e := k.word(a.in, k.AddC(pos, 1))
		v = idValue{kind: "str", p: k.view(a, a.in, textir.I8()), off: k.Add(k.mulc(a.bytesW, 4), s), n: k.Bin(arith.SubIOp, e, s)}
		if len(c.Transforms) > 0 && (c.Transforms[0].Op == abi.TransformHash || c.Transforms[0].Op == abi.TransformVocab) {
			v.pre = k.fpStart(v.p, v.off, v.n)
		}
	}
	return nil, v
}

// fingerprint returns the Fingerprint64 of string value v.
func (k *kb) fingerprint(v idValue) *textir.Value {
	if v.pre != nil {
		return v.pre.finish()
	}
	return k.fingerprint64(v.p, v.off, v.n)
}

// transformID emits the column's transforms of position j's raw value v.
func (k *kb) transformID(c *abi.Column, a *kernelArgs, j *textir.Value, v idValue) *textir.Value {
	return k.transforms(c, a, j, a.bagLo, v, 0, len(c.Transforms)).x
}

// transforms emits transforms [lo, hi) of c on the raw value v of
// position j of the bag that starts at position bagLo (add_offset's).
func (k *kb) transforms(c *abi.Column, a *kernelArgs, j, bagLo *textir.Value, v idValue, lo, hi int) idValue {
	for i := lo; i < hi; i++ {
		t := &c.Transforms[i]
		P := a.params[i]
		switch t.Op {
		case abi.TransformHash:
			var h *textir.Value
			if v.kind == "str" {
				h = k.fingerprint(v)
			} else {
				h = k.fingerprint64Int(v.x)
			}
			v = idValue{kind: "int", x: k.hashBucket(h, P[0])}
		case abi.TransformAsString:
			v.kind = "intstr"
		case abi.TransformBucketize:
			// Boundaries are f32 in the arena, f64 for f64 values
			// (abi.Column.writeStatic): one comparison per step.
			bf, off := k.view(a, a.tables, f32), P[1]
			if v.x.Type() == textir.F64() {
				bf, off = k.view(a, a.tables, textir.F64()), k.Bin(arith.ShRUIOp, P[1], k.C64(1))
			}
			steps := abi.BucketizeSteps(int64(len(t.Boundaries)))
			if _, _, ok := t.Uniform(); ok {
				// b0 and 1/step: at a static offset from the parameter
				// block when the class allows (their loads then go
				// with the parameters'), else before the boundaries.
				guess := k.AddC(P[1], -4) // floats
				if d, ok := c.DataOffset(i); ok {
					guess = k.AddC(k.mulc(a.paramsW, abi.TableAlign), d)
				}
				if v.x.Type() == textir.F64() {
					guess = k.Bin(arith.ShRUIOp, guess, k.C64(1))
				}
				v = idValue{kind: "int", x: k.bucketizeUniform(bf, off, guess, P[0], v.x, steps)}
			} else {
				v = idValue{kind: "int", x: k.bucketize(bf, off, P[0], v.x, steps)}
			}
		case abi.TransformVocab:
			v = idValue{kind: "int", x: k.vocabID(a, t, P, v)}
		case abi.TransformCheckRange:
			in := k.Bin(arith.AndIOp, k.Cmp(arith.SGE, v.x, k.C64(0)), k.Cmp(arith.SLT, v.x, P[0]))
			v.x = k.Sel(in, v.x, P[1])
		case abi.TransformCast:
			if sh := 64 - t.Bits; sh > 0 {
				v.x = k.Bin(arith.ShRSIOp, k.Bin(arith.ShLIOp, v.x, k.C64(sh)), k.C64(sh))
			}
		case abi.TransformAddOffset:
			v.x = k.Add(v.x, k.Mul(P[0], k.Bin(arith.SubIOp, j, bagLo)))
		case abi.TransformDrop:
			// Kept ids are in the table (the fuse pattern proved it), so
			// -1 marks a dropped one (addRows skips it).
			in := k.Bin(arith.AndIOp, k.Cmp(arith.SGE, v.x, P[0]), k.Cmp(arith.SLE, v.x, P[1]))
			v.x = k.Sel(in, v.x, k.C64(-1))
		}
	}
	return v
}

// vocabID emits a vocabulary lookup: the key's index, else size + its
// hash bucket among num_oov_buckets, else the default.
func (k *kb) vocabID(a *kernelArgs, t *abi.Transform, P []*textir.Value, v idValue) *textir.Value {
	words := k.view(a, a.tables, i32)
	var idx, found *textir.Value
	var fp *textir.Value
	if v.kind == "str" {
		fp = k.fingerprint(v)
		idx, found = k.vocabFindString(words, P[0], fp, v.p, v.off, v.n)
	} else {
		idx, found = k.vocabFindInt(words, P[0], v.x)
	}
	var miss *textir.Value
	if t.NumBuckets > 0 {
		if fp == nil {
			fp = k.fingerprint64Int(v.x)
		}
		miss = k.Add(P[1], k.hashBucket(fp, P[2]))
	} else {
		miss = P[3]
	}
	return k.Sel(found, idx, miss)
}

// bucketizeUniform emits Bucketize for boundaries close to evenly spaced
// (abi.Transform.Uniform): the guess g = trunc(max((x - b0) / step + 1, 0))
// clamped to [0, n] is checked against the boundaries around it (two
// independent loads instead of a chain of log2(n)); a wrong guess (x next
// to a boundary, NaN) takes the binary search. b0 and 1/step are the
// elements guess and guess+1 of bf.
func (k *kb) bucketizeUniform(bf, off, guess, n, x *textir.Value, steps int64) *textir.Value {
	ft := gpu.PtrElem(bf.Type())
	if x.Type() != ft {
		if x.Type() == textir.F64() || x.Type() == f32 {
			// Only f32 values meet f32 boundaries and f64 values f64 ones.
			return k.bucketize(bf, off, n, x, steps)
		}
		x = k.Cast(arith.SIToFPOp, x, f32)
	}
	load := func(j *textir.Value) *textir.Value { return k.Load(bf, j, 1, true)[0] }
	b0, inv := load(guess), load(k.AddC(guess, 1))
	one := k.Val(arith.ConstantOp, nil, ft, textir.NamedAttribute{Name: "value", Value: textir.FloatAttr{Value: 1, Type: ft}})
	zero := k.Val(arith.ConstantOp, nil, ft, textir.NamedAttribute{Name: "value", Value: textir.FloatAttr{Value: 0, Type: ft}})
	t := k.Bin(arith.AddFOp, k.Bin(arith.MulFOp, k.Bin(arith.SubFOp, x, b0), inv), one)
	nf := k.Cast(arith.SIToFPOp, n, ft)
	// fmaxf/fminf: a NaN t becomes 0 (the check below then fails).
	t = k.Val(gpu.MinOp, []*textir.Value{k.Val(gpu.MaxOp, []*textir.Value{t, zero}, ft), nf}, ft)
	g := k.Cast(arith.FPToSIOp, t, i64)
	nm1 := k.AddC(n, -1)
	lo := load(k.Add(off, k.Bin(arith.MaxSIOp, k.AddC(g, -1), k.C64(0))))
	hi := load(k.Add(off, k.Bin(arith.MinSIOp, g, nm1)))
	loOK := k.Bin(arith.OrIOp, k.Cmp(arith.EQ, g, k.C64(0)), k.CmpF(arith.FOGE, x, lo))
	hiOK := k.Bin(arith.OrIOp, k.Cmp(arith.EQ, g, n), k.CmpF(arith.FOLT, x, hi))
	ok := k.Bin(arith.AndIOp, loOK, hiOK)
	return k.If(ok, []textir.Type{i64}, func() []*textir.Value { return []*textir.Value{g} },
		func() []*textir.Value { return []*textir.Value{k.bucketize(bf, off, n, x, steps)} })[0]
}

// idPass emits the tuned schedule's id pass (abi.Layer.Prepass): the
// lanes of the task's warp compute the ids of the positions of bags
// [taskLo, taskLo+bpt) (clipped to the batch), lane-strided, into the
// scratch (a "split" column's lanes split a bag each: idPassSplit); a
// warp barrier orders those stores before the lookups' loads.
func (k *kb) idPass(c *abi.Column, a *kernelArgs, taskLo, bpt, lane *textir.Value) {
	taskHi := k.Bin(arith.MinSIOp, k.Add(taskLo, bpt), a.batch)
	if c.Source == abi.SourceSplit || c.IsCross() {
		if c.IsCross() {
			k.idPassCross(c, a, taskLo, taskHi, lane)
		} else {
			k.idPassSplit(c, a, taskLo, taskHi, lane)
		}
		k.Op(gpu.WarpSyncOp, nil, nil)
		a.prepassed = true
		return
	}
	pLo, pHi := taskLo, taskHi
	if c.Kind != abi.KindGather {
		pLo = k.word(a.in, k.Add(a.splitsOff, taskLo))
		pHi = k.word(a.in, k.Add(a.splitsOff, taskHi))
	}
	// U positions per lane and trip (p, p+32, ...; idUnroll): their
	// loads in flight together; a position past the task's is clamped to
	// its last one and not stored.
	U := idUnroll(c)
	k.For(k.Add(pLo, lane), pHi, k.C64(U*gpu.WarpSize), nil, func(p *textir.Value, _ []*textir.Value) []*textir.Value {
		js := []*textir.Value{p}
		valid := []*textir.Value{nil}
		for u := int64(1); u < U; u++ {
			q := k.AddC(p, u*gpu.WarpSize)
			valid = append(valid, k.Cmp(arith.SLT, q, pHi))
			js = append(js, k.Bin(arith.MinSIOp, q, k.AddC(pHi, -1)))
		}
		for u, id := range k.columnIDs(c, a, js) {
			store := func() {
				k.Store([]*textir.Value{k.Cast(arith.TruncIOp, id, i32)}, a.in, k.Add(a.scratchW, js[u]))
			}
			if valid[u] == nil {
				store()
			} else {
				k.IfThen(valid[u], store)
			}
		}
		return nil
	})
	k.Op(gpu.WarpSyncOp, nil, nil)
	a.prepassed = true
}

// idUnroll is the positions each lane of an id pass takes per trip: two
// when a task is expected to have more positions than a warp has lanes
// (the planner's pooling times bags per task), else one.
func idUnroll(c *abi.Column) int64 {
	n := float64(c.BagsPerTask)
	if c.Kind != abi.KindGather {
		n *= max(c.Pooling, 1)
	}
	if n > gpu.WarpSize {
		return 2
	}
	return 1
}

// idPassSplit is the id pass of a "split" column: lane r splits the
// strings of bags taskLo+r, taskLo+r+32, ... < taskHi, one scan of each
// string's bytes (StringSplitV2: a token ends at every separator and at
// the end, empty ones kept), and writes the scratch as abi.Layer.Pack
// lays it out: bag b's token count at word b, its token k's id at word
// B + lo_b + b + k (lo_b: the string's first byte). splitBag reads them.
func (k *kb) idPassSplit(c *abi.Column, a *kernelArgs, taskLo, taskHi, lane *textir.Value) {
	p8 := k.view(a, a.in, textir.I8())
	base := k.mulc(a.bytesW, 4)
	sep := k.C64(int64(c.Sep[0]))
	k.For(k.Add(taskLo, lane), taskHi, k.C64(gpu.WarpSize), nil, func(b *textir.Value, _ []*textir.Value) []*textir.Value {
		p := k.Add(a.valuesOff, b)
		lo, hi := k.word(a.in, p), k.word(a.in, k.AddC(p, 1))
		slots := k.Add(a.scratchW, k.Add(k.Add(a.batch, lo), b))
		res := k.For(lo, k.AddC(hi, 1), k.C64(1), []*textir.Value{lo, k.C64(0)}, func(i *textir.Value, it []*textir.Value) []*textir.Value {
			end := k.Cmp(arith.EQ, i, hi)
			// The byte at i (none at the end: i == hi may be past the buffer).
			isSep := k.If(end, []textir.Type{i1}, func() []*textir.Value { return []*textir.Value{end} }, func() []*textir.Value {
				ch := k.Cast(arith.ExtUIOp, k.Load(p8, k.Add(base, i), 1, true)[0], i64)
				return []*textir.Value{k.Cmp(arith.EQ, ch, sep)}
			})[0]
			return k.If(isSep, []textir.Type{i64, i64}, func() []*textir.Value {
				start := it[0]
				h := k.fingerprint64(p8, k.Add(base, start), k.Bin(arith.SubIOp, i, start))
				id := k.hashBucket(h, a.params[0][0])
				k.Store([]*textir.Value{k.Cast(arith.TruncIOp, id, i32)}, a.in, k.Add(slots, it[1]))
				return []*textir.Value{k.AddC(i, 1), k.AddC(it[1], 1)}
			}, func() []*textir.Value { return it })
		})
		k.Store([]*textir.Value{k.Cast(arith.TruncIOp, res[1], i32)}, a.in, k.Add(a.scratchW, b))
		return nil
	})
}

// splitBag returns the scratch positions [lo, hi) (relative to the
// scratch, as columnIDs reads them) of the token ids of a prepassed "split"
// column's bag b (idPassSplit's layout).
func (k *kb) splitBag(a *kernelArgs, b *textir.Value) (lo, hi *textir.Value) {
	lo = k.Add(k.Add(a.batch, k.word(a.in, k.Add(a.valuesOff, b))), b)
	// Written by this warp's id pass: a plain (coherent) load.
	n := k.Cast(arith.ExtSIOp, k.Load(a.in, k.Add(a.scratchW, b), 1, false)[0], i64)
	return lo, k.Add(lo, n)
}

// poolSplit pools a "split" column's bag without an id pass (the recom
// schedule, InlineIDs): the string bytes [lo, hi) (of the string region
// at word a.bytesW) are cut at every separator byte (StringSplitV2:
// count(sep)+1 tokens, empty ones kept), each token hashed (the column's
// one hash transform) and its row added as it ends; the token count
// scales mean and sqrtn. One pass over the bytes, no row splits.
func (k *kb) poolSplit(c *abi.Column, a *kernelArgs, lo, hi *textir.Value, e int64, eDyn *textir.Value, floats int64) []*textir.Value {
	n := int(floats)
	p8 := k.view(a, a.in, textir.I8())
	base := k.mulc(a.bytesW, 4)
	sep := k.C64(int64(c.Sep[0]))
	types := []textir.Type{i64, i64}
	inits := []*textir.Value{lo, k.C64(0)}
	for range n {
		types = append(types, f32)
		inits = append(inits, k.cf(0))
	}
	res := k.For(lo, k.AddC(hi, 1), k.C64(1), inits, func(i *textir.Value, it []*textir.Value) []*textir.Value {
		end := k.Cmp(arith.EQ, i, hi)
		// The byte at i (none at the end: i == hi may be past the buffer).
		isSep := k.If(end, []textir.Type{i1}, func() []*textir.Value { return []*textir.Value{end} }, func() []*textir.Value {
			b := k.Cast(arith.ExtUIOp, k.Load(p8, k.Add(base, i), 1, true)[0], i64)
			return []*textir.Value{k.Cmp(arith.EQ, b, sep)}
		})[0]
		return k.If(isSep, types, func() []*textir.Value {
			start := it[0]
			h := k.fingerprint64(p8, k.Add(base, start), k.Bin(arith.SubIOp, i, start))
			id := k.hashBucket(h, a.params[0][0])
			row := k.Add(a.tableBase, k.mulc(id, c.Width))
			if eDyn != nil {
				row = k.Add(row, eDyn)
			}
			row = k.AddC(row, e)
			out := []*textir.Value{k.AddC(i, 1), k.AddC(it[1], 1)}
			for q := int64(0); q < floats; q += c.Vector {
				for r, v := range k.Load(a.tables, k.AddC(row, q), c.Vector, true) {
					out = append(out, k.Bin(arith.AddFOp, it[2+int(q)+r], v))
				}
			}
			return out
		}, func() []*textir.Value { return it })
	})
	return k.combine(c, accum{v: res[2:]}, res[1])
}
