package cublaslt

import (
	"errors"
	"fmt"
)

// ErrNotFound is wrapped by every error of Open when no cuBLASLt library
// can be loaded.
var ErrNotFound = errors.New("cuBLASLt not found")

// Status is a cublasStatus_t, the result of a cuBLASLt call.
type Status int32

// The cublasStatus_t codes (cublas_api.h).
const (
	StatusSuccess         Status = 0  // CUBLAS_STATUS_SUCCESS
	StatusNotInitialized  Status = 1  // CUBLAS_STATUS_NOT_INITIALIZED
	StatusAllocFailed     Status = 3  // CUBLAS_STATUS_ALLOC_FAILED
	StatusInvalidValue    Status = 7  // CUBLAS_STATUS_INVALID_VALUE
	StatusArchMismatch    Status = 8  // CUBLAS_STATUS_ARCH_MISMATCH
	StatusMappingError    Status = 11 // CUBLAS_STATUS_MAPPING_ERROR
	StatusExecutionFailed Status = 13 // CUBLAS_STATUS_EXECUTION_FAILED
	StatusInternalError   Status = 14 // CUBLAS_STATUS_INTERNAL_ERROR
	StatusNotSupported    Status = 15 // CUBLAS_STATUS_NOT_SUPPORTED
	StatusLicenseError    Status = 16 // CUBLAS_STATUS_LICENSE_ERROR
	// StatusUnknown is what Code gives for an error that is not an *Error;
	// cuBLAS has no such code.
	StatusUnknown Status = -1
)

// Error is a failed cuBLASLt call: the entry point, the status, and the
// library's name and description of it (cublasLtGetStatusName,
// cublasLtGetStatusString).
type Error struct {
	Func   string // the entry point, e.g. "cublasLtMatmul"
	Status Status
	Name   string // e.g. "CUBLAS_STATUS_NOT_SUPPORTED"
	Text   string // e.g. "the requested functionality is not supported"
}

func (e *Error) Error() string {
	name := e.Name
	if name == "" {
		name = fmt.Sprintf("cublasStatus_t(%d)", int32(e.Status))
	}
	if e.Text == "" || e.Text == e.Name {
		return fmt.Sprintf("%s: %s", e.Func, name)
	}
	return fmt.Sprintf("%s: %s: %s", e.Func, name, e.Text)
}

// Code returns the status that err wraps: StatusSuccess for nil and
// StatusUnknown for an error of another kind.
func Code(err error) Status {
	if err == nil {
		return StatusSuccess
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Status
	}
	return StatusUnknown
}

// errClosed is returned when an object is used after Close.
type errClosed string

func (e errClosed) Error() string { return "cublaslt: use of closed " + string(e) }

// check turns the status of the call fn into an error: nil for success,
// else an *Error named and described by the library.
func (a *api) check(fn string, s Status) error {
	if s == StatusSuccess {
		return nil
	}
	e := &Error{Func: fn, Status: s}
	if a != nil && a.cublasLtGetStatusName != nil {
		e.Name = a.cublasLtGetStatusName(s)
	}
	if a != nil && a.cublasLtGetStatusString != nil {
		e.Text = a.cublasLtGetStatusString(s)
	}
	return e
}
