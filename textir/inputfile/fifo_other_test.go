//go:build !unix

package inputfile

import "errors"

func mkfifo(string) error { return errors.New("unsupported") }
