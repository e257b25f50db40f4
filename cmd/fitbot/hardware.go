package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
	"github.com/fitbot/fitbot/store"
)

const hardwareUsage = `Usage: fitbot hardware [--json]
       fitbot hardware add NAME: HARDWARE...
       fitbot hardware remove NAME

Names the team's own machines. A question about one ("13b lora on our box"),
or one that names no GPU at all, is sized on them, and the answer says so.
The command line keeps its machines apart from every Slack workspace's.

Examples:
  fitbot hardware add our box: 2x rtx-4090, 128 GB RAM
  fitbot hardware add the cluster: 4 nodes of 8 h100
  fitbot fit 13b lora on our box
  fitbot hardware remove our box
`

// cliTeam is the team the command line's machines belong to.
const cliTeam = ""

// hardwareJSON is one machine in `fitbot hardware --json`.
type hardwareJSON struct {
	Name           string `json:"name"`
	GPU            string `json:"gpu"`
	GPUs           int    `json:"gpus"`
	Nodes          int    `json:"nodes"`
	GPUMemoryBytes int64  `json:"gpu_memory_bytes,omitempty"`
	HostRAMBytes   int64  `json:"host_ram_bytes,omitempty"`
	Description    string `json:"description"`
	Hardware       string `json:"hardware"`
}

// hardware is `fitbot hardware`.
func (a *app) hardware(ctx context.Context, args []string) error {
	asJSON := false
	var words []string
	for _, arg := range args {
		switch arg {
		case "-h", "-help", "--help":
			fmt.Fprint(a.stdout, hardwareUsage)
			return nil
		case "--json", "-json":
			asJSON = true
		default:
			words = append(words, arg)
		}
	}
	verb, rest := "list", ""
	if len(words) > 0 {
		verb, rest = strings.ToLower(words[0]), strings.Join(words[1:], " ")
	}
	switch verb {
	case "list":
		return a.listHardware(ctx, asJSON)
	case "add":
		m, err := reading.ParseMachine(rest)
		if err != nil {
			return inputError(err, "fitbot hardware add our box: 2x rtx-4090, 128 GB RAM")
		}
		db, err := a.openStore(ctx)
		if err != nil {
			return err
		}
		defer a.closeStore(db)
		if err := db.SaveMachine(ctx, cliTeam, m); err != nil {
			if errors.Is(err, store.ErrTooManyMachines) {
				return usageError(err.Error(), "fitbot hardware remove NAME")
			}
			return failure(err.Error(), "")
		}
		fmt.Fprintf(a.stdout, "Saved %s: %s\n", m.Name, m.Hardware())
		return nil
	case "remove", "rm", "delete":
		name := strings.ToLower(strings.Join(strings.Fields(strings.TrimSuffix(rest, ":")), " "))
		if name == "" {
			return usageError("hardware remove needs a name", "fitbot hardware remove our box")
		}
		if !a.dbExists() {
			return usageError(fmt.Sprintf("no machine named %q", name), "fitbot hardware")
		}
		db, err := a.openStore(ctx)
		if err != nil {
			return err
		}
		defer a.closeStore(db)
		ok, err := db.RemoveMachine(ctx, cliTeam, name)
		switch {
		case err != nil:
			return failure(err.Error(), "")
		case !ok:
			return usageError(fmt.Sprintf("no machine named %q", name), "fitbot hardware")
		}
		fmt.Fprintf(a.stdout, "Removed %s\n", name)
		return nil
	}
	return usageError(fmt.Sprintf("hardware does not know %q", verb), "fitbot hardware add our box: 2x rtx-4090, 128 GB RAM")
}

func (a *app) listHardware(ctx context.Context, asJSON bool) error {
	ms, err := a.machines(ctx)
	if err != nil {
		return err
	}
	if asJSON {
		out := make([]hardwareJSON, 0, len(ms))
		for _, m := range ms {
			out = append(out, hardwareJSON{Name: m.Name, GPU: m.GPU, GPUs: m.GPUs, Nodes: m.Nodes, GPUMemoryBytes: m.GPUMemoryBytes,
				HostRAMBytes: m.HostRAMBytes, Description: m.Description, Hardware: m.Hardware()})
		}
		return a.writeJSON(out)
	}
	if len(ms) == 0 {
		fmt.Fprintln(a.stdout, "No machines named yet. fitbot hardware add our box: 2x rtx-4090, 128 GB RAM")
		return nil
	}
	for _, m := range ms {
		fmt.Fprintf(a.stdout, "%s: %s\n", m.Name, m.Hardware())
	}
	return nil
}

// machines are the command line's machines; none, without creating a
// database, when there is none.
func (a *app) machines(ctx context.Context) ([]sizing.Machine, error) {
	if !a.dbExists() {
		return nil, nil
	}
	db, err := a.openStore(ctx)
	if err != nil {
		return nil, err
	}
	defer a.closeStore(db)
	ms, err := db.Machines(ctx, cliTeam)
	if err != nil {
		return nil, failure(err.Error(), "")
	}
	return ms, nil
}
