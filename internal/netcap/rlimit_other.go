//go:build !unix

package netcap

// fdLimit is unknown off Unix.
func fdLimit() uint64 { return 0 }
