package interp

// NewSharedIn is NewShared into *t: for a caller that makes many tensors
// at once, from one array of them rather than an allocation each (recom
// serve's row-format decoder, 1001 inputs a request of model E).
func NewSharedIn[T Elem](t *Tensor, shape []int64, data []T) error {
	n, err := NumElements(shape)
	if err != nil {
		return err
	}
	if int64(len(data)) != n {
		_, err := New(shape, data) // New's error
		return err
	}
	if shape == nil {
		shape = []int64{}
	}
	if data == nil {
		data = []T{}
	}
	*t = Tensor{dtype: DTypeOf[T](), shape: shape[:len(shape):len(shape)], data: data}
	return nil
}
