package main

import (
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// defaultMemoryLimit is serve's soft memory limit outside a container
// with a memory limit: the heap is collected harder as it nears it (the
// process is never killed for it: the limit is soft). Resident memory is
// more than the Go heap (SQLite's caches, stacks); at 80 MiB it stayed
// between 103 and 128 MB under the soak's mixed load, against 148 to 170
// MB without a limit (BENCHMARKS.md, #39).
const defaultMemoryLimit = 80 << 20

// cgroupMemoryFiles are where a container's memory limit is read: cgroup
// v2, then v1.
var cgroupMemoryFiles = []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}

// memoryLimit is the soft memory limit serve sets and where it comes
// from: none when GOMEMLIMIT is set (Go reads it itself); 80% of the
// container's limit when there is one; else defaultMemoryLimit.
func memoryLimit(env func(string) string, readFile func(string) ([]byte, error)) (int64, string) {
	if env("GOMEMLIMIT") != "" {
		return 0, "GOMEMLIMIT"
	}
	for _, f := range cgroupMemoryFiles {
		b, err := readFile(f)
		if err != nil {
			continue
		}
		s := strings.TrimSpace(string(b))
		n, err := strconv.ParseInt(s, 10, 64)
		// "max" (v2) or a page-rounded 2^63 (v1) means no limit.
		if err != nil || n <= 0 || n >= 1<<62 {
			break
		}
		return n / 10 * 8, fmt.Sprintf("80%% of the container's %d MiB (%s)", n>>20, f)
	}
	return defaultMemoryLimit, "default"
}

// setMemoryLimit applies memoryLimit and says so in one line.
func setMemoryLimit(env func(string) string, log *slog.Logger) {
	limit, from := memoryLimit(env, os.ReadFile)
	if limit == 0 {
		log.Info("fitbot: memory limit from GOMEMLIMIT", "limit_bytes", debug.SetMemoryLimit(-1))
		return
	}
	debug.SetMemoryLimit(limit)
	log.Info("fitbot: soft memory limit set (GOMEMLIMIT overrides)", "limit_mib", limit>>20, "from", from)
}
