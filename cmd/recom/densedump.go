package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/npz"
	"github.com/recom-compiler/recom/runtime/session"
)

// dumpDense writes, beside --dump-inputs' layer dump, the session's plan
// after its layer (session.DensePlan) for the whole-model peers
// (bench/peers.py): dense.json, the weights and constants as
// dense_w_I.npy, dense_b_I.npy and dense_c_J_K.npy (host step J's operand
// K), and for each of the first sets feed sets (the layer dump's sets:
// the same seeds) the dense inputs from the feeds (dense_in_NAME_S.npy)
// and the session's outputs (dense_out_K_S.npy, in dense.json's
// output_names order). A dense input the session computes on the host
// before the graph (a numeric column's ExpandDims of its feed) is written
// the same way, as eval (the interpreter on the compiled program) computes
// its node, and marked "computed" in dense.json: the peers take it as
// given, as they take the feeds.
func dumpDense(dir string, s *session.Session, feeds []map[string]*interp.Tensor, sets int,
	eval func(feeds map[string]*interp.Tensor, nodes []string) (map[string]*interp.Tensor, error)) error {
	dp, err := s.DensePlan()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	write := func(name string, t *interp.Tensor) error {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		if err := npz.WriteNPY(f, t); err != nil {
			f.Close()
			return fmt.Errorf("%s: %w", f.Name(), err)
		}
		return f.Close()
	}
	for i := range dp.Dense {
		d := &dp.Dense[i]
		d.WeightFile = fmt.Sprintf("dense_w_%d.npy", i)
		if err := write(d.WeightFile, d.Weight); err != nil {
			return err
		}
		if d.Bias != nil {
			d.BiasFile = fmt.Sprintf("dense_b_%d.npy", i)
			if err := write(d.BiasFile, d.Bias); err != nil {
				return err
			}
		}
	}
	for j := range dp.Host {
		for k := range dp.Host[j].Inputs {
			r := &dp.Host[j].Inputs[k]
			if r.Kind != "const" {
				continue
			}
			r.Name = fmt.Sprintf("dense_c_%d_%d", j, k)
			if err := write(r.Name+".npy", r.Const); err != nil {
				return err
			}
		}
	}
	var nodes []string
	for i := range dp.Inputs {
		if in := &dp.Inputs[i]; in.Feed == "" && in.Node != "" && eval != nil {
			in.Computed = true
			nodes = append(nodes, in.Node)
		}
	}
	sets = min(sets, len(feeds))
	for i := range sets {
		var computed map[string]*interp.Tensor
		if len(nodes) > 0 {
			var err error
			if computed, err = eval(feeds[i], nodes); err != nil {
				return fmt.Errorf("dump: set %d: the dense inputs computed on the host: %w", i, err)
			}
		}
		for _, in := range dp.Inputs {
			var t *interp.Tensor
			switch {
			case in.Feed != "":
				t = feeds[i][in.Feed]
			case in.Computed:
				t = computed[in.Node]
			default:
				continue
			}
			if t == nil {
				return fmt.Errorf("dump: set %d: dense input %s (feed %q, node %q) has no value", i, in.Name, in.Feed, in.Node)
			}
			if err := write(fmt.Sprintf("dense_in_%s_%d.npy", in.Name, i), t); err != nil {
				return err
			}
		}
		out, err := s.Run(feeds[i])
		if err != nil {
			return fmt.Errorf("dump: set %d: %w", i, err)
		}
		for k, n := range dp.Names {
			t := out[n]
			if t == nil {
				return fmt.Errorf("dump: set %d: output %q missing", i, n)
			}
			if err := write(fmt.Sprintf("dense_out_%d_%d.npy", k, i), t); err != nil {
				return err
			}
		}
	}
	doc := struct {
		*session.DensePlan
		Sets int `json:"sets"`
	}{dp, sets}
	b, err := json.MarshalIndent(doc, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "dense.json"), b, 0o644)
}
