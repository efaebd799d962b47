package serve

import (
	"fmt"
	"strings"

	"github.com/recom-compiler/recom/interp"
)

// TensorFlow Serving's REST predict request (tensorflow_serving's
// api_rest.md): {"signature_name": ..., "instances": [...]} (the row
// format: one element per row, an object of the inputs by name, or the
// value itself when the signature has one input) or {"inputs": ...} (the
// columnar format: an object of whole tensors by name, or the tensor
// itself for one input). Values are nested lists; strings may be
// {"b64": "..."} (serialized tf.Example records among them).

// predictRequest is a decoded :predict body.
type predictRequest struct {
	signature string
	columnar  bool
	feeds     []*interp.Tensor // by Signature.Inputs
}

// decodePredict reads a :predict body against sig.
func decodePredict(body []byte, sig *Signature) (*predictRequest, error) {
	s := &scanner{buf: body}
	req := &predictRequest{}
	var instances, inputs []byte
	instAt, inAt := 0, 0
	haveInst, haveIn := false, false
	if s.peek() != '{' {
		return nil, badRequest("the request body must be a JSON object, found %s", s.found())
	}
	err := s.object(func(key string) error {
		var err error
		switch key {
		case "signature_name":
			if s.peek() != '"' {
				return badRequest("\"signature_name\" must be a string, found %s", s.found())
			}
			req.signature, err = s.str()
		case "instances":
			haveInst = true
			instAt = s.skipWS()
			instances, err = s.span()
		case "inputs":
			haveIn = true
			inAt = s.skipWS()
			inputs, err = s.span()
		default:
			err = s.skip()
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := s.end(); err != nil {
		return nil, err
	}
	if req.signature != "" && req.signature != sig.Name {
		return nil, badRequest("serving signature name: %q not found in the model's signatures (it has %q)", req.signature, sig.Name)
	}
	switch {
	case haveInst && haveIn:
		return nil, badRequest("the request has both \"instances\" and \"inputs\": give only one of them")
	case haveInst:
		req.feeds, err = decodeInstances(instances, instAt, sig)
	case haveIn:
		req.columnar = true
		req.feeds, err = decodeColumns(inputs, inAt, sig)
	default:
		return nil, badRequest("the request has neither \"instances\" nor \"inputs\"")
	}
	if err != nil {
		return nil, err
	}
	return req, nil
}

// sub is a scanner over a value inside the body, reporting byte offsets
// of the whole body.
func sub(b []byte, base int) *scanner {
	return &scanner{buf: b, base: base, depth: 1}
}

// decodeInstances reads the row format.
func decodeInstances(b []byte, base int, sig *Signature) ([]*interp.Tensor, error) {
	s := sub(b, base)
	if s.peek() != '[' {
		return nil, badRequest("\"instances\" must be a list, found %s", s.found())
	}
	bufs := make([]*tbuf, len(sig.Inputs))
	for i, in := range sig.Inputs {
		bufs[i] = &tbuf{dt: in.DType}
	}
	rowShape := make([][]int64, len(sig.Inputs))
	single := len(sig.Inputs) == 1
	rows := 0
	err := s.array(func(i int) error {
		rows++
		if single && !s.isInputObject(sig) {
			return s.instanceValue(bufs[0], &rowShape[0], &sig.Inputs[0], i, "")
		}
		if s.peek() != '{' {
			return badRequest("instances[%d]: expected an object of the inputs by name (the signature has %d inputs), found %s", i, len(sig.Inputs), s.found())
		}
		seen := make([]bool, len(sig.Inputs))
		err := s.objectRaw(func(raw []byte, escaped bool) error {
			k, key, ok := sig.inputRaw(raw, escaped)
			if !ok {
				return badRequest("instances[%d]: %q is not an input of the signature (%s)", i, key, inputList(sig))
			}
			if seen[k] {
				return badRequest("instances[%d]: input %q given twice", i, key)
			}
			seen[k] = true
			return s.instanceValue(bufs[k], &rowShape[k], &sig.Inputs[k], i, key)
		})
		if err != nil {
			return err
		}
		for k, ok := range seen {
			if !ok {
				return badRequest("instances[%d]: input %q is missing", i, sig.Inputs[k].Key)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := s.end(); err != nil {
		return nil, err
	}
	if rows == 0 {
		return nil, badRequest("\"instances\" is empty: the request has no rows")
	}
	feeds := make([]*interp.Tensor, len(sig.Inputs))
	for k, in := range sig.Inputs {
		shape := append([]int64{int64(rows)}, rowShape[k]...)
		t, err := bufs[k].tensor(shape)
		if err != nil {
			return nil, badRequest("input %q: %v", in.Key, err)
		}
		feeds[k] = t
	}
	return feeds, nil
}

// instanceValue reads row i's value of an input (key: the object key it
// came under, "" for a bare value); every row's must have the shape of
// the first.
func (s *scanner) instanceValue(t *tbuf, first *[]int64, spec *TensorSpec, i int, key string) error {
	shape, err := s.nested(t)
	where := func() string {
		if key == "" {
			return fmt.Sprintf("instances[%d]", i)
		}
		return fmt.Sprintf("instances[%d].%s", i, key)
	}
	if err != nil {
		return prefixError(where(), err)
	}
	switch {
	case *first == nil:
		*first = append([]int64{}, shape...)
	case !sameShape(*first, shape):
		return badRequest("%s: the value has shape %s, the first row's has %s: every row of input %q must have one shape", where(), shapeString(shape), shapeString(*first), spec.Key)
	}
	return nil
}

// isInputObject reports whether the value next is an object keyed by an
// input's name (not a {"b64": ...} value).
func (s *scanner) isInputObject(sig *Signature) bool {
	if s.peek() != '{' {
		return false
	}
	save := *s
	defer func() { *s = save }()
	s.pos++
	if s.peek() != '"' {
		return true // {} or garbage: reported as an object
	}
	key, err := s.str()
	if err != nil {
		return true
	}
	_, isInput := sig.input(key)
	return isInput || key != "b64"
}

// decodeColumns reads the columnar format.
func decodeColumns(b []byte, base int, sig *Signature) ([]*interp.Tensor, error) {
	s := sub(b, base)
	feeds := make([]*interp.Tensor, len(sig.Inputs))
	if len(sig.Inputs) == 1 && !s.isInputObject(sig) {
		t := &tbuf{dt: sig.Inputs[0].DType}
		shape, err := s.nested(t)
		if err != nil {
			return nil, prefixError("inputs", err)
		}
		if feeds[0], err = t.tensor(shape); err != nil {
			return nil, badRequest("inputs: %v", err)
		}
		return feeds, s.end()
	}
	if s.peek() != '{' {
		return nil, badRequest("\"inputs\" must be an object of the inputs by name (the signature has %d inputs), found %s", len(sig.Inputs), s.found())
	}
	err := s.object(func(key string) error {
		k, ok := sig.input(key)
		if !ok {
			return badRequest("inputs: %q is not an input of the signature (%s)", key, inputList(sig))
		}
		if feeds[k] != nil {
			return badRequest("inputs: input %q given twice", key)
		}
		t := &tbuf{dt: sig.Inputs[k].DType}
		shape, err := s.nested(t)
		if err != nil {
			return prefixError("inputs."+key, err)
		}
		feeds[k], err = t.tensor(shape)
		if err != nil {
			return badRequest("inputs.%s: %v", key, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for k, t := range feeds {
		if t == nil {
			return nil, badRequest("inputs: input %q is missing", sig.Inputs[k].Key)
		}
	}
	return feeds, s.end()
}

// prefixError puts where in front of a request error's message.
func prefixError(where string, err error) error {
	if e, ok := err.(*Error); ok {
		return &Error{Code: e.Code, Msg: where + ": " + e.Msg, HTTP: e.HTTP}
	}
	return fmt.Errorf("%s: %w", where, err)
}

// inputList names the signature's inputs for errors (the first few).
func inputList(sig *Signature) string {
	var names []string
	for i, in := range sig.Inputs {
		if i == 8 {
			names = append(names, fmt.Sprintf("and %d more", len(sig.Inputs)-8))
			break
		}
		names = append(names, fmt.Sprintf("%q", in.Key))
	}
	return "inputs: " + strings.Join(names, ", ")
}

// encodePredict writes the :predict response: {"predictions": rows} for
// the row format (each row the output's value, or an object of the
// outputs by name when there are several), {"outputs": tensor or object}
// for the columnar format.
func encodePredict(b []byte, columnar bool, sig *Signature, outs []*interp.Tensor) []byte {
	if columnar {
		b = append(b, `{"outputs":`...)
		if len(outs) == 1 {
			b = appendNested(b, outs[0], sig.Outputs[0].Key, 0, 0)
		} else {
			b = append(b, '{')
			for i, t := range outs {
				if i > 0 {
					b = append(b, ',')
				}
				b = appendString(b, sig.Outputs[i].Key)
				b = append(b, ':')
				b = appendNested(b, t, sig.Outputs[i].Key, 0, 0)
			}
			b = append(b, '}')
		}
		return append(b, "}\n"...)
	}
	b = append(b, `{"predictions":`...)
	if len(outs) == 1 {
		b = appendNested(b, outs[0], sig.Outputs[0].Key, 0, 0)
		return append(b, "}\n"...)
	}
	rows := outs[0].Dim(0)
	b = append(b, '[')
	for r := range rows {
		if r > 0 {
			b = append(b, ',')
		}
		b = append(b, '{')
		for i, t := range outs {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, sig.Outputs[i].Key)
			b = append(b, ':')
			b = appendRow(b, t, sig.Outputs[i].Key, r)
		}
		b = append(b, '}')
	}
	return append(b, "]}\n"...)
}

// appendRow writes row r of t as nested lists.
func appendRow(b []byte, t *interp.Tensor, key string, r int64) []byte {
	n := int64(1)
	for _, d := range t.Shape()[1:] {
		n *= d
	}
	return appendNested(b, t, key, 1, r*n)
}
