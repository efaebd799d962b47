package embtogpu

import (
	"fmt"
	"slices"
	"strings"

	"github.com/recom-compiler/recom/dialects/arith"
	"github.com/recom-compiler/recom/dialects/emb"
	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/dialects/gpu"
	"github.com/recom-compiler/recom/dialects/tfg"
	"github.com/recom-compiler/recom/textir"
)

// Crossed columns in the kernel (abi's source "cross"): the ids of an
// emb.cross are computed from its inputs' raw values. For cross k of bag
// b, the kernel splits k into one feature position per input (the last
// input varying fastest, by the inputs' bag sizes), loads each feature,
// applies the input's transforms, hashes it (Fingerprint64 of a string, an
// integer as itself), combines the hashes with FingerprintCat64 from
// hash_key and reduces the result mod num_buckets. With the tuned
// schedule's id pass, a lane takes a bag and computes all its crosses.

// crossChain is the part of an idChain that a crossed column adds: the
// fused op's operands after the table (each input's values and row
// splits) and the inputs' layouts.
type crossChain struct {
	operands []*textir.Value
	inputs   []abi.CrossInput
}

// absorbCross takes the ids v of lookup lk when they are a hashed
// emb.cross whose bags are the lookup's (and every input's transforms the
// kernel computes), or returns nil. The ids' range was checked by
// absorbIDs.
func absorbCross(lk *textir.Operation, v, bagSplits, bagWeights *textir.Value, host []string) (*idChain, string) {
	x, ok := emb.AsCross(v.DefiningOp())
	switch {
	case !ok || v != x.Values():
		return nil, "its ids are not a cross's"
	case slices.Contains(host, "cross"):
		return nil, "host-ids=cross"
	case bagWeights != nil:
		return nil, "the lookup's bags are weighted"
	}
	key, nb, hashed := x.Hashed()
	if !hashed {
		return nil, "its crosses are joined strings, not hashed ids"
	}
	if lk.Name() == emb.GatherOp {
		// One id per row: BagSize proved every input one feature a row.
		if lo, hi, ok := emb.BagSize(x.RowSplits()); !ok || lo != 1 || hi != 1 {
			return nil, "a gather of crosses not proven one a row"
		}
	} else if bagSplits != x.RowSplits() {
		return nil, "the lookup's bags are not the cross's"
	}
	vals, splits := x.CrossInputs()
	if len(vals) == 0 || len(vals) > abi.MaxCrossInputs {
		return nil, fmt.Sprintf("%d inputs (the kernel crosses 1 to %d)", len(vals), abi.MaxCrossInputs)
	}
	c := &idChain{source: abi.SourceCross, cross: &crossChain{}}
	for i, iv := range vals {
		var ts []abi.Transform
		u := iv
		for {
			def := u.DefiningOp()
			in, out, isTransform := transformValues(def)
			if !isTransform || u != out {
				break
			}
			t, ok := transformOf(def, ts, splits[i])
			if !ok || slices.Contains(host, strings.TrimPrefix(def.Name(), "emb.")) {
				break
			}
			ts = append([]abi.Transform{t}, ts...)
			u = in
		}
		var in abi.CrossInput
		el := textir.ElementType(u.Type())
		switch {
		case el == textir.F32():
			in.Source, c.idBytes = abi.SourceF32, c.idBytes+4
		case el == textir.F64():
			in.Source, c.idBytes = abi.SourceF64, c.idBytes+8
		case isInt(el):
			in.Source, c.idBytes = abi.SourceI64, c.idBytes+8
		case tfg.IsString(el):
			in.Source, c.idBytes = abi.SourceStr, c.idBytes+16
		default:
			return nil, fmt.Sprintf("input #%d has values of %s", i, u.Type())
		}
		in.Transforms = len(ts)
		c.transforms = append(c.transforms, ts...)
		c.cross.inputs = append(c.cross.inputs, in)
		c.cross.operands = append(c.cross.operands, u, splits[i])
	}
	c.transforms = append(c.transforms, abi.Transform{Op: abi.TransformCross, NumBuckets: nb, HashKey: int64(key)})
	col := abi.Column{Source: c.source, Transforms: c.transforms, Cross: c.cross.inputs, Kind: abi.KindLookup}
	if err := col.CheckChain(); err != nil {
		return nil, err.Error()
	}
	return c, ""
}

// crossBag is what the kernel reads of one bag of a crossed column: each
// input's first position and feature count.
type crossBag struct {
	starts, counts []*textir.Value
}

// crossInputs returns the word offsets of input i's row splits, values and
// string bytes (the column's input table, at descriptor word 1).
func (k *kb) crossInput(a *kernelArgs, i int) (splits, values, bytes *textir.Value) {
	t := k.AddC(a.valuesOff, int64(3*i))
	return k.word(a.in, t), k.word(a.in, k.AddC(t, 1)), k.word(a.in, k.AddC(t, 2))
}

