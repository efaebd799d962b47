package nccl

import (
	"fmt"

	"github.com/recom-compiler/recom/runtime/cuda"
)

// Sim is a simulated NCCL over a cuda.Sim, for tests without a GPU: a
// clique of ranks (InitAll's devices may repeat: the simulator has one
// device), collectives and point-to-point calls matched as NCCL matches
// them, and their data moved on the simulator's memory by work enqueued
// on the receiving rank's stream (cuda.Sim.Enqueue). With a cuda.Sim that
// runs work when it is enqueued (not Deferred) that is stream order: what
// a sender's stream did before the call is in its buffer.
//
// As with NCCL driven from one thread, a call of a clique of more than one
// rank outside a group is refused (NCCL would wait for the other ranks,
// which this thread has not posted): ncclInvalidUsage.
type Sim struct {
	gpu     *cuda.Sim
	comms   map[uintptr]*simComm
	handles uintptr
	depth   int
	pending []simCall
	// Calls counts the calls by entry point.
	Calls map[string]int
}

type simComm struct {
	rank, count, dev int
	clique           int
}

type simCall struct {
	fn                string
	comm              *simComm
	send, recv, count uint64
	dt                DataType
	op                RedOp
	peer              int
	stream            uintptr
}

// NewSim returns a simulated NCCL over g.
func NewSim(g *cuda.Sim) *Sim {
	return &Sim{gpu: g, comms: map[uintptr]*simComm{}, handles: 0x5000, Calls: map[string]int{}}
}

// Library returns the simulated library (version 2.28.0).
func (s *Sim) Library() (*Library, error) { return newLibrary(s.api(), "simulated") }

var simErrors = map[Result]string{
	Success: "no error", InvalidArgument: "invalid argument", InvalidUsage: "invalid usage", InternalError: "internal error",
}

func (s *Sim) api() *api {
	cliques := 0
	return &api{
		ncclGetVersion:     func(v *int32) Result { *v = 22800; return Success },
		ncclGetErrorString: func(r Result) string { return simErrors[r] },
		ncclGetLastError:   func(uintptr) string { return "" },
		ncclCommInitAll: func(comms *uintptr, n int32, devs *int32) Result {
			s.Calls["ncclCommInitAll"]++
			if n < 1 {
				return InvalidArgument
			}
			out := unsafeSlice(comms, int(n))
			ds := unsafeSlice(devs, int(n))
			cliques++
			for i := range out {
				s.handles++
				out[i] = s.handles
				s.comms[s.handles] = &simComm{rank: i, count: int(n), dev: int(ds[i]), clique: cliques}
			}
			return Success
		},
		ncclCommDestroy: func(c uintptr) Result {
			if s.comms[c] == nil {
				return InvalidArgument
			}
			delete(s.comms, c)
			return Success
		},
		ncclCommCount:    s.info(func(c *simComm) int { return c.count }),
		ncclCommCuDevice: s.info(func(c *simComm) int { return c.dev }),
		ncclCommUserRank: s.info(func(c *simComm) int { return c.rank }),
		ncclAllReduce: func(send, recv, count uint64, dt DataType, op RedOp, comm, st uintptr) Result {
			return s.call(simCall{fn: "ncclAllReduce", send: send, recv: recv, count: count, dt: dt, op: op, stream: st}, comm)
		},
		ncclReduceScatter: func(send, recv, count uint64, dt DataType, op RedOp, comm, st uintptr) Result {
			return s.call(simCall{fn: "ncclReduceScatter", send: send, recv: recv, count: count, dt: dt, op: op, stream: st}, comm)
		},
		ncclAllGather: func(send, recv, count uint64, dt DataType, comm, st uintptr) Result {
			return s.call(simCall{fn: "ncclAllGather", send: send, recv: recv, count: count, dt: dt, stream: st}, comm)
		},
		ncclSend: func(send, count uint64, dt DataType, peer int32, comm, st uintptr) Result {
			return s.call(simCall{fn: "ncclSend", send: send, count: count, dt: dt, peer: int(peer), stream: st}, comm)
		},
		ncclRecv: func(recv, count uint64, dt DataType, peer int32, comm, st uintptr) Result {
			return s.call(simCall{fn: "ncclRecv", recv: recv, count: count, dt: dt, peer: int(peer), stream: st}, comm)
		},
		ncclGroupStart: func() Result { s.Calls["ncclGroupStart"]++; s.depth++; return Success },
		ncclGroupEnd: func() Result {
			s.Calls["ncclGroupEnd"]++
			if s.depth == 0 {
				return InvalidUsage
			}
			s.depth--
			if s.depth > 0 {
				return Success
			}
			calls := s.pending
			s.pending = nil
			return s.run(calls)
		},
	}
}

func (s *Sim) info(f func(*simComm) int) func(uintptr, *int32) Result {
	return func(h uintptr, v *int32) Result {
		c := s.comms[h]
		if c == nil {
			return InvalidArgument
		}
		*v = int32(f(c))
		return Success
	}
}

func (s *Sim) call(c simCall, h uintptr) Result {
	s.Calls[c.fn]++
	c.comm = s.comms[h]
	if c.comm == nil || c.dt.Size() == 0 {
		return InvalidArgument
	}
	if s.depth == 0 {
		if c.comm.count > 1 {
			return InvalidUsage
		}
		return s.run([]simCall{c})
	}
	s.pending = append(s.pending, c)
	return Success
}

