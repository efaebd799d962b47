// Package examples holds the bundled model specifications (specs/*.json)
// and the small example model generated from specs/small.json. The specs
// are embedded so that `recom gen --preset NAME` works from any directory.
package examples

import "embed"

// Specs holds specs/*.json.
//
//go:embed specs/*.json
var Specs embed.FS
