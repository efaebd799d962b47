package hostpack_test

import (
	"github.com/recom-compiler/recom/runtime/hostpack"
	"github.com/recom-compiler/recom/runtime/session"
)

// A plan is a native runtime session's packer as it is: a PackerFactory
// returns hostpack.New's plan (falling back to session.InterpPacker on an
// *UnsupportedError). The build of this file fails when either side's
// API drifts.
var _ session.Packer = (*hostpack.Plan)(nil)

var _ session.PackerFactory = func(l *session.LayerInfo) (session.Packer, error) {
	p, err := hostpack.New(l.Op, nil)
	if hostpack.IsUnsupported(err) {
		return session.InterpPacker(l)
	}
	return p, err
}
