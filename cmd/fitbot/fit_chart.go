package main

import (
	"fmt"
	"os"

	"github.com/fitbot/fitbot/chart"
	"github.com/fitbot/fitbot/launch"
	"github.com/fitbot/fitbot/reading"
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

// writeServeChart is `fitbot fit --chart FILE.png` on a serving question:
// the latency and throughput curve of the answered replica against
// concurrency, with the targets.
func writeServeChart(path string, est *sizing.Estimator, parsed reading.Request, ask sizing.AskAnswer) error {
	curve, err := est.ServeCurve(launch.QueryFor(parsed.Query, ask.Request))
	if err != nil {
		return inputError(err, "")
	}
	png, err := chart.ServePNG(chart.Serve(ask, curve))
	if err != nil {
		return failure(fmt.Sprintf("draw the serving chart: %v", err), "")
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		return failure(fmt.Sprintf("write --chart: %v", err), "fitbot fit --chart serving.png how many users can 2xh100 serve llama-3.1-70b")
	}
	return nil
}
