package main

import (
	"io/fs"
	"testing"
)

func TestMemoryLimit(t *testing.T) {
	files := func(m map[string]string) func(string) ([]byte, error) {
		return func(name string) ([]byte, error) {
			if v, ok := m[name]; ok {
				return []byte(v), nil
			}
			return nil, fs.ErrNotExist
		}
	}
	noEnv := func(string) string { return "" }
	for _, tc := range []struct {
		name  string
		env   func(string) string
		files map[string]string
		want  int64
	}{
		{"cgroup v2 limit", noEnv, map[string]string{"/sys/fs/cgroup/memory.max": "536870912\n"}, 429496728},
		{"cgroup v2 without a limit", noEnv, map[string]string{"/sys/fs/cgroup/memory.max": "max\n"}, defaultMemoryLimit},
		{"cgroup v1 limit", noEnv, map[string]string{"/sys/fs/cgroup/memory/memory.limit_in_bytes": "268435456"}, 214748360},
		{"cgroup v1 without a limit", noEnv, map[string]string{"/sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712"}, defaultMemoryLimit},
		{"no cgroup", noEnv, nil, defaultMemoryLimit},
		{"GOMEMLIMIT set", func(k string) string { return map[string]string{"GOMEMLIMIT": "300MiB"}[k] }, map[string]string{"/sys/fs/cgroup/memory.max": "536870912"}, 0},
	} {
		if got, from := memoryLimit(tc.env, files(tc.files)); got != tc.want {
			t.Errorf("%s: %d (%s), want %d", tc.name, got, from, tc.want)
		}
	}
}
