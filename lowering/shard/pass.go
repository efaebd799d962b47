// Package shard is the sharding of the embedding layer over several GPUs
// of one host: the --shard-plan pass (where each table lives) and the
// --shard pass (a program per device and the exchange between them), run
// after --fuse on its fused.embedding_layer ops.
//
// The plan (Plan) places every table of more than row-threshold bytes
// row-wise — its rows cut into one range per device — and every other
// table whole on one device (table-wise), balancing the devices' table
// bytes and lookups per batch row. --shard-plan writes it on the layer as
// a #fused.shard_plan<...> attribute (dialects/fused/abi/shardplan.go),
// which a user may also write or edit by hand.
//
// --shard (Split) rewrites each layer by its plan (made with its options
// when the layer has none): the ids of each row-wise column go through a
// fused.route (on the host: each id to the range that holds its row,
// rebased), each device gets a fused.embedding_layer of its tables and
// ranges (device = d) with a kernel of its own, built by --fuse's kernel
// builder from the columns' schedules (embtogpu.Relayout, BuildKernel),
// and a fused.exchange gathers the devices' partial outputs on the dense
// device, sums each row-wise column's partial rows and divides mean and
// sqrtn columns by their bags' denominators, with one combine kernel.
// dialects/fused/shard.go and abi/{route,exchange}.go give the ops'
// meaning; the interpreter runs every kernel in the simulator, so the
// sharded program is checked against the unsharded one on the CPU.
package shard

import (
	"fmt"
	"strings"

	"github.com/recom-compiler/recom/dialects/fused"
	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/lowering/pass"
	"github.com/recom-compiler/recom/textir"
)

// The passes' flags.
const (
	PlanFlag = "shard-plan"
	Flag     = "shard"
)

// DefaultRowThreshold is the row-threshold option's default: tables over
// 1 GiB are cut into row ranges.
const DefaultRowThreshold = 1 << 30

// options are the options both passes take.
var options = []pass.OptDecl{
	{Name: "devices", Kind: pass.IntOption, Default: 1,
		Help: fmt.Sprintf("GPUs of the host to spread the tables over, 1 to %d (1: no sharding)", abi.MaxShardDevices)},
	{Name: "dense-device", Kind: pass.IntOption, Default: 0,
		Help: "The device that runs the dense part, where the layer's output is assembled"},
	{Name: "row-threshold", Kind: pass.IntOption, Default: DefaultRowThreshold,
		Help: "Tables of more bytes are cut into a row range per device (row-wise); the others go whole to one device (table-wise)"},
	{Name: "device-bytes", Kind: pass.IntOption, Default: 0,
		Help: "Table bytes a device can hold: a plan that puts more on one is refused (0: unchecked)"},
}

func planOptionsFrom(o *pass.Options) PlanOptions {
	return PlanOptions{Devices: int64(o.Int("devices")), Dense: int64(o.Int("dense-device")),
		RowThreshold: int64(o.Int("row-threshold")), DeviceBytes: int64(o.Int("device-bytes"))}
}

// PlanDecl declares --shard-plan.
var PlanDecl = pass.Decl{
	Flag:    PlanFlag,
	Name:    "ShardPlan",
	Summary: "Plan where each table of an embedding layer lives on several GPUs (a #fused.shard_plan attribute on the layer)",
	Anchor:  "builtin.module",
	Options: options,
	Statistics: []pass.StatDecl{
		{Name: "layers", Help: "Layers given a plan"},
		{Name: "table-wise", Help: "Columns whose table goes whole to one device"},
		{Name: "row-wise", Help: "Columns whose table is cut into row ranges"},
	},
	New: func(o *pass.Options) pass.Runner { return &planPass{opts: planOptionsFrom(o)} },
}

