package all_test

import (
	"reflect"
	"testing"

	"github.com/recom-compiler/recom/dialects/fused/abi"
	"github.com/recom-compiler/recom/lowering/all"
	"github.com/recom-compiler/recom/lowering/densetogpu"
	"github.com/recom-compiler/recom/lowering/embtogpu"
	"github.com/recom-compiler/recom/lowering/pass"
)

func TestRegister(t *testing.T) {
	all.Register()
	all.Register() // a second call does nothing (a second pass.Register would panic)
	decls := all.Decls()
	want := []string{"canonicalize", "cse", "symbol-dce", "lower-emb", "simplify-shapes", "fuse", "fold-bn", "fuse-dense", "shard-plan", "shard"}
	var flags []string
	for _, d := range decls {
		flags = append(flags, d.Flag)
	}
	if !reflect.DeepEqual(flags, want) {
		t.Errorf("Decls() = %v, want %v", flags, want)
	}
	if got := len(pass.Registered()); got != len(decls) {
		t.Errorf("%d passes registered, want %d", got, len(decls))
	}
	for _, d := range decls {
		if got, ok := pass.Lookup(d.Flag); !ok || got != d {
			t.Errorf("Lookup(%q) = %p, %v; want the Decl %p", d.Flag, got, ok, d)
		}
		// Making the pass with its defaults checks that New reads every
		// declared option, and with the wrong kind or an undeclared
		// name panics.
		p, err := pass.NewPass(d.Flag, "")
		if err != nil {
			t.Errorf("%s: %v", d.Flag, err)
			continue
		}
		if p.Decl() != d || p.Options().Format() != d.Defaults().Format() {
			t.Errorf("%s: made %v with options %s", d.Flag, p.Decl(), p.Options().Format())
		}
	}
}

// The typed defaults of the lowerings are their Decls' defaults.
func TestDefaultOptions(t *testing.T) {
	fuse := embtogpu.Options{Schedule: abi.ScheduleTuned, MaxThreads: 256, RowsInFlight: 4, DefaultPooling: 8,
		TaskBytes: 4096, L2Bytes: 1 << 20, InKernelIDs: true, MinTasks: embtogpu.DefaultMinTasks, MinBlocks: 3, IDPass: "all"}
	if got := embtogpu.DefaultOptions(); !reflect.DeepEqual(got, fuse) {
		t.Errorf("embtogpu.DefaultOptions() = %+v\nwant %+v", got, fuse)
	}
	dense := densetogpu.Options{Accumulate: abi.AccF64, SplitK: "auto"}
	if got := densetogpu.DefaultOptions(); !reflect.DeepEqual(got, dense) {
		t.Errorf("densetogpu.DefaultOptions() = %+v\nwant %+v", got, dense)
	}
}
