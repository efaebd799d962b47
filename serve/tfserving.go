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

// decodePredict reads a :predict body against sig, in one pass: the
// tensors are read where they are in the body, and the signature's name
// (which may come after them) checked at the end.
func decodePredict(body []byte, sig *Signature) (*predictRequest, error) {
	return decodePredictWith(body, sig, true)
}

// decodePredictWith is decodePredict with the rows of the row format read
// by instanceRow (fast) or by the general object reader (the reference its
// fuzz test compares it with).
func decodePredictWith(body []byte, sig *Signature, fast bool) (*predictRequest, error) {
	s := &scanner{buf: body, general: !fast}
	req := &predictRequest{}
	haveInst, haveIn := false, false
	if s.peek() != '{' {
		return nil, badRequest("the request body must be a JSON object, found %s", s.found())
	}
	err := s.objectRaw(func(key []byte, escaped bool) error {
		k := string(key) // not copied: compared, not kept
		if escaped {
			var err error
			if k, err = unescape(key); err != nil {
				return err
			}
		}
		var err error
		switch {
		case k == "signature_name":
			if s.peek() != '"' {
				return badRequest("\"signature_name\" must be a string, found %s", s.found())
			}
			req.signature, err = s.str()
		case k == "instances" || k == "inputs":
			if (k == "instances" && haveInst) || (k == "inputs" && haveIn) {
				return badRequest("%q given twice", k)
			}
			if haveInst || haveIn {
				return badRequest("the request has both \"instances\" and \"inputs\": give only one of them")
			}
			if k == "instances" {
				haveInst = true
				req.feeds, err = decodeInstances(s, sig, fast)
			} else {
				haveIn, req.columnar = true, true
				req.feeds, err = decodeColumns(s, sig)
			}
		default:
			err = s.skip()
		}
		return err
	})
	if err == nil {
		err = s.end()
	}
	if err != nil {
		return nil, predictError(body, sig, err)
	}
	if req.signature != "" && req.signature != sig.Name {
		return nil, badRequest("serving signature name: %q not found in the model's signatures (it has %q)", req.signature, sig.Name)
	}
	if !haveInst && !haveIn {
		return nil, badRequest("the request has neither \"instances\" nor \"inputs\"")
	}
	return req, nil
}

// predictError is the error of a :predict body that failed to decode with
// err, reported as a client would look for it: the body's JSON syntax
// first, then the signature's name and the choice of format, then err.
func predictError(body []byte, sig *Signature, err error) error {
	s := &scanner{buf: body}
	if e := s.skip(); e != nil {
		return e
	}
	if e := s.end(); e != nil {
		return e
	}
	s = &scanner{buf: body}
	signature, formats := "", map[string]bool{}
	e := s.object(func(key string) error {
		switch key {
		case "signature_name":
			if s.peek() == '"' {
				signature, _ = s.str()
				return nil
			}
		case "instances", "inputs":
			formats[key] = true
		}
		return s.skip()
	})
	switch {
	case e != nil:
		return err
	case signature != "" && signature != sig.Name:
		return badRequest("serving signature name: %q not found in the model's signatures (it has %q)", signature, sig.Name)
	case len(formats) > 1:
		return badRequest("the request has both \"instances\" and \"inputs\": give only one of them")
	}
	return err
}

// decodeInstances reads the row format's list at s.
func decodeInstances(s *scanner, sig *Signature, fast bool) ([]*interp.Tensor, error) {
	if s.peek() != '[' {
		return nil, badRequest("\"instances\" must be a list, found %s", s.found())
	}
	if fast {
		if feeds, ok := s.instancesParallel(sig); ok {
			return feeds, nil
		}
	}
	r := getRowReader(sig)
	defer r.done()
	return s.readInstances(r, fast)
}