// Decl declares --shard.
var Decl = pass.Decl{
	Flag:    Flag,
	Name:    "Shard",
	Summary: "Shard embedding layers over several GPUs by their plans (made with the options where a layer has none): a layer per device and an exchange",
	Anchor:  "builtin.module",
	Options: options,
	Statistics: []pass.StatDecl{
		{Name: "layers", Help: "Layers sharded"},
		{Name: "device-layers", Help: "Layers of one device made"},
		{Name: "table-wise", Help: "Columns whose table goes whole to one device"},
		{Name: "row-wise", Help: "Columns whose table is cut into row ranges"},
		{Name: "row-ranges", Help: "Row ranges of the row-wise tables"},
	},
	New: func(o *pass.Options) pass.Runner { return &shardPass{opts: planOptionsFrom(o)} },
}

// unshardedLayers returns the fused.embedding_layer ops under root that
// are not a device's layer.
func unshardedLayers(root *textir.Operation) []*textir.Operation {
	var out []*textir.Operation
	root.Walk(func(op *textir.Operation) bool {
		if op.Name() == fused.EmbeddingLayerOp && op.LookupAttr(fused.DeviceAttr) == nil {
			out = append(out, op)
		}
		return true
	})
	return out
}

// planLayer makes the plan of op with o, and remarks on the loads.
func planLayer(op *textir.Operation, l *abi.Layer, o PlanOptions, emit func(*textir.Diagnostic)) (*abi.ShardPlan, error) {
	p, loads, err := Plan(l, o)
	if err != nil {
		return nil, op.Errorf("%v", err)
	}
	var sb strings.Builder
	for d, ld := range loads {
		if d > 0 {
			sb.WriteString("; ")
		}
		fmt.Fprintf(&sb, "device %d: %d tables and row ranges, %d bytes, %.4g lookups per row", d, ld.Tables, ld.Bytes, ld.Lookups)
	}
	emit(op.Remarkf("shard plan over %d devices: %s", o.Devices, sb.String()))
	return p, nil
}

type planPass struct{ opts PlanOptions }

func (p *planPass) Run(root *textir.Operation, st *pass.State) error {
	if err := p.opts.check(); err != nil {
		return err
	}
	layers, tw, rw := st.Stat("layers", ""), st.Stat("table-wise", ""), st.Stat("row-wise", "")
	changed := false
	for _, op := range unshardedLayers(root) {
		if p.opts.Devices == 1 || op.LookupAttr(fused.ShardPlanAttr) != nil {
			continue
		}
		l, err := abi.LayerOf(op)
		if err != nil {
			return err
		}
		plan, err := planLayer(op, l, p.opts, st.Emit)
		if err != nil {
			return err
		}
		op.SetAttr(fused.ShardPlanAttr, plan.Attr())
		layers.Add(1)
		for i := range plan.Columns {
			if plan.Columns[i].RowWise() {
				rw.Add(1)
			} else {
				tw.Add(1)
			}
		}
		changed = true
	}
	if !changed {
		st.MarkUnchanged()
	}
	return nil
}

type shardPass struct{ opts PlanOptions }

func (p *shardPass) Run(root *textir.Operation, st *pass.State) error {
	if err := p.opts.check(); err != nil {
		return err
	}
	layers, devLayers := st.Stat("layers", ""), st.Stat("device-layers", "")
	tw, rw, ranges := st.Stat("table-wise", ""), st.Stat("row-wise", ""), st.Stat("row-ranges", "")
	changed := false
	for _, op := range unshardedLayers(root) {
		l, err := abi.LayerOf(op)
		if err != nil {
			return err
		}
		plan, err := abi.ShardPlanOf(op.LookupAttr(fused.ShardPlanAttr), l)
		if err != nil {
			return op.Errorf("%v", err)
		}
		if plan == nil {
			if p.opts.Devices == 1 {
				continue
			}
			if plan, err = planLayer(op, l, p.opts, st.Emit); err != nil {
				return err
			}
		}
		var n Counts
		if _, err := Split(st.Context(), op, l, plan, &n); err != nil {
			return err
		}
		layers.Add(1)
		devLayers.Add(n.Layers)
		tw.Add(n.TableWise)
		rw.Add(n.RowWise)
		ranges.Add(n.Pieces)
		changed = true
	}
	if !changed {
		st.MarkUnchanged()
	}
	return nil
}
