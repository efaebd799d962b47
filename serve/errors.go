package serve

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"google.golang.org/grpc/codes"
)

// Error is a request's failure: a canonical status code (gRPC's, which
// TensorFlow Serving's and the Open Inference Protocol's errors are) and
// a message naming what was wrong. Over HTTP it is the status for the
// code (400 for INVALID_ARGUMENT) and the body {"error": message}; over
// gRPC the call's status.
type Error struct {
	Code codes.Code
	Msg  string
	// HTTP overrides the HTTP status of the code (413 for a body over
	// the limit).
	HTTP int
}

func (e *Error) Error() string { return e.Msg }

// errorf makes an Error of code.
func errorf(code codes.Code, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// badRequest is an INVALID_ARGUMENT Error.
func badRequest(format string, args ...any) *Error {
	return errorf(codes.InvalidArgument, format, args...)
}

// asError turns any error into an Error: context errors become
// CANCELLED and DEADLINE_EXCEEDED, backend failures that are the
// device's INTERNAL, and any other error of the model on the request's
// values INVALID_ARGUMENT (as TensorFlow's kernels report bad inputs).
func asError(err error) *Error {
	var e *Error
	var ie *internalError
	switch {
	case errors.As(err, &e):
		return e
	case errors.Is(err, context.Canceled):
		return errorf(codes.Canceled, "the request was cancelled")
	case errors.Is(err, context.DeadlineExceeded):
		return errorf(codes.DeadlineExceeded, "the request's deadline passed")
	case errors.As(err, &ie):
		return errorf(codes.Internal, "%v", err)
	}
	return errorf(codes.InvalidArgument, "%v", err)
}

// httpStatus is the HTTP status of an Error, as TensorFlow Serving maps
// its codes.
func (e *Error) httpStatus() int {
	if e.HTTP != 0 {
		return e.HTTP
	}
	switch e.Code {
	case codes.OK:
		return http.StatusOK
	case codes.InvalidArgument, codes.FailedPrecondition, codes.OutOfRange:
		return http.StatusBadRequest
	case codes.NotFound:
		return http.StatusNotFound
	case codes.AlreadyExists, codes.Aborted:
		return http.StatusConflict
	case codes.PermissionDenied:
		return http.StatusForbidden
	case codes.Unauthenticated:
		return http.StatusUnauthorized
	case codes.ResourceExhausted:
		return http.StatusTooManyRequests
	case codes.Unimplemented:
		return http.StatusNotImplemented
	case codes.Unavailable:
		return http.StatusServiceUnavailable
	case codes.DeadlineExceeded:
		return http.StatusGatewayTimeout
	case codes.Canceled:
		return 499 // the client closed the request, as nginx and TensorFlow Serving log it
	}
	return http.StatusInternalServerError
}
