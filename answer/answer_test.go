package answer

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/reading"
	"github.com/fitbot/fitbot/sizing"
)

// hubQwen resolves every Hub question to Qwen/Qwen3-1.7B from
// hub/testdata (its source is in hub/testdata/SOURCES.md), counting calls.
type hubQwen struct{ calls int }

func (h *hubQwen) ResolveParsed(_ context.Context, question string, p reading.Request, _ error) (reading.Request, error) {
	h.calls++
	config, err := os.ReadFile("../hub/testdata/config_qwen3-1.7b.json")
	if err != nil {
		return p, err
	}
	m, err := sizing.ModelFromHub("Qwen/Qwen3-1.7B", config, sizing.HubWeights{Total: 2_031_739_904})
	if err != nil {
		return p, err
	}
	if p.Hub == "" { // a name the catalog lacks: read again with the repo in its place
		p, _ = reading.Parse(question[:p.Missing.Start] + "Qwen/Qwen3-1.7B" + question[p.Missing.End:])
	}
	p.Query.Arch = &m
	return p, nil
}

// teamMachines are the review's two machines, for any team; err fails the read.
type teamMachines struct{ err error }

func (m teamMachines) Machines(context.Context, string) ([]sizing.Machine, error) {
	if m.err != nil {
		return nil, m.err
	}
	return []sizing.Machine{
		{Name: "the big one", GPU: "h100", GPUs: 8, Nodes: 1},
		{Name: "the 4090", GPU: "rtx-4090", GPUs: 1, Nodes: 1},
	}, nil
}

func service(hub *hubQwen, ms Machines) *Service {
	est := Fixed{&sizing.Estimator{}}
	return &Service{Estimator: est, Asker: est, Models: hub, Machines: ms}
}

// TestResolveOrder: the Hub model is resolved before the question is
// placed on the team's machines, so it lands on the smallest that holds it.
func TestResolveOrder(t *testing.T) {
	ctx := context.Background()
	for _, text := range []string{"Qwen/Qwen3-1.7B qlora", "qwen3 1.7b qlora"} {
		hub := &hubQwen{}
		s := service(hub, teamMachines{})
		q := s.Read(text)
		if !s.NeedsHub(q) {
			t.Fatalf("%q: NeedsHub false", text)
		}
		q = s.Resolve(ctx, "T1", q)
		if q.Err != nil {
			t.Fatalf("%q: %v", text, q.Err)
		}
		f, err := s.Fit(ctx, q)
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		r := f.Answer.Request
		if hub.calls != 1 || r.GPU != "rtx-4090" || r.GPUs != 1 || !f.Answer.Fits {
			t.Errorf("%q: %d Hub calls, %d× %s fits %v; want one call, 1× rtx-4090, fits", text, hub.calls, r.GPUs, r.GPU, f.Answer.Fits)
		}
		if got := strings.Join(f.Answer.Assumptions, "\n"); !strings.Contains(got, `sized on "the 4090"`) {
			t.Errorf("%q: the assumptions do not name the machine:\n%s", text, got)
		}
		if got := strings.Join(f.Estimate.Assumptions, "\n"); strings.Contains(got, "the 4090") {
			t.Errorf("%q: the estimate alone carries the reading's notes:\n%s", text, got)
		}
	}
}

// TestResolveWithoutMachines: machines that cannot be read leave the
// question as asked; a question naming its GPU never reads them.
func TestResolveWithoutMachines(t *testing.T) {
	ctx := context.Background()
	s := service(&hubQwen{}, teamMachines{err: errors.New("disk on fire")})
	q := s.Resolve(ctx, "T1", s.Read("13b qlora"))
	if q.Err != nil || q.Parsed.Query.GPU != "" {
		t.Errorf("unreadable machines: err %v, gpu %q", q.Err, q.Parsed.Query.GPU)
	}
	s = service(&hubQwen{}, teamMachines{})
	if q := s.Resolve(ctx, "T1", s.Read("13b qlora h100")); q.Parsed.Query.GPU != "h100" || q.Parsed.Query.GPUs != 0 {
		t.Errorf("a named GPU was replaced: %+v", q.Parsed.Query)
	}
}

