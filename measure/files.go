package measure

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// maxFile bounds what ReadFile reads: a day of nvidia-smi at -l 5 on
// eight GPUs is about 10 MB.
const maxFile = 64 << 20

// ReadFile reads a run from a file's contents: a JSON object
// ({"peak_bytes": ..., "tokens_per_second": ..., "hours": ...}) or the CSV
// that nvidia-smi --query-gpu=timestamp,index,memory.used,memory.total
// --format=csv -l 5 writes.
func ReadFile(r io.Reader) (Run, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxFile+1))
	if err != nil {
		return Run{}, fmt.Errorf("read measurement: %w", err)
	}
	if len(data) > maxFile {
		return Run{}, fmt.Errorf("read measurement: more than %d MiB", maxFile>>20)
	}
	if trimmed := bytes.TrimSpace(data); len(trimmed) > 0 && trimmed[0] == '{' {
		return ReadJSON(bytes.NewReader(trimmed))
	}
	return ReadNvidiaSMI(bytes.NewReader(data))
}

// ReadJSON reads {"peak_bytes": ..., "tokens_per_second": ..., "hours":
// ..., "tensor_active": ...}: what torch.cuda.max_memory_reserved() and a
// training log give. An unknown key is an error, so a misspelt one is
// not silently dropped.
func ReadJSON(r io.Reader) (Run, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var run Run
	if err := dec.Decode(&run); err != nil {
		return Run{}, fmt.Errorf("measurement JSON: %w (keys: peak_bytes, tokens_per_second, hours, tensor_active)", err)
	}
	if dec.More() {
		return Run{}, errors.New("measurement JSON: more than one object")
	}
	if run.Empty() {
		return Run{}, ErrNothingMeasured
	}
	return run, nil
}

// smiOrder is the column order of the command fitbot's docs give, for a
// log written with --format=csv,noheader.
var smiOrder = []string{"timestamp", "index", "memory.used", "memory.total"}

// ReadNvidiaSMI reads nvidia-smi's CSV (--query-gpu=...,memory.used,...
// --format=csv, with or without nounits, the header repeated or not) and
// returns the largest memory.used of any GPU at any sample: the busiest
// GPU's peak. Columns may come in any order; [N/A] fields are skipped.
// Without a header the columns must be those of the documented command.
func ReadNvidiaSMI(r io.Reader) (Run, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	var (
		cols    []string
		used    = -1
		peakMiB float64
		samples int
		line    int
	)
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		fields := splitCSV(text)
		if isHeader(fields) {
			cols = columnNames(fields)
			if used = indexOf(cols, "memory.used"); used < 0 {
				return Run{}, errors.New("nvidia-smi CSV: no memory.used column (query it with --query-gpu=timestamp,index,memory.used,memory.total)")
			}
			continue
		}
		if cols == nil {
			if len(fields) != len(smiOrder) {
				return Run{}, fmt.Errorf("nvidia-smi CSV line %d: no header, and not the %d columns %s", line, len(smiOrder), strings.Join(smiOrder, ","))
			}
			cols, used = smiOrder, indexOf(smiOrder, "memory.used")
		}
		if len(fields) != len(cols) {
			return Run{}, fmt.Errorf("nvidia-smi CSV line %d: %d fields where the header has %d", line, len(fields), len(cols))
		}
		mib, ok, err := mebibytes(fields[used])
		if err != nil {
			return Run{}, fmt.Errorf("nvidia-smi CSV line %d: %w", line, err)
		}
		if !ok {
			continue
		}
		samples++
		peakMiB = max(peakMiB, mib)
	}
	if err := sc.Err(); err != nil {
		return Run{}, fmt.Errorf("nvidia-smi CSV: %w", err)
	}
	if samples == 0 {
		return Run{}, errors.New("nvidia-smi CSV: no memory.used sample (every field [N/A], or an empty file)")
	}
	if peakMiB == 0 {
		return Run{}, errors.New("nvidia-smi CSV: every memory.used sample is 0 MiB: the log did not cover the run")
	}
	return Run{PeakBytes: int64(peakMiB * (1 << 20))}, nil
}

func splitCSV(line string) []string {
	fields := strings.Split(line, ",")
	for i, f := range fields {
		fields[i] = strings.TrimSpace(f)
	}
	return fields
}

// isHeader reports whether a CSV line is nvidia-smi's header: its fields
// are query names such as memory.used, not figures.
func isHeader(fields []string) bool {
	for _, f := range fields {
		if strings.HasPrefix(f, "memory.") || f == "index" || f == "timestamp" {
			return true
		}
	}
	return false
}

// columnNames strips the unit annotations: "memory.used [MiB]" is memory.used.
func columnNames(fields []string) []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		name, _, _ := strings.Cut(f, " [")
		out[i] = strings.TrimSpace(name)
	}
	return out
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// mebibytes reads a memory.used field: "54022 MiB" or, with nounits,
// "54022". ok is false for [N/A] and the other bracketed notes nvidia-smi
// writes where a value is not available.
func mebibytes(field string) (float64, bool, error) {
	if strings.HasPrefix(field, "[") {
		return 0, false, nil
	}
	num := strings.TrimSpace(strings.TrimSuffix(field, "MiB"))
	v, err := number(num)
	if err != nil || v < 0 {
		return 0, false, fmt.Errorf("memory.used %q is not a figure in MiB", field)
	}
	return v, true, nil
}
