package shard

import (
	"strings"
	"testing"

	"github.com/recom-compiler/recom/dialects/fused/abi"
)

// layer makes a layer of columns with the given table rows (width 4, so
// 16 bytes a row) and expected ids per bag; tables[i] < 0 shares the
// table of column -tables[i]-1.
func layer(rows []int64, pooling []float64, shares map[int]int) *abi.Layer {
	l := &abi.Layer{}
	var off int64
	for i, r := range rows {
		c := abi.Column{Name: string(rune('a' + i)), Kind: abi.KindLookup, Rows: r, Width: 4, Pooling: pooling[i]}
		if j, ok := shares[i]; ok {
			c.TableOffset = l.Columns[j].TableOffset
		} else {
			c.TableOffset = off
			off += (r*4 + 63) / 64 * 64
		}
		l.Columns = append(l.Columns, c)
	}
	return l
}

func TestPlanTableWiseBalance(t *testing.T) {
	// Four equal tables, one looked up eight times as often: it gets a
	// device of its own, the others share the second (bytes 3:1, but
	// lookups 8:3).
	l := layer([]int64{100, 100, 100, 100}, []float64{8, 1, 1, 1}, nil)
	p, loads, err := Plan(l, PlanOptions{Devices: 2, RowThreshold: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.String(); got != "devices = 2, dense = 0, columns = [0, 1, 1, 1]" {
		t.Errorf("plan %s", got)
	}
	if loads[0].Bytes != 1600 || loads[1].Bytes != 4800 || loads[0].Lookups != 8 || loads[1].Lookups != 3 {
		t.Errorf("loads %+v", loads)
	}
	// Equal tables and lookups: two each.
	l = layer([]int64{100, 100, 100, 100}, []float64{1, 1, 1, 1}, nil)
	p, _, _ = Plan(l, PlanOptions{Devices: 2, RowThreshold: 1 << 20})
	if got := p.String(); got != "devices = 2, dense = 0, columns = [0, 1, 0, 1]" {
		t.Errorf("plan %s", got)
	}
}

func TestPlanRowWise(t *testing.T) {
	// The 1000-row table (16000 bytes) is over the threshold: a range on
	// each of the three devices; columns 1 and 2 share a table.
	l := layer([]int64{1000, 10, 10, 10}, []float64{4, 1, 1, 1}, map[int]int{2: 1})
	p, loads, err := Plan(l, PlanOptions{Devices: 3, Dense: 2, RowThreshold: 1000})
	if err != nil {
		t.Fatal(err)
	}
	want := "devices = 3, dense = 2, columns = [rows(0:333@0, 333:666@1, 666:1000@2), 0, 0, 1]"
	if got := p.String(); got != want {
		t.Errorf("plan %s, want %s", got, want)
	}
	if err := p.CheckLayer(l); err != nil {
		t.Error(err)
	}
	if loads[2].Bytes != 334*16 || loads[0].Tables != 2 {
		t.Errorf("loads %+v", loads)
	}
	// A table of fewer rows than devices: a range per row.
	l = layer([]int64{2}, []float64{1}, nil)
	if p, _, _ = Plan(l, PlanOptions{Devices: 4}); p.String() != "devices = 4, dense = 0, columns = [rows(0:1@0, 1:2@1)]" {
		t.Errorf("plan %s", p)
	}
}

func TestPlanRefusals(t *testing.T) {
	l := layer([]int64{1000, 10}, []float64{1, 1}, nil)
	for _, c := range []struct {
		o   PlanOptions
		msg string
	}{
		{PlanOptions{Devices: 2, RowThreshold: 1 << 20, DeviceBytes: 10000}, "puts 16000 bytes of tables on device 0, more than device-bytes = 10000"},
		{PlanOptions{Devices: 0}, "devices must be in [1, 64], got 0"},
		{PlanOptions{Devices: 65}, "devices must be in [1, 64], got 65"},
		{PlanOptions{Devices: 2, Dense: 2}, "dense-device must be in [0, 2)"},
		{PlanOptions{Devices: 2, RowThreshold: -1}, "row-threshold must not be negative"},
		{PlanOptions{Devices: 2, DeviceBytes: -1}, "device-bytes must not be negative"},
	} {
		if _, _, err := Plan(l, c.o); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%+v: got %v, want %q", c.o, err, c.msg)
		}
	}
	// Row-wise, it fits.
	if _, _, err := Plan(l, PlanOptions{Devices: 2, RowThreshold: 1000, DeviceBytes: 10000}); err != nil {
		t.Error(err)
	}
}
