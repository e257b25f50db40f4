package bot

import (
	"errors"
	"fmt"

	"github.com/fitbot/fitbot/sizing"
)

// gpuEntries lists the GPU catalog for `/fit gpus`.
func gpuEntries() []catalogEntry {
	gpus := sizing.GPUs()
	out := make([]catalogEntry, 0, len(gpus))
	for _, g := range gpus {
		out = append(out, catalogEntry{ID: g.ID, Name: g.Name, Detail: fmt.Sprintf("%.1f GiB usable", g.MemoryGiB())})
	}
	return out
}

// modelEntries lists the model catalog for `/fit models`.
func modelEntries() []catalogEntry {
	models := sizing.Models()
	out := make([]catalogEntry, 0, len(models))
	for _, m := range models {
		total, active := m.ParamCount()
		detail := formatParams(total) + " params"
		if active != total {
			detail += ", " + formatParams(active) + " active"
		}
		out = append(out, catalogEntry{ID: m.ID, Name: m.Name, Detail: detail})
	}
	return out
}

// formatParams shows a parameter count in billions or millions ("8.0B", "350M").
func formatParams(n int64) string {
	if n >= 1e9 {
		return fmt.Sprintf("%.1fB", float64(n)/1e9)
	}
	return fmt.Sprintf("%.0fM", float64(n)/1e6)
}

// lookupGPU resolves what the asker typed to a catalog GPU id. An
// unknown name becomes an *sizing.InputError whose hint uses the closest
// catalog GPU.
func lookupGPU(name string) (string, error) {
	g, _, err := sizing.LookupGPU(name)
	var nf *sizing.NotFoundError
	if errors.As(err, &nf) {
		hint := "prices h100"
		if len(nf.Suggestions) > 0 {
			hint = "prices " + nf.Suggestions[0]
		}
		return "", &sizing.InputError{Problem: nf.Error() + "; `/fit gpus` lists them", Hint: hint}
	}
	if err != nil {
		return "", fmt.Errorf("look up GPU %q: %w", name, err)
	}
	return g.ID, nil
}

// gpuName is a catalog GPU's display name, or the id when the catalog lacks it.
func gpuName(id string) string {
	if g, ok := sizing.MatchGPU(id); ok {
		return g.Name
	}
	return id
}
