package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/fitbot/fitbot/answer"
	"github.com/fitbot/fitbot/sizing"
)

// gpuJSON is one catalog GPU as `fitbot fit --json what gpus do you know`
// lists it (docs/json.md).
type gpuJSON struct {
	ID        string  `json:"id"`
	Name      string  `json:"name"`
	MemoryGiB float64 `json:"memory_gib"` // usable memory
}

// gpusJSON is the GPU catalog: kind "gpus".
type gpusJSON struct {
	Kind answer.Kind `json:"kind"`
	GPUs []gpuJSON   `json:"gpus"`
}

// gpus lists the GPUs fitbot knows, as Slack's `/fit gpus` does: the id
// to use in a question, the name, the usable memory.
func (a *app) gpus(asJSON bool) error {
	out := gpusJSON{Kind: answer.KindGPUs, GPUs: []gpuJSON{}}
	for _, g := range sizing.GPUs() {
		out.GPUs = append(out.GPUs, gpuJSON{ID: g.ID, Name: g.Name, MemoryGiB: g.MemoryGiB()})
	}
	if asJSON {
		return a.writeJSON(out)
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tMEMORY")
	for _, g := range out.GPUs {
		fmt.Fprintf(tw, "%s\t%s\t%.1f GiB usable\n", g.ID, g.Name, g.MemoryGiB)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write the GPU list: %w", err)
	}
	fmt.Fprintln(a.stdout, "\nUse the id or the name in a question: fitbot fit 13b lora rtx-4090")
	return nil
}
