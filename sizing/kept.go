package sizing

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// layerIndex finds a decoder layer's index in a module path
// ("model.layers.12.mlp.down_proj"); a wildcard or a regex stands for
// every layer.
var layerIndex = regexp.MustCompile(`layers\.(\d+)\.`)

// keptModules reads which block linears a quantised checkpoint leaves
// in 16-bit from its list of unconverted modules: transformers'
// modules_to_not_convert (fp8, fbgemm_fp8, mxfp4, awq), compressed-
// tensors' ignore, ModelOpt's exclude_modules, bitsandbytes'
// llm_int8_skip_modules. A module path names a role (self_attn or attn:
// attention; shared_expert; mlp.gate or router: the router; mlp or
// feed_forward: the dense MLP; mixer) and either one layer
// ("model.layers.0.") or every layer (a "*" or a "re:" pattern). A role
// listed for every layer is kept in every layer; a role listed for some
// layers only marks those layers as kept whole (Meta's 405B FP8 lists
// every layer's attention and the first and last layers' MLP). Entries
// outside the blocks (lm_head, embed_tokens, a vision tower) change
// nothing: those stay 16-bit in every format. nil when nothing in the
// blocks is kept.
func keptModules(format Quant, entries []string) *Kept16 {
	all := map[string]bool{}
	some := map[string]map[int]bool{}
	for _, e := range entries {
		e = strings.ToLower(e)
		role := moduleRole(e)
		if role == "" {
			continue
		}
		m := layerIndex.FindStringSubmatch(e)
		if m == nil {
			all[role] = true
			continue
		}
		i, err := strconv.Atoi(m[1])
		if err != nil {
			continue
		}
		if some[role] == nil {
			some[role] = map[int]bool{}
		}
		some[role][i] = true
	}
	k := &Kept16{Format: format}
	for role := range all {
		k.Roles = append(k.Roles, role)
	}
	// A role listed layer by layer for every layer (Meta writes out all
	// 126 layers' self_attn) is a kept role; otherwise its layers count
	// as whole layers kept.
	most := 0
	for _, layers := range some {
		most = max(most, len(layers))
	}
	for role, layers := range some {
		if all[role] {
			continue
		}
		if len(layers) == most && most > 2 && len(some) > 1 {
			k.Roles = append(k.Roles, role)
			continue
		}
		k.WholeLayers = max(k.WholeLayers, len(layers))
	}
	slices.Sort(k.Roles)
	if len(k.Roles) == 0 && k.WholeLayers == 0 {
		return nil
	}
	return k
}

// moduleRole is the LinearShapes role a module path names, "" for one
// outside the decoder blocks' linears.
func moduleRole(path string) string {
	switch {
	case strings.Contains(path, "vision") || strings.Contains(path, "visual") || strings.Contains(path, "lm_head") ||
		strings.Contains(path, "embed") || strings.Contains(path, "norm"):
		return ""
	case strings.Contains(path, "shared_expert"):
		return "shared-expert"
	case strings.Contains(path, "router") || strings.HasSuffix(path, "mlp.gate") || strings.HasSuffix(path, "block_sparse_moe.gate"):
		return "router"
	case strings.Contains(path, "self_attn") || strings.Contains(path, ".attn") || strings.Contains(path, "attention") ||
		strings.Contains(path, "q_proj") || strings.Contains(path, "k_proj") || strings.Contains(path, "v_proj") || strings.Contains(path, "o_proj"):
		return "attention"
	case strings.Contains(path, "mixer"):
		return "mixer"
	case strings.Contains(path, "mlp") || strings.Contains(path, "feed_forward") || strings.Contains(path, "ffn") ||
		strings.Contains(path, "gate_proj") || strings.Contains(path, "up_proj") || strings.Contains(path, "down_proj"):
		return "mlp"
	}
	return ""
}

// unconvertedModules is the list of modules a quantization_config
// leaves unquantised, under whichever key its method uses.
func unconvertedModules(v json.RawMessage) []string {
	var q struct {
		NotConvert []string `json:"modules_to_not_convert"`
		Ignore     []string `json:"ignore"`
		Exclude    []string `json:"exclude_modules"`
		Skip       []string `json:"llm_int8_skip_modules"`
	}
	if json.Unmarshal(v, &q) != nil {
		return nil
	}
	return slices.Concat(q.NotConvert, q.Ignore, q.Exclude, q.Skip)
}

// keptNote says what a release keeps in 16-bit, for the answer.
func keptNote(k *Kept16) string {
	var parts []string
	if len(k.Roles) > 0 {
		parts = append(parts, strings.Join(k.Roles, ", ")+" in every layer")
	}
	if k.WholeLayers > 0 {
		parts = append(parts, fmt.Sprintf("%d whole layer(s)", k.WholeLayers))
	}
	return fmt.Sprintf("the %s checkpoint keeps %s in 16-bit", strings.ToUpper(string(k.Format)), strings.Join(parts, " and "))
}
