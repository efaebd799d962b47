package serve

import (
	"context"
	"strings"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/stats"
)

// overheadStats times ModelInfer calls from their start to their response
// sent (the message's decoding and encoding included, which the
// interceptor does not see) for recom_serve_overhead_seconds.
type overheadStats struct{ s *Server }

// callKey holds a ModelInfer call's *callStat in its context.
type callKey struct{}

// callStat is one call's start and the backend's time on its batch (set
// by ModelInfer).
type callStat struct {
	begin   time.Time
	backend atomic.Int64
}

func (o overheadStats) TagRPC(ctx context.Context, info *stats.RPCTagInfo) context.Context {
	if !strings.HasSuffix(info.FullMethodName, "/ModelInfer") {
		return ctx
	}
	return context.WithValue(ctx, callKey{}, &callStat{})
}

func (o overheadStats) HandleRPC(ctx context.Context, st stats.RPCStats) {
	c, ok := ctx.Value(callKey{}).(*callStat)
	if !ok {
		return
	}
	switch e := st.(type) {
	case *stats.Begin:
		c.begin = e.BeginTime
	case *stats.End:
		if b := time.Duration(c.backend.Load()); b > 0 && e.Error == nil && !c.begin.IsZero() {
			o.s.met.overhead("oip-grpc", e.EndTime.Sub(c.begin)-b)
		}
	}
}

func (o overheadStats) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context { return ctx }
func (o overheadStats) HandleConn(context.Context, stats.ConnStats)                       {}
