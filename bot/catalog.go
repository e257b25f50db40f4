package bot

import (
	"errors"
	"fmt"

	"github.com/fitbot/fitbot/display"
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
		detail := display.Params(total) + " params"
		if active != total {
			detail += ", " + display.Params(active) + " active"
		}
		out = append(out, catalogEntry{ID: m.ID, Name: m.Name, Detail: detail})
	}
	return out
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