// run matches a group's calls and enqueues their data movement: the k-th
// collective of a kind of each rank of a clique is one collective; a
// send and a receive match by (sender, receiver) in order.
func (s *Sim) run(calls []simCall) Result {
	type key struct {
		fn     string
		clique int
	}
	colls := map[key][][]simCall{} // by kind and clique: the k-th call of each rank
	nth := map[[3]int]int{}        // (clique, rank, kind) → calls so far
	kinds := map[string]int{"ncclAllReduce": 0, "ncclReduceScatter": 1, "ncclAllGather": 2}
	type pair struct{ clique, from, to int }
	sends, recvs := map[pair][]simCall{}, map[pair][]simCall{}
	for _, c := range calls {
		switch c.fn {
		case "ncclSend":
			p := pair{c.comm.clique, c.comm.rank, c.peer}
			sends[p] = append(sends[p], c)
		case "ncclRecv":
			p := pair{c.comm.clique, c.peer, c.comm.rank}
			recvs[p] = append(recvs[p], c)
		default:
			k := key{c.fn, c.comm.clique}
			i := nth[[3]int{c.comm.clique, c.comm.rank, kinds[c.fn]}]
			nth[[3]int{c.comm.clique, c.comm.rank, kinds[c.fn]}]++
			for len(colls[k]) <= i {
				colls[k] = append(colls[k], nil)
			}
			colls[k][i] = append(colls[k][i], c)
		}
	}
	for p, ss := range sends {
		rs := recvs[p]
		if len(rs) != len(ss) {
			return InvalidUsage
		}
		for i := range ss {
			if ss[i].count != rs[i].count || ss[i].dt != rs[i].dt {
				return InvalidArgument
			}
			n := ss[i].count * uint64(ss[i].dt.Size())
			snap, r := s.snapshot(ss[i].stream, ss[i].send, n)
			if r != Success {
				return r
			}
			dst, from := rs[i].recv, ss[i].stream
			if r := s.enqueue(rs[i].stream, func(g *cuda.Sim) error {
				data, err := snap.wait(g, from)
				if err != nil {
					return err
				}
				b := g.Memory(dst)
				if uint64(len(b)) < n {
					return fmt.Errorf("nccl sim: a receive buffer is shorter than %d bytes", n)
				}
				copy(b[:n], data)
				return nil
			}); r != Success {
				return r
			}
		}
		delete(recvs, p)
	}
	if len(recvs) > 0 {
		return InvalidUsage
	}
	for _, groups := range colls {
		for _, g := range groups {
			if r := s.collective(g); r != Success {
				return r
			}
		}
	}
	return Success
}

// collective moves the data of one collective: float32 sums (what the
// layer uses); other types and operations are InvalidArgument.
func (s *Sim) collective(cs []simCall) Result {
	n := cs[0].comm.count
	if len(cs) != n {
		return InvalidUsage
	}
	byRank := make([]simCall, n)
	for _, c := range cs {
		if c.count != cs[0].count || c.dt != Float32 || (c.fn != "ncclAllGather" && c.op != Sum) {
			return InvalidArgument
		}
		byRank[c.comm.rank] = c
	}
	cnt := cs[0].count
	snaps := make([]*simSnap, n)
	for q := range n {
		size := cnt
		if byRank[q].fn == "ncclReduceScatter" {
			size = cnt * uint64(n)
		}
		var r Result
		if snaps[q], r = s.snapshot(byRank[q].stream, byRank[q].send, 4*size); r != Success {
			return r
		}
	}
	// The collective runs on the last rank's stream, once every rank's
	// send buffer is taken, and writes every rank's receive buffer.
	return s.enqueue(byRank[n-1].stream, func(g *cuda.Sim) error {
		in := make([][]float32, n)
		for q := range n {
			data, err := snaps[q].wait(g, byRank[q].stream)
			if err != nil {
				return err
			}
			in[q] = f32s(data)
		}
		for q := range n {
			out := g.Memory(byRank[q].recv)
			need := cnt
			if byRank[q].fn == "ncclAllGather" {
				need = cnt * uint64(n)
			}
			if uint64(len(out)) < 4*need {
				return fmt.Errorf("nccl sim: rank %d's receive buffer is shorter than %d floats", q, need)
			}
			for j := range need {
				var acc float32
				switch byRank[q].fn {
				case "ncclAllReduce":
					for _, x := range in {
						acc += x[j]
					}
				case "ncclReduceScatter":
					for _, x := range in {
						acc += x[uint64(q)*cnt+j]
					}
				case "ncclAllGather":
					acc = in[j/cnt][j%cnt]
				}
				putF32(out, j, acc)
			}
		}
		return nil
	})
}

// simSnap is a send buffer's bytes as its stream had them at the call.
type simSnap struct {
	done bool
	data []byte
	err  error
}

// snapshot enqueues on stream st the copy of n bytes at addr, taken when
// the stream reaches the call.
func (s *Sim) snapshot(st uintptr, addr, n uint64) (*simSnap, Result) {
	sn := &simSnap{}
	r := s.enqueue(st, func(g *cuda.Sim) error {
		b := g.Memory(addr)
		sn.done = true
		if uint64(len(b)) < n {
			sn.err = fmt.Errorf("nccl sim: a send buffer is shorter than %d bytes", n)
			return sn.err
		}
		sn.data = append([]byte(nil), b[:n]...)
		return nil
	})
	return sn, r
}

// wait runs the sender's stream up to the snapshot (Deferred streams) and
// returns its bytes.
func (sn *simSnap) wait(g *cuda.Sim, from uintptr) ([]byte, error) {
	g.RunUntil(from, func() bool { return sn.done })
	if !sn.done {
		return nil, fmt.Errorf("nccl sim: the sender's stream never reached its send")
	}
	return sn.data, sn.err
}

func (s *Sim) enqueue(st uintptr, f func(g *cuda.Sim) error) Result {
	err := s.gpu.Enqueue(st, func(g *cuda.Sim) {
		if err := f(g); err != nil {
			g.Fault(err)
		}
	})
	if err != nil {
		return InvalidArgument
	}
	return Success
}
