package sizing

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

func quote(s string) string { return `"` + s + `"` }

// cardNumber reports whether the bare number key names a card ("max
// context 4090", "context 3090") rather than a context length: a card's
// number, never a round length (2048, 4096, 6000).
func CardNumber(key string) bool {
	v, err := strconv.Atoi(key)
	if err != nil || v <= 0 || v%1000 == 0 || v&(v-1) == 0 {
		return false
	}
	_, _, err = LookupGPU(key)
	return err == nil
}

func RoundTo(v float64, places int) float64 {
	p := 1.0
	for range places {
		p *= 10
	}
	return float64(int64(v*p+0.5)) / p
}

// formatGPUHours writes a GPU-hours budget as Format writes it: "2000
// gpu-hours".
func formatGPUHours(v float64) string {
	return strconv.FormatFloat(v, 'f', -1, 64) + " gpu-hours"
}

// isSeparator reports whether r separates words: space and the punctuation
// of chat sentences. Hyphens, dots, underscores and slashes stay inside a
// word ("llama-3.1-8b", "q4_k_m", "meta-llama/Llama-3.1-8B").
func IsSeparator(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiSeparators[r]
	}
	switch r {
	case ',', ';', '?', '!', '(', ')', '[', ']', '{', '}', '"', '\'', '`', '=', '+', '&', '|', '~', '’', '‘', '“', '”', '…':
		return true
	}
	return unicode.IsSpace(r) || unicode.IsControl(r)
}

// nominalGB is the memory a card's name states: "RTX 4090 24 GB" is 24,
// "M2 Max 96 GB" is 96; 0 when the name states none.
func NominalGB(name string) int {
	s, ok := strings.CutSuffix(name, " GB")
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(s[strings.LastIndexByte(s, ' ')+1:])
	if err != nil {
		return 0
	}
	return n
}

// lineOf is a card's name without its memory: the product line whose
// variants differ only in memory ("A100 SXM 40 GB" and "A100 SXM 80 GB").
func LineOf(name string) string {
	if NominalGB(name) == 0 {
		return name
	}
	s := strings.TrimSuffix(name, " GB")
	return s[:strings.LastIndexByte(s, ' ')]
}

// formatMFU writes an MFU as Format writes it: "mfu 40%".
func FormatMFU(v float64) string {
	return "mfu " + strconv.FormatFloat(RoundTo(v*100, 6), 'f', -1, 64) + "%"
}

// formatFloat writes a number the shortest way that reads back the same.
func formatFloat(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// formatServe writes the serving load and targets as the words readServe
// reads back.
func formatServe(l ServeLoad) string {
	var parts []string
	if l.Plan {
		parts = append(parts, "gpus", "needed")
	}
	if l.MaxBatch {
		parts = append(parts, "max", "batch")
	}
	if l.FirstToken {
		parts = append(parts, "time", "to", "first", "token")
	}
	if l.PromptTokens > 0 {
		parts = append(parts, "prompt", strconv.Itoa(l.PromptTokens))
	}
	if l.OutputTokens > 0 {
		parts = append(parts, "output", strconv.Itoa(l.OutputTokens))
	}
	switch {
	case l.DailyUsers > 0 && l.RequestsPerSecond == DailyUsersRPS(float64(l.DailyUsers), l.RequestsPerUserDay):
		parts = append(parts, strconv.Itoa(l.DailyUsers), "daily", "users")
		if l.RequestsPerUserDay > 0 {
			parts = append(parts, strconv.Itoa(l.RequestsPerUserDay), "requests", "a", "day", "each")
		}
	case l.RequestsPerSecond > 0:
		parts = append(parts, formatFloat(l.RequestsPerSecond), "qps")
	}
	if l.TTFTTargetSeconds > 0 {
		parts = append(parts, "ttft", formatFloat(l.TTFTTargetSeconds)+"s")
	}
	if l.TokensPerSecondPerUserTarget > 0 {
		parts = append(parts, formatFloat(l.TokensPerSecondPerUserTarget), "tok/s", "each")
	}
	if l.OutputTokensPerSecondTarget > 0 {
		parts = append(parts, formatFloat(l.OutputTokensPerSecondTarget), "tok/s", "total")
	}
	if l.GPUMemoryUtilization > 0 {
		parts = append(parts, "gpu", "util", formatFloat(l.GPUMemoryUtilization))
	}
	if l.Engine == EngineSGLang {
		parts = append(parts, EngineSGLang)
	}
	if l.BusyShare > 0 {
		parts = append(parts, PercentOf(l.BusyShare), "utilization")
	}
	if l.PerRequest {
		parts = append(parts, "per", "1k", "requests")
	}
	if l.TokensPer != "" {
		parts = append(parts, "how", "many", "tokens", "per", l.TokensPer)
	}
	return strings.Join(parts, " ")
}

// JobDocTokens is the length of a document a batch job assumes when none
// is said (or the model's longest sequence when shorter): a chunk as
// retrieval pipelines cut them, and BERT-style encoders' 512-token limit.
const JobDocTokens = 512

// jobBatch is the batch a job's documents go through the model in when
// none is said: sentence-transformers' encode default (batch_size=32).
const jobBatch = 32

// asciiSeparators is isSeparator for ASCII, as a table: whitespace,
// control bytes and chat punctuation.
var asciiSeparators = func() (t [utf8.RuneSelf]bool) {
	for c := range t {
		t[c] = c < 0x20 || c == 0x7f
	}
	for _, c := range " ,;?!()[]{}\"'`=+&|~" {
		t[c] = true
	}
	return t
}()

// dailyUsersRPS is the requests per second of a count of users a day
// sending perUser requests each (0: requestsPerUserDay), to three
// significant figures.
func DailyUsersRPS(users float64, perUser int) float64 {
	if perUser == 0 {
		perUser = RequestsPerUserDay
	}
	rps, _ := strconv.ParseFloat(strconv.FormatFloat(users*float64(perUser)/(BusyHoursPerDay*3600), 'g', 3, 64), 64)
	return rps
}

// percentOf writes a share as the shortest percentage that setBusy reads
// back to the same share ("80%").
func PercentOf(share float64) string {
	for digits := 1; digits < 17; digits++ {
		s := strconv.FormatFloat(share*100, 'g', digits, 64)
		if v, err := strconv.ParseFloat(s, 64); err == nil && v/100 == share {
			return strconv.FormatFloat(v, 'f', -1, 64) + "%"
		}
	}
	return strconv.FormatFloat(share*100, 'f', -1, 64) + "%"
}

// A count of users a day is read as requests per second with these: a
// chat user sends about 20 requests a day, within 8 busy hours.
const (
	RequestsPerUserDay = 20
	BusyHoursPerDay    = 8
)

// Targets reports whether a load names a rate or a latency target.
func (l ServeLoad) Targets() bool {
	return l.TTFTTargetSeconds > 0 || l.TokensPerSecondPerUserTarget > 0 || l.RequestsPerSecond > 0 || l.OutputTokensPerSecondTarget > 0
}
