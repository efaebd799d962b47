package abi

// The sharding plan of an embedding layer: where each column's table
// lives when the layer runs on several GPUs of one host (--shard-plan,
// --shard; the TorchRec terms are table-wise and row-wise sharding).
//
// Its textual form is the body of a #fused.shard_plan<...> attribute on
// the fused.embedding_layer:
//
//	#fused.shard_plan<devices = 2, dense = 0, columns = [0, 1, rows(0:500@0, 500:1000@1), 1]>
//
// devices is the number of GPUs, dense the one that runs the dense part
// (where the layer's output is assembled), and columns has one entry per
// column of the layer, in the layer's column (kernel) order: a device
// number (the whole table on that device: table-wise) or rows(lo:hi@d,
// ...), the table's rows cut into ranges, each on a device (row-wise):
// the ranges are non-empty, in order, cover [0, rows) and lie on distinct
// devices. Columns that share a table have the same entry. Spaces and
// newlines are free between tokens.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/recom-compiler/recom/textir"
)

// MaxShardDevices bounds a plan's devices: the GPUs of one host (NCCL's
// communicators of one process are made for all of them at once).
const MaxShardDevices = 64

// ShardPlanAttrName is the attribute name: #fused.shard_plan<...>.
const ShardPlanAttrName = "shard_plan"

// ShardPlan is a layer's sharding plan.
type ShardPlan struct {
	Devices int64
	Dense   int64
	Columns []Placement
}

// Placement is where one column's table lives: on Device (table-wise), or
// cut into Pieces (row-wise; Device is then -1).
type Placement struct {
	Device int64
	Pieces []RowPiece
}

// RowPiece is the rows [Lo, Hi) of a table on Device.
type RowPiece struct {
	Lo, Hi, Device int64
}

// RowWise reports whether the column's table is cut into row ranges.
func (p *Placement) RowWise() bool { return len(p.Pieces) > 0 }

// Equal reports whether p and q place a table the same way.
func (p *Placement) Equal(q *Placement) bool {
	if p.Device != q.Device || len(p.Pieces) != len(q.Pieces) {
		return false
	}
	for i := range p.Pieces {
		if p.Pieces[i] != q.Pieces[i] {
			return false
		}
	}
	return true
}

// String returns the plan's textual form (the attribute's body).
func (p *ShardPlan) String() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "devices = %d, dense = %d, columns = [", p.Devices, p.Dense)
	for i := range p.Columns {
		if i > 0 {
			sb.WriteString(", ")
		}
		c := &p.Columns[i]
		if !c.RowWise() {
			sb.WriteString(strconv.FormatInt(c.Device, 10))
			continue
		}
		sb.WriteString("rows(")
		for k, r := range c.Pieces {
			if k > 0 {
				sb.WriteString(", ")
			}
			fmt.Fprintf(&sb, "%d:%d@%d", r.Lo, r.Hi, r.Device)
		}
		sb.WriteString(")")
	}
	sb.WriteString("]")
	return sb.String()
}

// ShardPlanSyntaxError is a plan text that does not parse: Offset is the
// byte offset in the text.
type ShardPlanSyntaxError struct {
	Offset int
	Msg    string
}

func (e *ShardPlanSyntaxError) Error() string {
	return fmt.Sprintf("invalid shard plan at column %d: %s", e.Offset+1, e.Msg)
}

// planLexer reads the tokens of a plan's text.
type planLexer struct {
	src string
	pos int
}

func (l *planLexer) skip() {
	for l.pos < len(l.src) && strings.IndexByte(" \t\r\n", l.src[l.pos]) >= 0 {
		l.pos++
	}
}

func (l *planLexer) errorf(format string, args ...any) error {
	return &ShardPlanSyntaxError{Offset: l.pos, Msg: fmt.Sprintf(format, args...)}
}

// punct consumes the one-byte token c.
func (l *planLexer) punct(c byte) error {
	l.skip()
	if l.pos >= len(l.src) || l.src[l.pos] != c {
		return l.errorf("expected '%c'%s", c, l.found())
	}
	l.pos++
	return nil
}

