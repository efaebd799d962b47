//go:build !unix

package inputfile

func mapAnon(int) ([]byte, func(), bool) { return nil, nil, false }
