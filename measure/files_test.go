package measure

import (
	"os"
	"strings"
	"testing"
)

func TestReadNvidiaSMI(t *testing.T) {
	for _, c := range []struct {
		file string
		want int64
	}{
		{"testdata/nvidia-smi-l5.csv", 72960 << 20},
		{"testdata/nvidia-smi-nounits-reordered.csv", 21177 << 20},
	} {
		f, err := os.Open(c.file)
		if err != nil {
			t.Fatal(err)
		}
		run, err := ReadFile(f)
		f.Close()
		if err != nil || run.PeakBytes != c.want {
			t.Errorf("%s: %+v, %v; want peak %d", c.file, run, err, c.want)
		}
	}
}

func TestReadNvidiaSMIRefuses(t *testing.T) {
	for _, c := range []struct{ in, says string }{
		{"index, memory.used [MiB], memory.total [MiB]\n0, [N/A], [N/A]\n", "no memory.used sample"},
		{"index, utilization.gpu [%]\n0, 100 %\n", "no memory.used column"},
		{"0, 100 MiB\n", "no header"},
		{"index, memory.used [MiB]\n0, lots\n", `"lots" is not a figure`},
		{"index, memory.used [MiB]\n0, 10 MiB, 3\n", "3 fields where the header has 2"},
		{"", "no memory.used sample"},
	} {
		_, err := ReadFile(strings.NewReader(c.in))
		if err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%q: error %v, want one saying %q", c.in, err, c.says)
		}
	}
}

func TestReadNvidiaSMINoHeader(t *testing.T) {
	run, err := ReadFile(strings.NewReader("2026/10/01 10:00:00.000, 0, 1000 MiB, 24564 MiB\n2026/10/01 10:00:05.000, 0, 20000 MiB, 24564 MiB\n"))
	if err != nil || run.PeakBytes != 20000<<20 {
		t.Errorf("noheader log: %+v, %v", run, err)
	}
}

func TestReadJSON(t *testing.T) {
	run, err := ReadFile(strings.NewReader(` {"peak_bytes": 76235669504, "tokens_per_second": 3150, "hours": 5.2}`))
	want := Run{PeakBytes: 76235669504, TokensPerSecond: 3150, Hours: 5.2}
	if err != nil || run != want {
		t.Errorf("JSON: %+v, %v", run, err)
	}
	for _, c := range []struct{ in, says string }{
		{`{"peak_gb": 71}`, "unknown field"},
		{`{}`, "no measurement"},
		{`{"hours": 1} {"hours": 2}`, "more than one object"},
		{`{"hours": "five"}`, "measurement JSON"},
	} {
		_, err := ReadFile(strings.NewReader(c.in))
		if err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: error %v, want one saying %q", c.in, err, c.says)
		}
	}
}

func FuzzReadFile(f *testing.F) {
	for _, name := range []string{"testdata/nvidia-smi-l5.csv", "testdata/nvidia-smi-nounits-reordered.csv"} {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data))
	}
	f.Add(`{"peak_bytes": 1, "hours": 2}`)
	f.Fuzz(func(t *testing.T, s string) {
		run, err := ReadFile(strings.NewReader(s))
		if err == nil && run.Empty() {
			t.Fatalf("%q read as an empty run without an error", s)
		}
	})
}
