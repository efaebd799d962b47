package gen

import (
	"fmt"
	"strings"

	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
)

// Listing returns a compact listing of a graph, one node a line:
// "name = Op(input, ...)", in graph order. Golden tests compare it.
func Listing(gd *tfpb.GraphDef) string {
	var sb strings.Builder
	for _, n := range gd.GetNode() {
		fmt.Fprintf(&sb, "%s = %s(%s)\n", n.GetName(), n.GetOp(), strings.Join(n.GetInput(), ", "))
	}
	return sb.String()
}
