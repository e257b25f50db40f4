package sizing

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// HubWeights is what the Hugging Face Hub's model info says about a
// repository's safetensors weights: the stored elements by dtype ("BF16",
// "F8_E4M3", "U8", "F32") and their total. For a repo released in bf16,
// fp16 or fp32 the total is the exact parameter count; for a quantised
// release it counts packed elements and scales, not parameters.
type HubWeights struct {
	ByDType map[string]int64
	Total   int64
}

// ModelFromHub builds the model of the Hugging Face repository repo from
// its config.json and the Hub's safetensors counts (either may be
// missing, not both). The architecture comes from config.json
// (ModelFromConfig), and so does the released format where it has a
// quantization_config; without one, the dtype split says it (weights
// mostly fp8 were released in fp8). For an unquantised
// release, parameters the Hub counts beyond what config.json describes (a
// vision tower, MTP layers) are added as a named lump, so that the total is
// the Hub's exact count. The family comes first: a config (or diffusers
// model_index.json) of a family or model type fitbot does not size is
// refused by name, never sized from the Hub's count. A decoder's
// config.json fitbot cannot read is sized from the Hub's count as a
// Llama-style dense model, and Assumption says so.
func ModelFromHub(repo string, config []byte, w HubWeights) (Model, error) {
	if len(config) == 0 && w.Total <= 0 {
		return Model{}, &InputError{Problem: fmt.Sprintf("%s has neither a config.json nor safetensors weights on the Hub, so fitbot cannot size it", repo),
			Hint: "fit Qwen/Qwen3-8B lora rtx-4090"}
	}
	if err := refuseHubFamily(repo, config); err != nil {
		return Model{}, err
	}
	var m Model
	var err error
	if len(config) > 0 {
		m, err = ModelFromConfig(config, repo)
	} else {
		err = configErr("the repo has no config.json")
	}
	if err != nil {
		var ie *InputError
		if w.Total <= 0 || !errors.As(err, &ie) {
			return Model{}, fmt.Errorf("%s: %w", repo, err)
		}
		m = BareModel(w.Total, 0)
		m.assumption = fmt.Sprintf("%s: its config.json cannot be read (%s), so it is sized from the Hub's safetensors count: %s; activations and KV cache follow that shape",
			repo, ie.Problem, m.assumption)
	}
	m.ID, m.Name = repo, repo
	m.Source = "Hugging Face Hub: " + repo
	m.PublishedParams = w.Total
	notes := []string{}
	if m.assumption != "" {
		notes = append(notes, m.assumption)
	}

	format, why := releasedBySplit(config, w)
	if m.ReleasedFormat == "" && format != "" {
		m.ReleasedFormat = format
		notes = append(notes, why)
	}
	if m.ReleasedFormat == "" && !quantised(config) && w.Total > 0 && err == nil {
		notes = append(notes, m.reconcile(w.Total, config))
	}
	m.assumption = strings.Join(nonEmpty(notes), "; ")
	return m, nil
}

// Assume puts a sentence before the model's assumption: where a model
// from outside the catalog came from ("Qwen/Qwen3-14B from the Hugging
// Face Hub, revision 8268fe3"), which every answer about it then states.
func (m *Model) Assume(s string) {
	if s == "" {
		return
	}
	if m.assumption == "" {
		m.assumption = s
		return
	}
	m.assumption = s + "; " + m.assumption
}

// reconcile makes an unquantised model's count the Hub's exact one: the
// parameters config.json does not describe are added as a named lump. It
// returns the sentence that says what it did.
func (m *Model) reconcile(hub int64, config []byte) string {
	arch, _ := m.ParamCount()
	switch diff := hub - arch; {
	case diff == 0:
		return fmt.Sprintf("%s: %s parameters, exactly the Hub's safetensors count", m.ID, Commas(hub))
	case m.TiedEmbeddings && diff == int64(m.Vocab)*int64(m.Hidden):
		// The checkpoint stores the tied output embedding as well; loading
		// ties it back to the input embedding, so it is held once.
		return fmt.Sprintf("%s: %s parameters; the Hub's safetensors count (%s) also holds the tied output embedding, which is loaded once",
			m.ID, Commas(arch), Commas(hub))
	case diff > 0:
		what := outsideDecoder(config)
		m.ExtraParams += diff
		m.ExtraParamsNote = what
		return fmt.Sprintf("%s: %s parameters by the Hub's safetensors count, %s more than config.json's decoder, counted as %s",
			m.ID, Commas(hub), Commas(diff), what)
	default:
		return fmt.Sprintf("%s: config.json's architecture gives %s parameters, %s more than the Hub's safetensors count (%s); the architecture's count is used",
			m.ID, Commas(arch), Commas(-diff), Commas(hub))
	}
}