// countedMachines counts the reads of teamMachines.
type countedMachines struct {
	teamMachines
	reads int
}

func (m *countedMachines) Machines(ctx context.Context, team string) ([]sizing.Machine, error) {
	m.reads++
	return m.teamMachines.Machines(ctx, team)
}

// TestResolveReadsMachinesOnce: a question that looks at the team's
// machines three times (the machine it names, the cluster note, the
// machine it is placed on) reads them from the store once.
func TestResolveReadsMachinesOnce(t *testing.T) {
	for _, text := range []string{"13b qlora on our cluster", "13b qlora", "13b qlora on the big one"} {
		ms := &countedMachines{}
		s := service(&hubQwen{}, ms)
		q := s.Resolve(context.Background(), "T1", s.Read(text))
		if q.Err != nil || ms.reads != 1 {
			t.Errorf("%q: %d reads of the machines (err %v), want 1", text, ms.reads, q.Err)
		}
	}
}

// TestReadConfigured: a question about a config.json asks neither the
// Hub nor the machines, and needs no model in its words.
func TestReadConfigured(t *testing.T) {
	hub := &hubQwen{}
	s := service(hub, teamMachines{})
	q := s.Resolve(context.Background(), "", s.ReadConfigured("lora", sizing.Model{Name: "mine"}))
	if q.Err != nil || hub.calls != 0 || q.Parsed.Query.GPU != "" || q.Parsed.Query.Arch == nil || q.Parsed.Query.Arch.Name != "mine" {
		t.Errorf("configured: err %v, %d Hub calls, gpu %q, arch %v", q.Err, hub.calls, q.Parsed.Query.GPU, q.Parsed.Query.Arch)
	}
	if q := s.ReadConfigured("please", sizing.Model{Name: "mine"}); q.Err == nil {
		t.Error("words with neither method nor hardware were accepted")
	}
}

func TestKind(t *testing.T) {
	s := &Service{}
	for text, want := range map[string]Kind{
		"hello there":                   KindGreeting,
		"thanks!":                       KindChat,
		"help":                          KindHelp,
		"how much is an h100 per hour?": KindPrices,
		"13b lora 4090":                 KindFit,
		"what 2x4090 lora":              KindLargest,
		"which gpu 13b lora":            KindWhichGPU,
	} {
		if got := s.Read(text).Kind(); got != want {
			t.Errorf("Read(%q).Kind() = %s, want %s", text, got, want)
		}
	}
}

// TestAskWithoutAsker: a Service without an Asker says so, typed.
func TestAskWithoutAsker(t *testing.T) {
	s := &Service{Estimator: Fixed{&sizing.Estimator{}}}
	if _, err := s.AskAnswer(context.Background(), s.Read("what 2x4090 lora")); !errors.Is(err, ErrCannotAsk) {
		t.Errorf("err = %v, want ErrCannotAsk", err)
	}
}

// TestHostRAMSaidIsChecked: the machine's memory said beside an offload
// question is checked against the host RAM the answer counts, first among
// the targets, right under the verdict; without offload,
// or with enough memory, nothing is said.
// 70B QLoRA offloaded holds its 4-bit base and adapter state, about 60 GiB
// (not the 131 GiB 16-bit checkpoint): 64 GB is enough, 32 GB is not.
func TestHostRAMSaidIsChecked(t *testing.T) {
	s := &Service{Estimator: Fixed{&sizing.Estimator{}}}
	for text, short := range map[string]bool{
		"llama-3.3-70b qlora rtx-4090 offload with 32gb ram":  true,
		"llama-3.3-70b qlora rtx-4090 offload with 64gb ram":  false,
		"llama-3.3-70b qlora rtx-4090 offload with 512gb ram": false,
		"llama-3.1-8b qlora rtx-4090 with 8gb ram":            false,
		"llama-3.3-70b qlora rtx-4090 offload":                false,
	} {
		f, err := s.Fit(context.Background(), s.Read(text))
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		got := len(f.Answer.Targets) > 0 && strings.HasPrefix(f.Answer.Targets[0], "❌ Host RAM")
		if got != short {
			t.Errorf("%q: host RAM line %v, want %v (targets %q)", text, got, short, f.Answer.Targets)
		}
	}
}

