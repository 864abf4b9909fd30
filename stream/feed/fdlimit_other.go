//go:build !unix

package feed

func openFileLimit() (uint64, bool) { return 0, false }
