package interp

// NewShared is New without the copy of shape: the tensor keeps shape, and
// the caller must never write it again. It is for request paths that make
// a tensor per input (recom serve decodes model E's 1001 inputs a request).
func NewShared[T Elem](shape []int64, data []T) (*Tensor, error) {
	n, err := NumElements(shape)
	if err != nil {
		return nil, err
	}
	if int64(len(data)) != n {
		return New(shape, data) // New's error
	}
	if shape == nil {
		shape = []int64{}
	}
	if data == nil {
		data = []T{}
	}
	return &Tensor{dtype: DTypeOf[T](), shape: shape[:len(shape):len(shape)], data: data}, nil
}

// ShapeView is Shape without the copy: the caller must not write it.
func (t *Tensor) ShapeView() []int64 { return t.shape }