// HumanCount writes a count briefly, to three significant digits: 41.9M,
// 6.74B, 1.03T (and 12.3K, or the number itself under a thousand).
func HumanCount(n int64) string { return humanCount(n) }

// Commas writes n with thousands separators: 14,768,307,200.
func Commas(n int64) string {
	s := strconv.FormatInt(n, 10)
	if n < 0 {
		return "-" + Commas(-n)
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// outsideDecoder names what a repo holds beside the decoder fitbot reads.
func outsideDecoder(config []byte) string {
	var c struct {
		TextConfig   json.RawMessage `json:"text_config"`
		VisionConfig json.RawMessage `json:"vision_config"`
		AudioConfig  json.RawMessage `json:"audio_config"`
		MTP          int             `json:"num_nextn_predict_layers"`
		MTPQwen      int             `json:"mtp_num_hidden_layers"`
	}
	_ = json.Unmarshal(config, &c) // a config that failed here was read by ModelFromConfig already
	var parts []string
	if len(c.VisionConfig) > 0 && string(c.VisionConfig) != "null" || len(c.TextConfig) > 0 && string(c.TextConfig) != "null" {
		parts = append(parts, "the vision tower and projector")
	}
	if len(c.AudioConfig) > 0 && string(c.AudioConfig) != "null" {
		parts = append(parts, "the audio encoder")
	}
	if n := max(c.MTP, c.MTPQwen); n > 0 {
		parts = append(parts, fmt.Sprintf("%d multi-token-prediction (MTP) layer(s)", n))
	}
	if len(parts) == 0 {
		return "weights outside the decoder config.json describes"
	}
	return strings.Join(parts, " and ")
}

// releasedBySplit reads the released format when config.json has no
// quantization_config (ModelFromConfig reads that one): weights mostly in
// an fp8 dtype were released in fp8. It says how in words.
func releasedBySplit(config []byte, w HubWeights) (Quant, string) {
	if quantised(config) {
		return "", ""
	}
	var fp8, all int64
	for dt, n := range w.ByDType {
		all += n
		if strings.HasPrefix(dt, "F8") {
			fp8 += n
		}
	}
	if all > 0 && fp8*2 > all {
		return QuantFP8, fmt.Sprintf("released as fp8 weights (%s of the safetensors elements are fp8)", dtypeShare(w, fp8))
	}
	return "", ""
}

// quantised reports whether config.json has a quantization_config: the
// Hub's safetensors count is then of packed elements and scales.
func quantised(config []byte) bool {
	var c struct {
		Q json.RawMessage `json:"quantization_config"`
	}
	return len(config) > 0 && json.Unmarshal(config, &c) == nil && len(c.Q) > 0 && string(c.Q) != "null"
}

// dtypeShare is part/total of the safetensors elements as a percentage.
func dtypeShare(w HubWeights, part int64) string {
	var all int64
	for _, n := range w.ByDType {
		all += n
	}
	return fmt.Sprintf("%.0f%%", 100*float64(part)/float64(all))
}

func nonEmpty(ss []string) []string {
	out := ss[:0]
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// refuseHubFamily is the refusal of a repo whose config says it is of a
// family fitbot does not size; nil for a decoder, a family fitbot reads,
// or a config that is not JSON (the decoder path says what is wrong).
func refuseHubFamily(repo string, config []byte) error {
	var raw rawConfig
	if len(config) == 0 || json.Unmarshal(config, &raw) != nil || raw == nil {
		return nil
	}
	cfg := raw
	if tc, ok := raw["text_config"]; ok {
		var inner rawConfig
		if json.Unmarshal(tc, &inner) == nil && inner != nil {
			cfg = inner
		}
	}
	return refuseFamily(raw, cfg, repo)
}
