package cuda

import (
	"errors"
	"fmt"
)

// ErrNoDriver is wrapped by every error of Open when the CUDA driver
// library cannot be loaded.
var ErrNoDriver = errors.New("no CUDA driver: libcuda.so.1 not found")

// Result is a CUresult, the status code of a driver API call.
type Result int32

// Some CUresult codes (cuda.h).
const (
	Success                  Result = 0
	ErrorInvalidValue        Result = 1
	ErrorOutOfMemory         Result = 2
	ErrorNotInitialized      Result = 3
	ErrorDeinitialized       Result = 4
	ErrorNoDevice            Result = 100
	ErrorInvalidDevice       Result = 101
	ErrorInvalidImage        Result = 200
	ErrorInvalidContext      Result = 201
	ErrorInvalidPTX          Result = 218
	ErrorUnsupportedPTX      Result = 222
	ErrorInvalidSource       Result = 300
	ErrorInvalidHandle       Result = 400
	ErrorNotFound            Result = 500
	ErrorNotReady            Result = 600
	ErrorIllegalAddress      Result = 700
	ErrorLaunchOutOfRes      Result = 701
	ErrorLaunchFailed        Result = 719
	ErrorStreamCaptureUnsupp Result = 900
	// ErrorStreamCaptureImplicit: an operation would synchronize the
	// legacy default stream with a stream being captured.
	ErrorStreamCaptureImplicit Result = 906
	ErrorUnknown               Result = 999
)

// Error is a failed driver call: the entry point, the CUresult, and the
// driver's name and description of it.
type Error struct {
	Func string // the driver entry point, e.g. "cuMemAlloc_v2"
	Code Result
	Name string // cuGetErrorName, e.g. "CUDA_ERROR_OUT_OF_MEMORY"
	Text string // cuGetErrorString, e.g. "out of memory"
}

func (e *Error) Error() string {
	name := e.Name
	if name == "" {
		name = fmt.Sprintf("CUresult(%d)", int32(e.Code))
	}
	if e.Text == "" {
		return fmt.Sprintf("%s: %s", e.Func, name)
	}
	return fmt.Sprintf("%s: %s: %s", e.Func, name, e.Text)
}

// Code returns the CUresult that err wraps, Success for nil, and
// ErrorUnknown for an error of another kind.
func Code(err error) Result {
	if err == nil {
		return Success
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ErrorUnknown
}

// errClosed is returned when an object is used after Close.
type errClosed string

func (e errClosed) Error() string { return "cuda: use of closed " + string(e) }

// check turns the result of the driver call fn into an error: nil for
// CUDA_SUCCESS, else an *Error named and described by the driver.
func (a *api) check(fn string, r Result) error {
	if r == Success {
		return nil
	}
	e := &Error{Func: fn, Code: r}
	if a != nil && a.cuGetErrorName != nil {
		var p *byte
		if a.cuGetErrorName(r, &p) == Success {
			e.Name = goString(p)
		}
	}
	if a != nil && a.cuGetErrorString != nil {
		var p *byte
		if a.cuGetErrorString(r, &p) == Success {
			e.Text = goString(p)
		}
	}
	return e
}
