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
// interceptor does not see) for recom_serve_overhead_seconds, and their
// stages for recom_serve_overhead_stage_seconds: read (from the call's
// start to the handler's: the message received and unmarshaled), decode
// (the inputs checked), queue, join, split (Batcher's runTime) and
// respond (the response built, marshaled and sent).
type overheadStats struct{ s *Server }

// callKey holds a ModelInfer call's *callStat in its context.
type callKey struct{}

// callStat is one call's start and, once ModelInfer ran it, where its
// time went.
type callStat struct {
	begin time.Time
	times atomic.Pointer[callTimes]
}

// callTimes are when a call's stages ended (markStage's stages: the
// handler's start, the inputs decoded, the run returned) and its
// runTime.
type callTimes struct {
	marks [numStages]time.Time
	rt    runTime
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
		if tm := c.times.Load(); tm != nil && tm.rt.backend > 0 && e.Error == nil && !c.begin.IsZero() {
			o.s.met.overhead("oip-grpc", e.EndTime.Sub(c.begin)-tm.rt.backend)
			o.s.met.stages("oip-grpc", c.begin, tm.marks, e.EndTime, tm.rt)
		}
	}
}

func (o overheadStats) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context { return ctx }
func (o overheadStats) HandleConn(context.Context, stats.ConnStats)                       {}
