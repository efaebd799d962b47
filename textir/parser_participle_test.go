package textir

import (
	"io"
	"testing"

	"github.com/alecthomas/participle/v2"
	plexer "github.com/alecthomas/participle/v2/lexer"
)

// This file measures the design choice recorded at the top of parser.go: a
// participle grammar for tensor types, driven through ParseFromLexer over a
// hand-written token stream (no regex lexer), against the hand-written type
// parser. Run: go test -run XXX -bench 'TensorType' ./textir

type pcTensor struct {
	Dims []pcDim `parser:"'tensor' '<' (@@ 'x')*"`
	Elem string  `parser:"@Ident '>'"`
}

type pcDim struct {
	Dynamic bool   `parser:"  @'?'"`
	Size    *int64 `parser:"| @Int"`
}

const (
	pcEOF   plexer.TokenType = plexer.EOF
	pcIdent plexer.TokenType = iota + 1
	pcInt
	pcPunct
)

type pcDef struct{}

func (pcDef) Symbols() map[string]plexer.TokenType {
	return map[string]plexer.TokenType{"EOF": pcEOF, "Ident": pcIdent, "Int": pcInt, "Punct": pcPunct}
}

func (pcDef) Lex(string, io.Reader) (plexer.Lexer, error) { panic("use pcLexer directly") }

// pcLexer emits participle tokens for type text: identifiers, integers,
// and single-character punctuation, splitting "4x?xf32" into 4 x ? x f32.
type pcLexer struct {
	src     string
	pos     int
	lastDim bool
}

func (l *pcLexer) Next() (plexer.Token, error) {
	for l.pos < len(l.src) && l.src[l.pos] == ' ' {
		l.pos++
	}
	start := l.pos
	mk := func(t plexer.TokenType, end int) (plexer.Token, error) {
		l.pos = end
		return plexer.Token{Type: t, Value: l.src[start:end], Pos: plexer.Position{Offset: start}}, nil
	}
	if start >= len(l.src) {
		return plexer.EOFToken(plexer.Position{Offset: start}), nil
	}
	c := l.src[start]
	switch {
	case c == 'x' && l.lastDim:
		l.lastDim = false
		return mk(pcPunct, start+1)
	case isDigit(c):
		i := start
		for i < len(l.src) && isDigit(l.src[i]) {
			i++
		}
		l.lastDim = true
		return mk(pcInt, i)
	case isLetter(c):
		i := start
		for i < len(l.src) && isBareChar(l.src[i]) {
			i++
		}
		return mk(pcIdent, i)
	}
	l.lastDim = c == '?'
	return mk(pcPunct, start+1)
}

var pcTensorTexts = []string{"tensor<4x?xf32>", "tensor<2x2xi32>", "tensor<16x128x?xf16>", "tensor<i64>"}

func pcBuildType(tt *pcTensor) Type {
	dims := make([]int64, len(tt.Dims))
	for i, d := range tt.Dims {
		dims[i] = Dynamic
		if d.Size != nil {
			dims[i] = *d.Size
		}
	}
	var elem Type
	switch tt.Elem {
	case "f32":
		elem = F32()
	case "f16":
		elem = F16()
	case "i32":
		elem = I32()
	default:
		elem = I64()
	}
	return TensorOf(dims, elem)
}

func BenchmarkParticipleTensorType(b *testing.B) {
	p, err := participle.Build[pcTensor](participle.Lexer(pcDef{}))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		pl, err := plexer.Upgrade(&pcLexer{src: pcTensorTexts[i%len(pcTensorTexts)]})
		if err != nil {
			b.Fatal(err)
		}
		tt, err := p.ParseFromLexer(pl, participle.AllowTrailing(true))
		if err != nil {
			b.Fatal(err)
		}
		pcBuildType(tt)
	}
}

func BenchmarkHandTensorType(b *testing.B) {
	ctx := NewContext()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		p := parser{ctx: ctx, src: pcTensorTexts[i%len(pcTensorTexts)], typeCache: map[string]Type{}}
		p.lx.src = p.src
		p.tok = p.lx.next()
		if _, err := p.parseType(); err != nil {
			b.Fatal(err)
		}
	}
}

func TestParticipleTensorGrammar(t *testing.T) {
	p, err := participle.Build[pcTensor](participle.Lexer(pcDef{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range pcTensorTexts {
		pl, err := plexer.Upgrade(&pcLexer{src: s})
		if err != nil {
			t.Fatal(err)
		}
		tt, err := p.ParseFromLexer(pl, participle.AllowTrailing(true))
		if err != nil {
			t.Fatal(err)
		}
		want, _ := ParseType(ctx0(), s)
		if got := pcBuildType(tt); got != want {
			t.Errorf("%s: participle %v, hand %v", s, got, want)
		}
	}
}

func ctx0() *Context { return NewContext() }
