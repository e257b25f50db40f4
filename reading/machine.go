package reading

import (
	"fmt"
	"strings"

	"github.com/fitbot/fitbot/sizing"
)

// ParseMachine reads "NAME: HARDWARE" ("our box: 2x rtx-4090, 128 GB
// RAM"). The hardware is read by Parse and must name a GPU and nothing
// but hardware; bad input gives an *InputError.
func ParseMachine(text string) (sizing.Machine, error) {
	const hint = "our box: 2x rtx-4090, 128 GB RAM"
	name, hw, ok := strings.Cut(text, ":")
	name = strings.ToLower(strings.Join(strings.Fields(name), " "))
	hw = strings.TrimSpace(hw)
	switch {
	case !ok || name == "" || hw == "":
		return sizing.Machine{}, &sizing.InputError{Problem: fmt.Sprintf("%q is not NAME: HARDWARE", text), Hint: hint}
	case len(name) > sizing.MaxMachineName:
		return sizing.Machine{}, &sizing.InputError{Problem: fmt.Sprintf("the name %q is longer than %d characters", name, sizing.MaxMachineName), Hint: hint}
	}
	p, err := Parse(hw)
	q := p.Query
	switch {
	case q.GPU == "" && (err == nil || q == (sizing.Query{})):
		return sizing.Machine{}, &sizing.InputError{Problem: fmt.Sprintf("%q names no GPU fitbot knows", hw), Hint: hint}
	case err != nil:
		return sizing.Machine{}, err
	case q.Model != "" || q.Params != 0 || q.Method != "":
		return sizing.Machine{}, &sizing.InputError{Problem: fmt.Sprintf("%q is a question, not hardware: say the GPUs, their count and the machines", hw), Hint: hint}
	}
	m := sizing.Machine{Name: name, GPU: q.GPU, GPUs: max(q.GPUs, 1), Nodes: max(q.Nodes, 1), GPUMemoryBytes: q.GPUMemoryBytes,
		HostRAMBytes: p.HostRAMBytes, Description: hw}
	if q.Nodes > 0 && q.GPUs == 0 {
		m.GPUs = q.Nodes * 8
	}
	if m.GPUs%m.Nodes != 0 {
		return sizing.Machine{}, &sizing.InputError{Problem: fmt.Sprintf("%d GPUs do not split evenly over %d machines", m.GPUs, m.Nodes), Hint: hint}
	}
	return m, nil
}
