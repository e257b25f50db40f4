package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

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
func (a *app) hardware(ctx context.Context, args []string) int {
	asJSON := false
	var words []string
	for _, arg := range args {
		switch arg {
		case "-h", "-help", "--help":
			fmt.Fprint(a.stdout, hardwareUsage)
			return exitOK
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
		m, err := sizing.ParseMachine(rest)
		if err != nil {
			return a.inputFailed(err, "fitbot hardware add our box: 2x rtx-4090, 128 GB RAM")
		}
		db, code := a.openStore(ctx)
		if code != exitOK {
			return code
		}
		defer a.closeStore(db)
		if err := db.SaveMachine(ctx, cliTeam, m); err != nil {
			if errors.Is(err, store.ErrTooManyMachines) {
				return a.fail(exitUsage, err.Error(), "fitbot hardware remove NAME")
			}
			return a.fail(exitFailure, err.Error(), "")
		}
		fmt.Fprintf(a.stdout, "Saved %s: %s\n", m.Name, m.Hardware())
		return exitOK
	case "remove", "rm", "delete":
		name := strings.ToLower(strings.Join(strings.Fields(strings.TrimSuffix(rest, ":")), " "))
		if name == "" {
			return a.fail(exitUsage, "hardware remove needs a name", "fitbot hardware remove our box")
		}
		if !a.dbExists() {
			return a.fail(exitUsage, fmt.Sprintf("no machine named %q", name), "fitbot hardware")
		}
		db, code := a.openStore(ctx)
		if code != exitOK {
			return code
		}
		defer a.closeStore(db)
		ok, err := db.RemoveMachine(ctx, cliTeam, name)
		switch {
		case err != nil:
			return a.fail(exitFailure, err.Error(), "")
		case !ok:
			return a.fail(exitUsage, fmt.Sprintf("no machine named %q", name), "fitbot hardware")
		}
		fmt.Fprintf(a.stdout, "Removed %s\n", name)
		return exitOK
	}
	return a.fail(exitUsage, fmt.Sprintf("hardware does not know %q", verb), "fitbot hardware add our box: 2x rtx-4090, 128 GB RAM")
}

func (a *app) listHardware(ctx context.Context, asJSON bool) int {
	ms, code := a.machines(ctx)
	if code != exitOK {
		return code
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
		return exitOK
	}
	for _, m := range ms {
		fmt.Fprintf(a.stdout, "%s: %s\n", m.Name, m.Hardware())
	}
	return exitOK
}

// machines are the command line's machines; none, without creating a
// database, when there is none.
func (a *app) machines(ctx context.Context) ([]sizing.Machine, int) {
	if !a.dbExists() {
		return nil, exitOK
	}
	db, code := a.openStore(ctx)
	if code != exitOK {
		return nil, code
	}
	defer a.closeStore(db)
	ms, err := db.Machines(ctx, cliTeam)
	if err != nil {
		return nil, a.fail(exitFailure, err.Error(), "")
	}
	return ms, exitOK
}
