package main

import (
	"fmt"
	"os"

	"github.com/fitbot/fitbot/chart"
	"github.com/fitbot/fitbot/sizing"
)

// writeMemoryChart is `fitbot fit --chart FILE.png`: the answer's memory
// picture written to path (created or replaced).
func writeMemoryChart(path string, ans sizing.Answer) error {
	png, err := chart.MemoryPNG(chart.Memory(ans))
	if err != nil {
		return failure(fmt.Sprintf("draw the memory chart: %v", err), "")
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		return failure(fmt.Sprintf("write --chart: %v", err), "fitbot fit --chart memory.png 13B lora 4090")
	}
	return nil
}
