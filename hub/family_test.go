package hub

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fitbot/fitbot/sizing"
)

func familyRoutes() map[string]route {
	return map[string]route{
		"/api/models/black-forest-labs/FLUX.1-schnell":                                                        {file: "info_flux.1-schnell.json"},
		"/black-forest-labs/FLUX.1-schnell/resolve/741f7c3ce8b383c54771c7003378a50191e9efe9/model_index.json": {file: "model_index_flux.1-schnell.json"},
		"/api/models/openai/whisper-large-v3":                                                                 {file: "info_whisper-large-v3.json"},
		"/openai/whisper-large-v3/resolve/06f233fe06e710322aca913c1bc4249a0d71fce1/config.json":               {file: "config_whisper-large-v3.json"},
		"/api/models/state-spaces/mamba-2.8b-hf":                                                              {file: "info_mamba-2.8b-hf.json"},
		"/state-spaces/mamba-2.8b-hf/resolve/1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f/config.json":            {file: "config_mamba-2.8b-hf.json"},
		"/api/models/ai21labs/Jamba-v0.1":                                                                     {file: "info_jamba-v0.1.json"},
		"/ai21labs/Jamba-v0.1/resolve/5a1b2c3d4e5f60718293a4b5c6d7e8f901234567/config.json":                   {file: "config_jamba-v0.1.json"},
		"/api/models/BAAI/bge-m3":                                                                             {file: "info_bge-m3.json"},
		"/BAAI/bge-m3/resolve/6a2b3c4d5e6f708192a3b4c5d6e7f80912345678/config.json":                           {file: "config_bge-m3.json"},
	}
}

// TestHubNonDecoderFamilies: a repo that is not a decoder LLM is never
// sized as one from its safetensors count: it is sized by its own family
// or refused by name. A diffusers pipeline is read from its
// model_index.json, not a config.json it does not have.
func TestHubNonDecoderFamilies(t *testing.T) {
	hub := newFakeHub(t, familyRoutes())
	r := &Resolver{Client: hub.client(""), Now: func() time.Time { return t0 }}
	tests := []struct {
		repo, arch string
		named      []string // what a refusal names
		params     int64    // the count a sized model must have; 0 to skip
	}{
		{"black-forest-labs/FLUX.1-schnell", sizing.ArchDiffusion, []string{"FLUX.1", "diffusion"}, 0},
		{"openai/whisper-large-v3", sizing.ArchEncoderDecoder, []string{"Whisper"}, 1_543_490_560},
		{"state-spaces/mamba-2.8b-hf", sizing.ArchSSM, []string{"Mamba"}, 2_768_345_600},
		{"ai21labs/Jamba-v0.1", sizing.ArchHybrid, []string{"Jamba"}, 51_570_323_328},
		{"BAAI/bge-m3", sizing.ArchEncoder, []string{"XLM-RoBERTa"}, 567_754_752},
	}
	for _, tt := range tests {
		res, err := r.Resolve(context.Background(), tt.repo)
		if err != nil {
			var ie *sizing.InputError
			if !errors.As(err, &ie) {
				t.Errorf("%s: error %v, want a refusal (*sizing.InputError) or a model", tt.repo, err)
				continue
			}
			for _, w := range append(tt.named, tt.repo, "not sized as a decoder LLM") {
				if !strings.Contains(ie.Problem, w) {
					t.Errorf("%s: refusal %q does not name %q", tt.repo, ie.Problem, w)
				}
			}
			continue
		}
		if got := res.Model.Architecture(); got != tt.arch {
			t.Errorf("%s sized as %q, want %q", tt.repo, got, tt.arch)
		}
		if total, _ := res.Model.ParamCount(); tt.params > 0 && total != tt.params {
			t.Errorf("%s: %d parameters, want %d", tt.repo, total, tt.params)
		}
	}
	for _, q := range hub.requests() {
		if strings.Contains(q.URL.Path, "FLUX") && strings.HasSuffix(q.URL.Path, "/config.json") {
			t.Errorf("asked %s: a diffusers pipeline has no config.json at its root", q.URL.Path)
		}
	}
}