// optPunct consumes c if it comes next.
func (l *planLexer) optPunct(c byte) bool {
	l.skip()
	if l.pos < len(l.src) && l.src[l.pos] == c {
		l.pos++
		return true
	}
	return false
}

func (l *planLexer) found() string {
	if l.pos >= len(l.src) {
		return ", found the end"
	}
	r := l.src[l.pos:]
	if len(r) > 12 {
		r = r[:12] + "..."
	}
	return fmt.Sprintf(", found %q", r)
}

// word consumes a keyword made of lowercase letters and returns it.
func (l *planLexer) word() string {
	l.skip()
	start := l.pos
	for l.pos < len(l.src) && l.src[l.pos] >= 'a' && l.src[l.pos] <= 'z' {
		l.pos++
	}
	return l.src[start:l.pos]
}

func (l *planLexer) keyword(kw string) error {
	at := l.pos
	if w := l.word(); w != kw {
		l.pos = at
		l.skip()
		return l.errorf("expected '%s'%s", kw, l.found())
	}
	return nil
}

// integer consumes a non-negative decimal integer (at most 18 digits: it
// fits an int64 with room to add).
func (l *planLexer) integer(what string) (int64, error) {
	l.skip()
	start := l.pos
	for l.pos < len(l.src) && l.src[l.pos] >= '0' && l.src[l.pos] <= '9' {
		l.pos++
	}
	if l.pos == start {
		return 0, l.errorf("expected %s (a non-negative integer)%s", what, l.found())
	}
	if l.pos-start > 18 {
		l.pos = start
		return 0, l.errorf("%s %s is too large", what, l.src[start:start+18]+"...")
	}
	v, _ := strconv.ParseInt(l.src[start:l.pos], 10, 64)
	return v, nil
}

// ParseShardPlan reads a plan's textual form (see the file's doc). It
// checks the syntax and what the text alone says (devices in [1,
// MaxShardDevices], device numbers below devices, row ranges non-empty, in
// order and on distinct devices); CheckLayer checks it against a layer.
func ParseShardPlan(text string) (*ShardPlan, error) {
	l := &planLexer{src: text}
	p := &ShardPlan{}
	var err error
	if err = l.keyword("devices"); err != nil {
		return nil, err
	}
	if err = l.punct('='); err != nil {
		return nil, err
	}
	at := l.pos
	if p.Devices, err = l.integer("the number of devices"); err != nil {
		return nil, err
	}
	if p.Devices < 1 || p.Devices > MaxShardDevices {
		l.pos = at
		l.skip()
		return nil, l.errorf("devices must be in [1, %d], got %d", MaxShardDevices, p.Devices)
	}
	device := func() (int64, error) {
		l.skip()
		at := l.pos
		d, err := l.integer("a device")
		if err != nil {
			return 0, err
		}
		if d >= p.Devices {
			l.pos = at
			return 0, l.errorf("device %d is not below devices = %d", d, p.Devices)
		}
		return d, nil
	}
	if err = l.punct(','); err != nil {
		return nil, err
	}
	if err = l.keyword("dense"); err != nil {
		return nil, err
	}
	if err = l.punct('='); err != nil {
		return nil, err
	}
	if p.Dense, err = device(); err != nil {
		return nil, err
	}
	if err = l.punct(','); err != nil {
		return nil, err
	}
	if err = l.keyword("columns"); err != nil {
		return nil, err
	}
	if err = l.punct('='); err != nil {
		return nil, err
	}
	if err = l.punct('['); err != nil {
		return nil, err
	}
	for first := true; !l.optPunct(']'); first = false {
		if !first {
			if err = l.punct(','); err != nil {
				return nil, err
			}
		}
		l.skip()
		if l.pos < len(l.src) && l.src[l.pos] >= '0' && l.src[l.pos] <= '9' {
			d, err := device()
			if err != nil {
				return nil, err
			}
			p.Columns = append(p.Columns, Placement{Device: d})
			continue
		}
		if l.pos >= len(l.src) {
			return nil, l.errorf("expected a device or rows(...), or ']'%s", l.found())
		}
		if err = l.keyword("rows"); err != nil {
			return nil, l.errorf("expected a device or rows(...)%s", l.found())
		}
		if err = l.punct('('); err != nil {
			return nil, err
		}
		c := Placement{Device: -1}
		used := map[int64]bool{}
		for {
			l.skip()
			at := l.pos
			var r RowPiece
			if r.Lo, err = l.integer("the first row"); err != nil {
				return nil, err
			}
			if err = l.punct(':'); err != nil {
				return nil, err
			}
			if r.Hi, err = l.integer("the end row"); err != nil {
				return nil, err
			}
			if err = l.punct('@'); err != nil {
				return nil, err
			}
			if r.Device, err = device(); err != nil {
				return nil, err
			}
			switch {
			case r.Hi <= r.Lo:
				l.pos = at
				return nil, l.errorf("rows %d:%d are empty", r.Lo, r.Hi)
			case len(c.Pieces) == 0 && r.Lo != 0:
				l.pos = at
				return nil, l.errorf("the first rows must start at 0, got %d", r.Lo)
			case len(c.Pieces) > 0 && r.Lo != c.Pieces[len(c.Pieces)-1].Hi:
				l.pos = at
				return nil, l.errorf("rows %d:%d do not follow on from row %d", r.Lo, r.Hi, c.Pieces[len(c.Pieces)-1].Hi)
			case used[r.Device]:
				l.pos = at
				return nil, l.errorf("two row ranges of one table on device %d", r.Device)
			}
			used[r.Device] = true
			c.Pieces = append(c.Pieces, r)
			if l.optPunct(')') {
				break
			}
			if err = l.punct(','); err != nil {
				return nil, err
			}
		}
		p.Columns = append(p.Columns, c)
	}
	l.skip()
	if l.pos != len(l.src) {
		return nil, l.errorf("unexpected text after the plan%s", l.found())
	}
	return p, nil
}

