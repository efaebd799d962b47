package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/recom-compiler/recom/backend/llc/llctest"
	"github.com/recom-compiler/recom/runtime/cuda"
	"github.com/recom-compiler/recom/runtime/simgpu"
	"github.com/recom-compiler/recom/textir"
)

// simShards makes recom run --shard and recom bench --shard open a
// simulated GPU that runs the sharded program's kernels (per-device layers
// and the combine kernel) in the gpu dialect's simulator.
func simShards(t *testing.T) {
	t.Helper()
	old := shardDriver
	shardDriver = func(module *textir.Operation) (*cuda.Driver, error) {
		sim := cuda.NewSim()
		sim.Deferred = true // a missing order between the shards' streams shows
		if err := simgpu.Register(sim, module); err != nil {
			return nil, err
		}
		return sim.Driver()
	}
	t.Cleanup(func() { shardDriver = old })
}

// recom run --shard N: the layer split over N devices (table-wise and
// row-wise), run as N streams of one GPU, writes the layer's output, which
// --check finds equal to the interpreter's on the imported model; recom
// bench --shard times it.
func TestRunSharded(t *testing.T) {
	llctest.Need(t)
	simShards(t)
	dir := t.TempDir()
	feeds := filepath.Join(dir, "feeds.npz")
	if status, _, stderr := runTool("gen", "--feeds", "--batch", "19", compileSmallModel, "-o", feeds); status != 0 {
		t.Fatalf("gen --feeds: %s", stderr)
	}
	for _, c := range []struct{ devices, options string }{
		{"1", ""},
		{"2", "row-threshold=0"},
		{"3", "row-threshold=4096"},
	} {
		out := filepath.Join(dir, "out-"+c.devices+".npz")
		status, stdout, stderr := runTool("run", compileSmallModel, "--shard", c.devices, "--shard-options", c.options,
			"--feeds", feeds, "-o", out, "--check")
		if status != 0 || !strings.Contains(stdout, "check: PASS") {
			t.Fatalf("--shard %s %s: status %d\n%s%s", c.devices, c.options, status, stdout, stderr)
		}
		if !strings.Contains(stderr, "the layer in "+c.devices+" shards") {
			t.Errorf("--shard %s: %s", c.devices, stderr)
		}
		got, err := readFeeds(out)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := got["input_layer/concat"]; !ok || len(got) != 1 {
			t.Errorf("--shard %s wrote %v, want the layer's output input_layer/concat", c.devices, e2eSortedKeys(got))
		}
	}
	status, stdout, stderr := runTool("bench", compileSmallModel, "--shard", "2", "--shard-options", "row-threshold=0",
		"--batch", "8", "--sets", "2", "--iters", "3", "--warmup", "1")
	if status != 0 || !strings.Contains(stdout, "SHARD devices=2 mode=streams batch=8 iters=3 median_us=") {
		t.Fatalf("bench --shard 2: status %d\n%s%s", status, stdout, stderr)
	}
}

// Bad --shard flags are errors naming the flag, before anything runs.
func TestShardFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--shard", "65"}, "--shard must be 1 to 64 devices, got 65"},
		{[]string{"--shard", "-1"}, "--shard must be 1 to 64 devices, got -1"},
		{[]string{"--shard", "2", "--shard-mode", "pigeons"}, `--shard-mode must be streams or nccl, got "pigeons"`},
		{[]string{"--shard", "2", "--shard-options", "devices=3"}, `--shard-options: give the number of devices with --shard, not "devices=3"`},
		{[]string{"--shard", "2", "--shard-options", "no-such=1"}, "--shard-options"},
	} {
		for _, tool := range []string{"run", "bench"} {
			args := append([]string{tool, compileSmallModel}, c.args...)
			if tool == "run" {
				args = append(args, "-o", filepath.Join(t.TempDir(), "o.npz"))
			}
			status, _, stderr := runTool(args...)
			if status == 0 || !strings.Contains(stderr, c.want) {
				t.Errorf("%s %v: status %d, %q; want %q", tool, c.args, status, stderr, c.want)
			}
		}
	}
}