// TestCheapestIsNotPlacedOnMachines: "cheapest" asks for the cheapest card
// that fits, so the team's machines are not where it is answered.
func TestCheapestIsNotPlacedOnMachines(t *testing.T) {
	ctx := context.Background()
	s := service(&hubQwen{}, teamMachines{})
	q := s.Resolve(ctx, "T1", s.Read("cheapest way to finetune llama 3.1 8b full"))
	if q.Err != nil || q.Parsed.Query.GPU != "" || !q.Parsed.Query.Cheapest {
		t.Errorf("cheapest question: err %v, placed on %q, cheapest %v", q.Err, q.Parsed.Query.GPU, q.Parsed.Query.Cheapest)
	}
	if q := s.Resolve(ctx, "T1", s.Read("finetune llama 3.1 8b full")); q.Parsed.Query.GPU == "" {
		t.Errorf("the same question without cheapest was not placed on the team's machines")
	}
}

// TestCheapestWayLeads: "cheapest way to fine tune" with no method said
// is answered on its cheapest way, so both faces lead with it (led with a full fine-tune on an A100); the full fine-tune said stays.
func TestCheapestWayLeads(t *testing.T) {
	ctx := context.Background()
	s := &Service{Estimator: Fixed{&sizing.Estimator{Prices: pricing.DefaultSheet()}}}
	for text, want := range map[string]sizing.Method{
		"whats the cheapest way to fine tune phi-3 mini": sizing.MethodLoRA,
		"cheapest way to full fine tune phi-3 mini":      sizing.MethodFull,
	} {
		f, err := s.Fit(ctx, s.Resolve(ctx, "", s.Read(text)))
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if got := f.Answer.Request.Method; got != want {
			t.Errorf("%q: answered on %s, want %s", text, got, want)
		}
		said := slices.ContainsFunc(f.Answer.Assumptions, func(a string) bool { return strings.HasPrefix(a, "cheapest way: ") })
		if said != (want != sizing.MethodFull) {
			t.Errorf("%q: cheapest way said %v (assumptions %q)", text, said, f.Answer.Assumptions)
		}
	}
}

// TestSameForEveryTeam: words that name their card, or ask for the
// cheapest or which one, answer alike for every team; words that leave
// the card to the team's machines do not.
func TestSameForEveryTeam(t *testing.T) {
	ctx := context.Background()
	s := service(&hubQwen{}, teamMachines{})
	for text, want := range map[string]bool{
		"13b qlora h100":                   true,
		"13b qlora 2 gpus":                 true,
		"cheapest way to qlora 13b":        true,
		"13b qlora":                        false,
		"llama 3.1 8b inference 50 users":  false,
		"which gpu for llama 3.1 8b qlora": true,
	} {
		if got := s.Resolve(ctx, "T1", s.Read(text)).SameForEveryTeam(); got != want {
			t.Errorf("%q: SameForEveryTeam = %v, want %v", text, got, want)
		}
	}
}

// TestAboutClusterWithoutOne: "what's free on our cluster" is the
// cluster's question whether or not one is configured (the faces then
// say none is and list the team's machines), never a refusal to size;
// a sizing question that mentions the cluster is not.
func TestAboutClusterWithoutOne(t *testing.T) {
	s := service(&hubQwen{}, teamMachines{})
	for text, want := range map[string]bool{
		"what's free on our cluster right now": true,
		"free gpus":                            true,
		"13b lora on our cluster":              false,
		"13b lora 4090":                        false,
	} {
		if got := s.AboutCluster(s.Read(text)); got != want {
			t.Errorf("AboutCluster(%q) = %v, want %v", text, got, want)
		}
	}
}
