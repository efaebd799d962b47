package serve

import (
	"context"
	"errors"
	"fmt"

	"github.com/recom-compiler/recom/interp"
	"github.com/recom-compiler/recom/interp/exec"
	"github.com/recom-compiler/recom/runtime/cuda"
	"github.com/recom-compiler/recom/runtime/session"
	"github.com/recom-compiler/recom/textir"
)

// Backend runs the model on one batch: feeds by program tensor name
// (TensorSpec.Name) in, the outputs by name out. Run is called from
// several goroutines at once (the batches in flight). Run must neither
// change feeds (the map or its tensors) nor read them after it returns:
// the batcher reuses a batch's input tensors for a later batch, unless an
// output shares their memory (an output may be a feed).
type Backend interface {
	// Name says what runs the model, for logs and metadata.
	Name() string
	Run(ctx context.Context, feeds map[string]*interp.Tensor) (map[string]*interp.Tensor, error)
	// Close releases the backend once no Run is in progress.
	Close() error
}

// InterpBackend runs the model in the CPU reference interpreter
// (interp/exec), as recom interp does: the server's backend on a machine
// without a GPU.
type InterpBackend struct {
	prog    *exec.Program
	outputs []string
	opts    *exec.Options
}

// NewInterpBackend compiles root (the imported tfg module, or any stage's
// IR the interpreter runs) once for runs fetching outputs with the
// variables and tables of opts.
func NewInterpBackend(root *textir.Operation, outputs []string, opts *exec.Options) (*InterpBackend, error) {
	p, err := exec.Compile(root)
	if err != nil {
		return nil, err
	}
	return &InterpBackend{prog: p, outputs: append([]string(nil), outputs...), opts: opts}, nil
}

// Name implements Backend.
func (b *InterpBackend) Name() string { return "cpu (interpreter)" }

// Run implements Backend.
func (b *InterpBackend) Run(ctx context.Context, feeds map[string]*interp.Tensor) (map[string]*interp.Tensor, error) {
	return b.prog.Run(ctx, feeds, b.outputs, b.opts)
}

// Close implements Backend.
func (b *InterpBackend) Close() error { return nil }

// SessionBackend runs the compiled model in the native GPU runtime
// (runtime/session): each batch one CUDA graph, Options.Slots batches in
// flight.
type SessionBackend struct {
	s    *session.Session
	name string
}

// NewSessionBackend serves through s, which it closes on Close.
func NewSessionBackend(s *session.Session, device string) *SessionBackend {
	return &SessionBackend{s: s, name: "gpu (runtime/session on " + device + ")"}
}

// Name implements Backend.
func (b *SessionBackend) Name() string { return b.name }

// Run implements Backend.
func (b *SessionBackend) Run(ctx context.Context, feeds map[string]*interp.Tensor) (map[string]*interp.Tensor, error) {
	out, err := b.s.Run(feeds)
	var ce *cuda.Error
	if errors.As(err, &ce) {
		return nil, &internalError{fmt.Errorf("the GPU failed: %w", err)}
	}
	return out, err
}

// Close implements Backend.
func (b *SessionBackend) Close() error { return b.s.Close() }

// internalError is a backend failure that is not the request's fault (the
// device failed, a panic): 500 / INTERNAL rather than 400.
type internalError struct{ err error }

func (e *internalError) Error() string { return e.err.Error() }
func (e *internalError) Unwrap() error { return e.err }