// readInstances reads the row format's list at s (a '[') with r, by the
// fast readers or the general one.
func (s *scanner) readInstances(r *rowReader, fast bool) ([]*interp.Tensor, error) {
	sig := r.sig
	single := len(sig.Inputs) == 1
	rows := 0
	start := s.skipWS()
	err := s.array(func(i int) error {
		// Room for the rows left, estimated by the bytes of the rows
		// read: every input's elements are read without growing their
		// slices.
		r.room(i, s.pos-start, len(s.buf)-s.pos)
		rows++
		if single && !s.isInputObject(sig) {
			return s.instanceValue(&r.bufs[0], &r.rowShape[0], &sig.Inputs[0], i, "")
		}
		if s.peek() != '{' {
			return badRequest("instances[%d]: expected an object of the inputs by name (the signature has %d inputs), found %s", i, len(sig.Inputs), s.found())
		}
		if fast {
			return r.row(s, i)
		}
		// The general reader. r.order is the inputs of the previous row
		// by position: clients write every row's keys in one order, so
		// that a key is found by one comparison instead of a hash lookup.
		clear(r.seen)
		pos := 0
		err := s.objectRaw(func(raw []byte, escaped bool) error {
			k := -1
			var key string
			if !escaped && pos < len(r.order) && r.order[pos] >= 0 && string(raw) == sig.Inputs[r.order[pos]].Key {
				k = r.order[pos]
				key = sig.Inputs[k].Key
			} else {
				var ok bool
				if k, key, ok = sig.inputRaw(raw, escaped); !ok {
					return badRequest("instances[%d]: %q is not an input of the signature (%s)", i, key, inputList(sig))
				}
			}
			if pos < len(r.order) {
				r.order[pos] = k
			} else {
				r.order = append(r.order, k)
			}
			pos++
			if r.seen[k] {
				return badRequest("instances[%d]: input %q given twice", i, key)
			}
			r.seen[k] = true
			return s.instanceValue(&r.bufs[k], &r.rowShape[k], &sig.Inputs[k], i, key)
		})
		if err != nil {
			return err
		}
		for k, ok := range r.seen {
			if !ok {
				return badRequest("instances[%d]: input %q is missing", i, sig.Inputs[k].Key)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if rows == 0 {
		return nil, badRequest("\"instances\" is empty: the request has no rows")
	}
	return r.feeds(rows)
}

// instanceValue reads row i's value of an input (key: the object key it
// came under, "" for a bare value); every row's must have the shape of
// the first.
func (s *scanner) instanceValue(t *tbuf, first *[]int64, spec *TensorSpec, i int, key string) error {
	where := func() string {
		if key == "" {
			return fmt.Sprintf("instances[%d]", i)
		}
		return fmt.Sprintf("instances[%d].%s", i, key)
	}
	if *first != nil && len(*first) == 0 && s.peek() != '[' {
		// The rows so far were scalars and this is one: no shape to track.
		if err := s.scalar(t); err != nil {
			return prefixError(where(), err)
		}
		return nil
	}
	shape, err := s.nested(t)
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

// decodeColumns reads the columnar format's value at s.
func decodeColumns(s *scanner, sig *Signature) ([]*interp.Tensor, error) {
	feeds := make([]*interp.Tensor, len(sig.Inputs))
	if len(sig.Inputs) == 1 && !s.isInputObject(sig) {
		t := &tbuf{dt: sig.Inputs[0].DType}
		shape, err := s.nested(t)
		if err != nil {
			return nil, prefixError("inputs", err)
		}
		if feeds[0], err = t.sharedTensor(shape); err != nil {
			return nil, badRequest("inputs: %v", err)
		}
		return feeds, nil
	}
	if s.peek() != '{' {
		return nil, badRequest("\"inputs\" must be an object of the inputs by name (the signature has %d inputs), found %s", len(sig.Inputs), s.found())
	}
	// The inputs' elements in one array per dtype once the first input
	// gives the rows; their shapes in one array; the tensors one array.
	bufs := make([]tbuf, len(sig.Inputs))
	for k, in := range sig.Inputs {
		bufs[k].dt = in.DType
	}
	shapes := make([]int64, 0, 2*len(sig.Inputs))
	all := make([]interp.Tensor, len(sig.Inputs))
	next, reserved := 0, false
	err := s.object(func(key string) error {
		k, ok := sig.inputAt(key, next) // clients write them in order, mostly
		if !ok {
			return badRequest("inputs: %q is not an input of the signature (%s)", key, inputList(sig))
		}
		next = k + 1
		if feeds[k] != nil {
			return badRequest("inputs: input %q given twice", key)
		}
		t := &bufs[k]
		shape, err := s.nestedIn(t, &shapes)
		if err != nil {
			return prefixError("inputs."+key, err)
		}
		if !reserved && len(shape) > 0 {
			reserved = true
			reserveColumns(bufs, sig, shape[0], len(s.buf)-s.pos)
		}
		if err := t.sharedTensorIn(&all[k], shape); err != nil {
			return badRequest("inputs.%s: %v", key, err)
		}
		feeds[k] = &all[k]
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
	return feeds, nil
}

// reserveColumns makes room in the buffers of the columnar form's inputs
// for rows rows each (by the signature's shapes), where the bytes left
// could hold that many elements (2 bytes at least each).
func reserveColumns(bufs []tbuf, sig *Signature, rows int64, left int) {
	total := int64(0)
	for k := range sig.Inputs {
		total += rows * int64(rowElems(&sig.Inputs[k]))
		if total > int64(left/2) {
			return
		}
	}
	reserveBufs(bufs, func(k, l int) int { return max(l, int(rows)*rowElems(&sig.Inputs[k])) })
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
