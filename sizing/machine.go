package sizing

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Machine is one of a team's own machines, by the name the team calls it
// ("our box: 2x rtx-4090, 128 GB RAM", "the cluster: 4 nodes of 8
// h100"). A question about it, or one that names no GPU, is sized on it.
type Machine struct {
	Name           string // lower case, as said: "our box"
	GPU            string // catalog id
	GPUs           int    // in all
	Nodes          int
	GPUMemoryBytes int64  // a typed memory no catalog variant has (Query.GPUMemoryBytes); 0 otherwise
	HostRAMBytes   int64  // per machine, when said; 0 otherwise
	Description    string // the words after the name
}

// maxMachineName is the longest name of a machine, in bytes.
const MaxMachineName = 40

// MaxMachines is how many machines one team may name.
const MaxMachines = 50

// Query is the machine as the hardware of a question.
func (m Machine) Query() Query {
	q := Query{GPU: m.GPU, GPUs: m.GPUs, GPUMemoryBytes: m.GPUMemoryBytes}
	if m.Nodes > 1 {
		q.Nodes = m.Nodes
	}
	return q
}

// Hardware is the machine in words: "2× RTX 4090 24 GB, 128 GB RAM".
func (m Machine) Hardware() string {
	name := m.GPU
	if g, _, err := LookupGPU(m.GPU); err == nil {
		if m.GPUMemoryBytes > 0 {
			g = withMemory(g, m.GPUMemoryBytes)
		}
		name = g.Name
	}
	s := fmt.Sprintf("%d× %s", m.GPUs, name)
	if m.Nodes > 1 {
		s = fmt.Sprintf("%d machines of %d× %s", m.Nodes, m.GPUs/m.Nodes, name)
	}
	if m.HostRAMBytes > 0 {
		s += fmt.Sprintf(", %d GB RAM", m.HostRAMBytes>>30)
	}
	return s
}

// Mentions reports whether a question names the machine: its name
// ("our box"), or the name's last words after "our", "the" or "my" ("on
// the box" for "our box").
func (m Machine) Mentions(question string) bool {
	text := " " + strings.ToLower(strings.Join(strings.FieldsFunc(question, IsSeparator), " ")) + " "
	if strings.Contains(text, " "+m.Name+" ") {
		return true
	}
	core := m.Name
	for _, article := range []string{"our ", "the ", "my ", "team "} {
		core = strings.TrimPrefix(core, article)
	}
	for _, article := range []string{"our ", "the ", "my "} {
		if strings.Contains(text, " "+article+core+" ") {
			return true
		}
	}
	return false
}

// OnMachines puts a question on a team's machines: the one it names ("on
// our box"), or, when it names no GPU at all and asks a fit question,
// the smallest of them it fits on (answer says whether it fits), or the
// largest when it fits on none. The note added says which machine and
// why. A question that names a GPU, or a team with no machines, is
// returned as it is.
func OnMachines(q Query, intent Intent, text string, ms []Machine, answer func(Query) (Answer, error), notes []string) (Query, []string) {
	if q.GPU != "" || q.GPUs != 0 || len(ms) == 0 || intent == IntentWhichGPU {
		return q, notes
	}
	put := func(m Machine) Query {
		hw := m.Query()
		q.GPU, q.GPUs, q.Nodes, q.GPUMemoryBytes = hw.GPU, hw.GPUs, hw.Nodes, hw.GPUMemoryBytes
		return q
	}
	for _, m := range ms {
		if m.Mentions(text) {
			return put(m), append(notes, fmt.Sprintf("%q is the team's %s", m.Name, m.Hardware()))
		}
	}
	if intent != IntentFit && intent != "" {
		return q, notes
	}
	if len(ms) == 1 {
		return put(ms[0]), append(notes, fmt.Sprintf("no GPU named: sized on the team's machine %q, %s; name a GPU for another", ms[0].Name, ms[0].Hardware()))
	}
	sorted := slices.Clone(ms)
	slices.SortStableFunc(sorted, func(a, b Machine) int { return cmp.Compare(a.vram(), b.vram()) })
	for _, m := range sorted {
		if a, err := answer(put(m)); err == nil && a.Fits {
			return q, append(notes, fmt.Sprintf("no GPU named: sized on %q (%s), the smallest of the team's %d machines it fits on; name a GPU for another", m.Name, m.Hardware(), len(ms)))
		}
	}
	m := sorted[len(sorted)-1]
	return put(m), append(notes, fmt.Sprintf("no GPU named: it fits on none of the team's %d machines; sized on the largest, %q (%s)", len(ms), m.Name, m.Hardware()))
}

// vram is the machine's GPU memory in all, for ordering.
func (m Machine) vram() int64 {
	if m.GPUMemoryBytes > 0 {
		return m.GPUMemoryBytes * int64(m.GPUs)
	}
	g, _, err := LookupGPU(m.GPU)
	if err != nil {
		return 0
	}
	return g.MemoryBytes * int64(m.GPUs)
}

// Substitute puts the machine's hardware in place of its name in a
// question ("13b lora on gpu-box-1" reads "13b lora on 2x rtx-4090, 128
// GB RAM"), so that any name the team gives, digits and hyphens
// included, reads wherever a GPU would. ok is false when the question
// does not name the machine (see Mentions).
func (m Machine) Substitute(question string) (string, bool) {
	words := strings.FieldsFunc(question, IsSeparator)
	name := strings.Fields(m.Name)
	core := name
	for len(core) > 1 && (core[0] == "our" || core[0] == "the" || core[0] == "my" || core[0] == "team") {
		core = core[1:]
	}
	for i := range words {
		n := matchWords(words[i:], name)
		if n == 0 && (strings.EqualFold(words[i], "our") || strings.EqualFold(words[i], "the") || strings.EqualFold(words[i], "my")) {
			if k := matchWords(words[i+1:], core); k > 0 {
				n = k + 1
			}
		}
		if n > 0 {
			out := slices.Concat(words[:i], []string{"(" + m.Description + ")"}, words[i+n:])
			return strings.Join(out, " "), true
		}
	}
	return question, false
}

// matchWords is len(name) when words starts with name's words (any
// case), 0 otherwise.
func matchWords(words, name []string) int {
	if len(name) == 0 || len(words) < len(name) {
		return 0
	}
	for i, w := range name {
		if !strings.EqualFold(words[i], w) {
			return 0
		}
	}
	return len(name)
}
