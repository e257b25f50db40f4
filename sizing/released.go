package sizing

import (
	"encoding/json"
	"strings"
)

// releasedFormat reads the weight format a checkpoint ships in from
// config.json's quantization_config: quant_method "fp8" (DeepSeek-V3,
// Kimi K2), "mxfp4" (gpt-oss), or NVIDIA ModelOpt's "modelopt" with
// quant_algo "NVFP4" or "FP8". Anything else (none, or a post-hoc method
// such as GPTQ that fitbot sizes by name) is QuantNone.
func releasedFormat(raw rawConfig) Quant {
	v, ok := raw["quantization_config"]
	if !ok {
		return QuantNone
	}
	var qc struct {
		Method string `json:"quant_method"`
		Algo   string `json:"quant_algo"`
	}
	if json.Unmarshal(v, &qc) != nil {
		return QuantNone
	}
	method := strings.ToLower(qc.Method)
	if method == "modelopt" {
		method = strings.ToLower(qc.Algo)
	}
	switch method {
	case "fp8":
		return QuantFP8
	case "mxfp4":
		return QuantMXFP4
	case "nvfp4":
		return QuantNVFP4
	}
	return QuantNone
}
