package compiler

import (
	"fmt"
	"time"

	"github.com/recom-compiler/recom/frontend/graphdef"
	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
)

// inlineCalls replaces the graph's function calls (PartitionedCall,
// StatefulPartitionedCall, calls of library functions by op name) by the
// functions' bodies, so that a TF2 export — one call holding the whole
// model — is cut, checked, run and compiled like any graph.
func inlineCalls(d *driver, name string, g *tfpb.GraphDef) (*tfpb.GraphDef, error) {
	start := time.Now()
	x, err := graphdef.Inline(g)
	if err != nil {
		return nil, fmt.Errorf("%s: inlining function calls: %w", name, err)
	}
	if x != g {
		d.step("inline", start, fmt.Sprintf("%d nodes", len(x.GetNode())))
	}
	return x, nil
}
