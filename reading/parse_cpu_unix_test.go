//go:build unix

package reading

import (
	"syscall"
	"time"
)

// processCPU is the CPU time this process has used, user and system. The
// parser benchmarks report it per operation beside wall time, which on a
// shared machine measures the queue for a core more than the parser.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
