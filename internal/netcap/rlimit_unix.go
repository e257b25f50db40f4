//go:build unix

package netcap

import "syscall"

// fdLimit is the process's soft limit on open files, or 0 when unknown.
func fdLimit() uint64 {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0
	}
	return r.Cur
}