// CheckLayer checks the plan against the layer it shards: an entry per
// column, row ranges that end at the table's rows, and one placement for
// the columns that share a table (the same table offset in the arena).
func (p *ShardPlan) CheckLayer(l *Layer) error {
	if len(p.Columns) != len(l.Columns) {
		return fmt.Errorf("the shard plan places %d columns, the layer has %d", len(p.Columns), len(l.Columns))
	}
	byTable := map[int64]int{}
	for i := range l.Columns {
		c, pl := &l.Columns[i], &p.Columns[i]
		if pl.RowWise() {
			if end := pl.Pieces[len(pl.Pieces)-1].Hi; end != c.Rows {
				return fmt.Errorf("the shard plan cuts column #%d (%q) into rows up to %d, its table has %d", i, c.Name, end, c.Rows)
			}
		}
		if j, ok := byTable[c.TableOffset]; ok && !pl.Equal(&p.Columns[j]) {
			return fmt.Errorf("the shard plan places columns #%d (%q) and #%d (%q) differently, but they share a table", j, l.Columns[j].Name, i, c.Name)
		}
		byTable[c.TableOffset] = i
	}
	return nil
}

// ShardPlanOf returns the plan of a fused.embedding_layer's shard_plan
// attribute, checked against its layer l; nil without the attribute.
func ShardPlanOf(a textir.Attribute, l *Layer) (*ShardPlan, error) {
	if a == nil {
		return nil, nil
	}
	oa, ok := a.(textir.OpaqueAttr)
	if !ok || oa.Dialect != "fused" || oa.Name != ShardPlanAttrName {
		return nil, fmt.Errorf("attribute '%s' must be a #fused.%s<...>", ShardPlanAttrName, ShardPlanAttrName)
	}
	p, err := ParseShardPlan(oa.Params)
	if err != nil {
		return nil, err
	}
	if err := p.CheckLayer(l); err != nil {
		return nil, err
	}
	return p, nil
}

// Attr returns the plan as a #fused.shard_plan<...> attribute.
func (p *ShardPlan) Attr() textir.OpaqueAttr {
	return textir.OpaqueAttr{Dialect: "fused", Name: ShardPlanAttrName, Params: p.String()}
}
