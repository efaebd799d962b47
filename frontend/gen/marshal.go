package gen

import (
	"bytes"
	"io"
	"runtime"
	"sort"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/recom-compiler/recom/frontend/graphdef/tfpb"
)

// MarshalGraph returns the binary protobuf of a graph, byte for byte what
// proto.MarshalOptions{Deterministic: true}.Marshal writes (see WriteGraph).
func MarshalGraph(gd *tfpb.GraphDef) ([]byte, error) {
	var buf bytes.Buffer
	if err := WriteGraph(&buf, gd); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteGraph writes the binary protobuf of a graph to w, byte for byte
// what proto.MarshalOptions{Deterministic: true}.Marshal writes, faster on
// generated graphs: NodeDefs are encoded directly (attrs sorted by name),
// the encoding of each shared AttrValue is computed once however many
// nodes use it, runs of nodes are encoded on all CPUs into reused buffers
// and written in order, and nothing of the size of the graph is allocated.
func WriteGraph(w io.Writer, gd *tfpb.GraphDef) error {
	det := proto.MarshalOptions{Deterministic: true}
	nodes := gd.GetNode()
	const run = 4096 // nodes per job
	jobs := (len(nodes) + run - 1) / run
	nw := min(runtime.GOMAXPROCS(0), jobs)
	type result struct {
		buf []byte
		err error
	}
	// Job j's result arrives on done[j]; at most 2·nw jobs are ahead of
	// the writer, so at most that many buffers exist.
	done := make([]chan result, jobs)
	for j := range done {
		done[j] = make(chan result, 1)
	}
	free := make(chan []byte, 2*nw)
	for range 2 * nw {
		free <- nil
	}
	next := make(chan int)
	quit := make(chan struct{})
	defer close(quit)
	go func() {
		defer close(next)
		for j := range jobs {
			select {
			case next <- j:
			case <-quit:
				return
			}
		}
	}()
	for range nw {
		go func() {
			e := nodeEncoder{det: det, attrs: map[*tfpb.AttrValue][]byte{}}
			for {
				// A buffer first, then a job: the job the writer waits
				// for always has its buffer.
				var buf []byte
				select {
				case buf = <-free:
				case <-quit:
					return
				}
				j, ok := <-next
				if !ok {
					return
				}
				buf = buf[:0]
				var err error
				for _, n := range nodes[j*run : min((j+1)*run, len(nodes))] {
					if buf, err = e.appendNode(buf, n); err != nil {
						break
					}
				}
				done[j] <- result{buf, err}
			}
		}()
	}
	for j := range jobs {
		r := <-done[j]
		if r.err != nil {
			return r.err
		}
		if _, err := w.Write(r.buf); err != nil {
			return err
		}
		free <- r.buf
	}
	// Fields after node (1) in field order: the rest of the graph alone.
	//lint:ignore SA1019 field 3 (version) is part of TensorFlow's wire format; the GraphDef is written whole
	rest, err := det.Marshal(&tfpb.GraphDef{Library: gd.Library, Version: gd.Version, Versions: gd.Versions, DebugInfo: gd.DebugInfo})
	if err != nil {
		return err
	}
	_, err = w.Write(rest)
	return err
}

// nodeEncoder encodes NodeDefs as GraphDef.node entries.
type nodeEncoder struct {
	det   proto.MarshalOptions
	attrs map[*tfpb.AttrValue][]byte // encodings of shared values
	keys  []string
	body  []byte
}

// appendNode appends field 1 of GraphDef (one node) to b.
func (e *nodeEncoder) appendNode(b []byte, n *tfpb.NodeDef) ([]byte, error) {
	if n.ExperimentalDebugInfo != nil || n.ExperimentalType != nil || len(n.ProtoReflect().GetUnknown()) > 0 {
		m, err := e.det.Marshal(n)
		if err != nil {
			return nil, err
		}
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		return protowire.AppendBytes(b, m), nil
	}
	body := e.body[:0]
	if n.Name != "" {
		body = protowire.AppendTag(body, 1, protowire.BytesType)
		body = protowire.AppendString(body, n.Name)
	}
	if n.Op != "" {
		body = protowire.AppendTag(body, 2, protowire.BytesType)
		body = protowire.AppendString(body, n.Op)
	}
	for _, in := range n.Input {
		body = protowire.AppendTag(body, 3, protowire.BytesType)
		body = protowire.AppendString(body, in)
	}
	if n.Device != "" {
		body = protowire.AppendTag(body, 4, protowire.BytesType)
		body = protowire.AppendString(body, n.Device)
	}
	keys := e.keys[:0]
	for k := range n.Attr {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := n.Attr[k]
		vb, ok := e.attrs[v]
		if !ok {
			var err error
			if vb, err = e.det.Marshal(v); err != nil {
				return nil, err
			}
			if sharable(v) {
				e.attrs[v] = vb
			}
		}
		// A map entry: key (1) and value (2), both always written.
		entry := protowire.SizeTag(1) + protowire.SizeBytes(len(k)) + protowire.SizeTag(2) + protowire.SizeBytes(len(vb))
		body = protowire.AppendTag(body, 5, protowire.BytesType)
		body = protowire.AppendVarint(body, uint64(entry))
		body = protowire.AppendTag(body, 1, protowire.BytesType)
		body = protowire.AppendString(body, k)
		body = protowire.AppendTag(body, 2, protowire.BytesType)
		body = protowire.AppendBytes(body, vb)
	}
	e.keys, e.body = keys, body
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	return protowire.AppendBytes(b, body), nil
}

// sharable reports whether v is of a kind the builder shares between nodes
// (types, bools, ints, small int32 constants), worth remembering.
func sharable(v *tfpb.AttrValue) bool {
	switch x := v.GetValue().(type) {
	case *tfpb.AttrValue_Type, *tfpb.AttrValue_B, *tfpb.AttrValue_I:
		return true
	case *tfpb.AttrValue_Tensor:
		t := x.Tensor
		return t.GetDtype() == dtInt32 && len(t.GetTensorContent()) <= 16 && len(t.GetIntVal()) <= 1
	}
	return false
}