// loadCrossBag loads the inputs' bag b.
func (k *kb) loadCrossBag(c *abi.Column, a *kernelArgs, b *textir.Value) *crossBag {
	cb := &crossBag{}
	for i := range c.Cross {
		s, _, _ := k.crossInput(a, i)
		p := k.Add(s, b)
		lo, hi := k.word(a.in, p), k.word(a.in, k.AddC(p, 1))
		cb.starts = append(cb.starts, lo)
		cb.counts = append(cb.counts, k.Bin(arith.SubIOp, hi, lo))
	}
	return cb
}

// crossID emits the id of cross kk (i64, in [0, the bag's crosses)) of
// the bag cb.
func (k *kb) crossID(c *abi.Column, a *kernelArgs, cb *crossBag, kk *textir.Value) *textir.Value {
	n := len(c.Cross)
	// The feature positions: kk in the mixed radix of the bag sizes, the
	// last input's digit lowest (32-bit: a bag has < 2^31 crosses).
	pos := make([]*textir.Value, n)
	rem := k.Cast(arith.TruncIOp, kk, i32)
	for i := n - 1; i > 0; i-- {
		cnt := k.Cast(arith.TruncIOp, cb.counts[i], i32)
		pos[i] = k.Cast(arith.ExtUIOp, k.Bin(arith.RemUIOp, rem, cnt), i64)
		rem = k.Bin(arith.DivUIOp, rem, cnt)
	}
	pos[0] = k.Cast(arith.ExtUIOp, rem, i64)
	P := a.params[len(c.Transforms)-1] // the cross: [num_buckets, hash_key]
	h := P[1]                          // hash_key
	g := k.fhNew()
	for i, in := range c.Cross {
		_, valuesW, bytesW := k.crossInput(a, i)
		j := k.Add(cb.starts[i], pos[i])
		var v idValue
		switch in.Source {
		case abi.SourceI64:
			// valuesW is a multiple of 4 words: 16-byte aligned.
			v = idValue{kind: "int", x: k.Load(k.view(a, a.in, i64), k.Add(k.Bin(arith.ShRUIOp, valuesW, k.C64(1)), j), 1, true)[0]}
		case abi.SourceF32:
			v = idValue{kind: "float", x: k.Load(a.inF, k.Add(valuesW, j), 1, true)[0]}
		case abi.SourceF64:
			v = idValue{kind: "float", x: k.Load(k.view(a, a.in, textir.F64()), k.Add(k.Bin(arith.ShRUIOp, valuesW, k.C64(1)), j), 1, true)[0]}
		case abi.SourceStr:
			p := k.Add(valuesW, j)
			s, e := k.word(a.in, p), k.word(a.in, k.AddC(p, 1))
			v = idValue{kind: "str", p: k.view(a, a.in, textir.I8()), off: k.Add(k.mulc(bytesW, 4), s), n: k.Bin(arith.SubIOp, e, s)}
		}
		_, first := c.CrossTransforms(i)
		v = k.transforms(c, a, j, cb.starts[i], v, first, first+in.Transforms)
		f := v.x
		if v.kind == "str" {
			f = k.fingerprint(v)
		}
		h = g.fingerprintCat64(h, f)
	}
	return k.hashBucket(h, P[0])
}

// fingerprintCat64 emits TensorFlow's FingerprintCat64(fp1, fp2)
// (tensorflow/core/platform/fingerprint.h; the Go reference is
// tfops.FingerprintCat64).
func (g *fhGen) fingerprintCat64(fp1, fp2 *textir.Value) *textir.Value {
	const mul = 0xc6a4a7935bd1e995
	r := g.xor(fp1, g.c(mul))
	r = g.xor(r, g.mulc(g.shiftMix(g.mulc(fp2, mul)), mul))
	r = g.mulc(r, mul)
	r = g.mulc(g.shiftMix(r), mul)
	return g.shiftMix(r)
}

// idPassCross is the id pass of a crossed column: lane r takes bags
// taskLo+r, taskLo+r+32, ... < taskHi and writes the ids of each bag's
// crosses at their positions in the scratch (the cross's row splits; a
// gather column's bag b has its one cross at position b).
func (k *kb) idPassCross(c *abi.Column, a *kernelArgs, taskLo, taskHi, lane *textir.Value) {
	k.For(k.Add(taskLo, lane), taskHi, k.C64(gpu.WarpSize), nil, func(b *textir.Value, _ []*textir.Value) []*textir.Value {
		lo, hi := b, k.AddC(b, 1)
		if c.Kind != abi.KindGather {
			p := k.Add(a.splitsOff, b)
			lo, hi = k.word(a.in, p), k.word(a.in, k.AddC(p, 1))
		}
		cb := k.loadCrossBag(c, a, b)
		k.For(lo, hi, k.C64(1), nil, func(j *textir.Value, _ []*textir.Value) []*textir.Value {
			id := k.crossID(c, a, cb, k.Bin(arith.SubIOp, j, lo))
			k.Store([]*textir.Value{k.Cast(arith.TruncIOp, id, i32)}, a.in, k.Add(a.scratchW, j))
			return nil
		})
		return nil
	})
}
