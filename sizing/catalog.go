package sizing

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
)

//go:embed data/gpus.json
var gpusJSON []byte

//go:embed data/models.json
var modelsJSON []byte

//go:embed data/named.json
var namedJSON []byte

// NotFoundError is a GPU or model name the catalog does not know, with up
// to three close catalog ids to suggest.
type NotFoundError struct {
	Kind        string // "GPU" or "model"
	Input       string
	Suggestions []string
}

func (e *NotFoundError) Error() string {
	msg := fmt.Sprintf("unknown %s %q", e.Kind, e.Input)
	if len(e.Suggestions) > 0 {
		msg += " (did you mean " + strings.Join(e.Suggestions, ", ") + "?)"
	}
	return msg
}

// entry is one lookup key: the row it names and, for an ambiguous alias,
// the assumption the lookup makes.
type entry struct {
	index int
	note  string
}

// index maps normalised names to rows and keeps the keys in catalog order
// for suggestions.
type index struct {
	byKey map[string]entry
	keys  []indexKey
}

type indexKey struct {
	key   string
	index int
}

type catalog struct {
	gpus      []GPU
	models    []Model
	gpuIndex  index
	modelIdx  index
	named     []NamedModel
	namedIdx  index
	loadError error // non-nil only if the embedded data is broken; a test keeps it nil
}

// gpuFile and modelFile are the embedded files' shapes.
type gpuFile struct {
	Convention string   `json:"convention"`
	GPUs       []gpuRow `json:"gpus"`
}

type gpuRow struct {
	GPU
	AssumedAliases []string `json:"assumed_aliases"`
}

type modelFile struct {
	Models []modelRow `json:"models"`
}

type modelRow struct {
	Model
	AssumedAliases []string `json:"assumed_aliases"`
}

var loadCatalog = sync.OnceValue(func() *catalog {
	c, err := parseCatalog(gpusJSON, modelsJSON)
	if err == nil {
		err = c.parseNamed(namedJSON)
	}
	if err != nil {
		return &catalog{loadError: err}
	}
	return c
})

// NamedModel is a model fitbot knows by name but does not size yet (a
// diffusion pipeline, a speech model): a question naming it is refused
// by name, saying what it is. The list lives in data/named.json.
type NamedModel struct {
	ID      string   `json:"id"`
	Name    string   `json:"name"`
	Kind    string   `json:"kind"` // the family, one of the Arch constants
	What    string   `json:"what"` // what it is, in words: "a 12B diffusion transformer ..."
	Aliases []string `json:"aliases"`
	Source  string   `json:"source"`
}

type namedFile struct {
	Convention string       `json:"convention"`
	Models     []NamedModel `json:"models"`
}

// parseNamed reads the named-only models; their names may not collide
// with a sized model's.
func (c *catalog) parseNamed(data []byte) error {
	var nf namedFile
	if err := decodeStrict(data, &nf); err != nil {
		return fmt.Errorf("named.json: %w", err)
	}
	c.named = nf.Models
	c.namedIdx.byKey = map[string]entry{}
	var errs []error
	for i, m := range nf.Models {
		names := append([]string{m.ID, m.Name}, m.Aliases...)
		for _, n := range names {
			if _, ok := c.modelIdx.byKey[string(namedKey(nil, n))]; ok {
				errs = append(errs, fmt.Errorf("named.json: %s: %q also names a sized model", m.ID, n))
			}
		}
		errs = append(errs, c.namedIdx.add(names, i, m.ID, "", namedKey)...)
	}
	return errors.Join(errs...)
}

// LookupNamed finds a model fitbot knows by name but does not size; a
// Hub id ("stabilityai/stable-diffusion-3.5-large") is looked up by its
// repo name.
func LookupNamed(name string) (NamedModel, bool) {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		if n, ok := lookupNamedWritten(name[i+1:]); ok {
			return n, true
		}
	}
	return lookupNamedWritten(name)
}

// lookupNamedWritten finds a named-only model by its name as written,
// where a slash is part of it ("vit-l/14", "CLIP ViT-B/32").
func lookupNamedWritten(name string) (NamedModel, bool) {
	c := loadCatalog()
	var buf [keyBuf]byte
	e, ok := c.namedIdx.byKey[string(namedKey(buf[:0], name))]
	if !ok {
		return NamedModel{}, false
	}
	return c.named[e.index], true
}

// namedKey is a named-only model's lookup key: a model key (see
// modelKey) that keeps what follows a slash, since vision models are
// named by their patch size after one ("ViT-L/14").
func namedKey(dst []byte, s string) []byte { return appendCatalogKey(dst, s, true) }

// Named returns the models fitbot knows by name but does not size, in
// catalog order. The slice is a copy.
func Named() []NamedModel { return slices.Clone(loadCatalog().named) }

// Refusal is the error a question naming m gets: what it is, that fitbot
// does not size it, and what fitbot does size. It has no Try: nothing
// fitbot sizes is like it, and "fitbot models ID" would only say again
// that it is not sized.
func (m NamedModel) Refusal() *InputError {
	return &InputError{Problem: fmt.Sprintf("%s is %s (%s), which fitbot does not size yet; it is not sized as a decoder LLM from its parameter count either, "+
		"so there is no similar question to offer. %s", m.Name, m.What, m.Kind, sizedFamilies)}
}

// parseCatalog decodes both embedded files and builds the lookup indexes.
// It reports rows whose keys collide with another row's.
func parseCatalog(gpuData, modelData []byte) (*catalog, error) {
	var gf gpuFile
	if err := decodeStrict(gpuData, &gf); err != nil {
		return nil, fmt.Errorf("gpus.json: %w", err)
	}
	var mf modelFile
	if err := decodeStrict(modelData, &mf); err != nil {
		return nil, fmt.Errorf("models.json: %w", err)
	}
	c := &catalog{}
	var errs []error
	c.gpuIndex.byKey = map[string]entry{}
	for i, r := range gf.GPUs {
		c.gpus = append(c.gpus, r.GPU)
		// Ambiguous aliases go first so that they keep their note even
		// where they equal the id ("h100" is the SXM card, said so).
		for _, a := range r.AssumedAliases {
			note := fmt.Sprintf("%q taken as %s", a, r.Name)
			errs = append(errs, c.gpuIndex.add([]string{a}, i, r.ID, note, gpuKey)...)
		}
		names := append([]string{r.ID, r.Name}, r.Aliases...)
		errs = append(errs, c.gpuIndex.add(names, i, r.ID, "", gpuKey)...)
	}
	c.modelIdx.byKey = map[string]entry{}
	for i, r := range mf.Models {
		m := r.Model
		if m.HeadDim == 0 && m.Heads > 0 {
			m.HeadDim = m.Hidden / m.Heads
		}
		c.models = append(c.models, m)
		for _, a := range r.AssumedAliases {
			note := fmt.Sprintf("%q taken as %s", a, m.Name)
			errs = append(errs, c.modelIdx.add([]string{a}, i, m.ID, note, modelKey)...)
		}
		names := append([]string{m.ID, m.Name}, m.Aliases...)
		errs = append(errs, c.modelIdx.add(names, i, m.ID, "", modelKey)...)
	}
	for _, t := range architectureTwins {
		i := slices.IndexFunc(c.models, func(m Model) bool { return m.ID == t.id })
		if i < 0 {
			errs = append(errs, fmt.Errorf("architecture twin %q: no model %q", t.name, t.id))
			continue
		}
		errs = append(errs, c.modelIdx.add([]string{t.name}, i, t.id, t.note, modelKey)...)
	}
	return c, errors.Join(errs...)
}

// architectureTwin is a model the catalog sizes as another one with the
// same config.json shape, said in a note.
type architectureTwin struct {
	name, id, note string
}

// architectureTwins are models people name whose config.json has the
// shape of a catalog model's: Qwen2.5-Coder and Qwen2.5-Math have Qwen2.5's (the Coder
// repos' config.json match the base ones field for field but
// max_position_embeddings), and Code Llama 7B/13B/70B have Llama 2's but a
// 32016-token vocabulary (70B: 32016 too) and rope theta 1e6, a few
// hundred thousand parameters more; Llama-3.1-Nemotron-70B is Llama 3.1
// 70B fine-tuned.
var architectureTwins = func() []architectureTwin {
	var ts []architectureTwin
	for _, size := range []string{"0.5b", "1.5b", "3b", "7b", "14b", "32b"} {
		id := "qwen2.5-" + size
		name := "Qwen2.5 " + strings.ToUpper(size)
		ts = append(ts, architectureTwin{"qwen2.5 coder " + size, id,
			fmt.Sprintf("Qwen2.5-Coder-%s has %s's architecture (the same config.json shape): sized as %s", strings.ToUpper(size), name, name)})
	}
	for _, size := range []string{"1.5b", "7b", "72b"} {
		id := "qwen2.5-" + size
		name := "Qwen2.5 " + strings.ToUpper(size)
		ts = append(ts, architectureTwin{"qwen2.5 math " + size, id,
			fmt.Sprintf("Qwen2.5-Math-%s has %s's architecture (the same config.json shape, a 4096-token context): sized as %s", strings.ToUpper(size), name, name)})
	}
	nemotron := "Llama-3.1-Nemotron-70B-Instruct is NVIDIA's fine-tune of Llama 3.1 70B (the same config.json shape): sized as Llama 3.1 70B"
	ts = append(ts, architectureTwin{"nemotron 70b", "llama-3.1-70b", nemotron}, architectureTwin{"llama 3.1 nemotron 70b", "llama-3.1-70b", nemotron})
	for _, size := range []string{"7b", "13b", "70b"} {
		name := "Llama 2 " + strings.ToUpper(size)
		note := fmt.Sprintf("Code Llama %s has %s's architecture (vocabulary 32016 instead of 32000, rope theta 1e6): sized as %s", strings.ToUpper(size), name, name)
		ts = append(ts, architectureTwin{"codellama " + size, "llama-2-" + size, note}, architectureTwin{"code llama " + size, "llama-2-" + size, note})
	}
	return ts
}()

func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// add indexes names for row i. A name already taken by the same row is
// skipped; one taken by another row is an error.
func (x *index) add(names []string, i int, id, note string, key func([]byte, string) []byte) []error {
	var errs []error
	for _, n := range names {
		k := string(key(nil, n))
		if k == "" {
			errs = append(errs, fmt.Errorf("%s: alias %q normalises to nothing", id, n))
			continue
		}
		if e, ok := x.byKey[k]; ok {
			if e.index != i {
				errs = append(errs, fmt.Errorf("%s: alias %q (key %q) already names row %d", id, n, k, e.index))
			}
			continue
		}
		x.byKey[k] = entry{index: i, note: note}
		x.keys = append(x.keys, indexKey{key: k, index: i})
	}
	return errs
}

// GPUs returns the GPU catalog in catalog order. The slice is a copy.
func GPUs() []GPU { return slices.Clone(loadCatalog().gpus) }

// Models returns the model catalog in catalog order. The slice is a copy.
func Models() []Model { return slices.Clone(loadCatalog().models) }

// LookupGPU finds a GPU by id, name or alias, ignoring case, spaces and
// punctuation ("RTX 4090 24GB", "rtx4090", "NVIDIA GeForce RTX 4090").
// The string is the assumption made for an ambiguous name ("a100" is
// taken as the 80 GB SXM card), "" when the name was exact. An unknown
// name returns a *NotFoundError with suggestions.
func LookupGPU(name string) (GPU, string, error) {
	c := loadCatalog()
	var buf [keyBuf]byte
	if e, ok := c.gpuIndex.byKey[string(gpuKey(buf[:0], name))]; ok {
		return c.gpus[e.index], e.note, nil
	}
	return GPU{}, "", &NotFoundError{Kind: "GPU", Input: name, Suggestions: c.gpuIndex.suggest(string(gpuKey(nil, name)), func(i int) string { return c.gpus[i].ID })}
}

// LookupModel finds a model by id, name, alias or Hugging Face repo name
// ("meta-llama/Llama-3.1-70B-Instruct", "llama 3.1 70b", "Mistral-7B-v0.1"),
// ignoring case and punctuation, the organisation prefix and
// instruct/chat/it/hf/base suffixes. The string is the assumption made
// for an ambiguous name ("mistral 7b" is taken as v0.1), "" when exact.
// An unknown name returns a *NotFoundError with suggestions.
func LookupModel(name string) (Model, string, error) {
	c := loadCatalog()
	var buf [keyBuf]byte
	if e, ok := c.modelIdx.byKey[string(modelKey(buf[:0], name))]; ok {
		return c.models[e.index], e.note, nil
	}
	return Model{}, "", &NotFoundError{Kind: "model", Input: name, Suggestions: c.modelIdx.suggest(string(modelKey(nil, name)), func(i int) string { return c.models[i].ID })}
}

// MatchGPU is the cheap exact lookup for parsers that try many word
// n-grams: it never builds suggestions and does not allocate.
func MatchGPU(words string) (GPU, bool) {
	c := loadCatalog()
	var buf [keyBuf]byte
	e, ok := c.gpuIndex.byKey[string(gpuKey(buf[:0], words))]
	if !ok {
		return GPU{}, false
	}
	return c.gpus[e.index], true
}

// MatchModel is the cheap exact lookup for parsers that try many word
// n-grams: it never builds suggestions and does not allocate.
func MatchModel(words string) (Model, bool) {
	c := loadCatalog()
	var buf [keyBuf]byte
	e, ok := c.modelIdx.byKey[string(modelKey(buf[:0], words))]
	if !ok {
		return Model{}, false
	}
	return c.models[e.index], true
}

// suggest returns up to three ids whose keys are closest to key by edit
// distance (a transposition counts once; a key containing an input of
// three characters or more counts as distance one), keeping only those
// within one edit of the best and within max(2, len/3) edits at all.
// Ties go to the longer common prefix, then to catalog order, so the
// answer is deterministic.
func (x *index) suggest(key string, id func(int) string) []string {
	if key == "" {
		return nil
	}
	limit := max(2, len(key)/3)
	type cand struct{ dist, prefix, index int }
	best := map[int]cand{}
	var rows EditRows
	for _, k := range x.keys {
		d := rows.Distance(key, k.key, limit)
		if len(key) >= 3 && strings.Contains(k.key, key) {
			d = min(d, 1)
		}
		if d > limit {
			continue
		}
		c := cand{d, commonPrefix(key, k.key), k.index}
		if old, ok := best[k.index]; !ok || c.dist < old.dist || c.dist == old.dist && c.prefix > old.prefix {
			best[k.index] = c
		}
	}
	cands := make([]cand, 0, len(best))
	for _, c := range best {
		cands = append(cands, c)
	}
	slices.SortFunc(cands, func(a, b cand) int {
		if a.dist != b.dist {
			return a.dist - b.dist
		}
		if a.prefix != b.prefix {
			return b.prefix - a.prefix
		}
		return a.index - b.index
	})
	var out []string
	for _, c := range cands {
		if len(out) == 3 || c.dist > cands[0].dist+1 {
			break
		}
		out = append(out, id(c.index))
	}
	return out
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// editRows is the scratch space of distance, reused across keys.
type EditRows struct{ prev2, prev, cur []int }

// distance is the optimal-string-alignment distance between a and b
// (insertions, deletions, substitutions and adjacent transpositions),
// giving up with limit+1 once the length difference alone exceeds limit.
func (w *EditRows) Distance(a, b string, limit int) int {
	if d := len(a) - len(b); d > limit || -d > limit {
		return limit + 1
	}
	n := len(b) + 1
	if cap(w.cur) < n {
		w.prev2, w.prev, w.cur = make([]int, n), make([]int, n), make([]int, n)
	}
	prev2, prev, cur := w.prev2[:n], w.prev[:n], w.cur[:n]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// keyBuf is the stack buffer for lookup keys; longer names still work,
// they just allocate.
const keyBuf = 96

// maxTokens bounds the words a name may have; longer input matches nothing.
const maxTokens = 24

// gpuKey appends the lookup key of a GPU name to dst: lower-case letters
// and digits only, vendor and product-line words dropped (nvidia,
// geforce, tesla, amd, instinct, apple, radeon), and "GB" after a number
// dropped ("24GB" and "24 gb" both become "24").
func gpuKey(dst []byte, s string) []byte { return appendCatalogKey(dst, s, false) }

// modelKey appends the lookup key of a model name to dst: the part after
// the last "/" (the Hugging Face organisation is dropped), lower-case
// letters and digits only, a leading "meta" dropped ("Meta-Llama-3-8B"),
// and the words instruct, chat, it, hf and base dropped after the first.
func modelKey(dst []byte, s string) []byte {
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		s = s[i+1:]
	}
	return appendCatalogKey(dst, s, true)
}

// dropWord reports whether the t-th of n lower-cased words is noise in a
// GPU (model false) or model name.
func dropWord(w []byte, t, n int, model bool) bool {
	if n == 1 {
		return false
	}
	if !model {
		switch string(w) {
		case "nvidia", "geforce", "tesla", "amd", "instinct", "apple", "radeon":
			return true
		}
		return false
	}
	if t == 0 {
		return string(w) == "meta"
	}
	switch string(w) {
	case "instruct", "chat", "it", "hf", "base":
		return true
	}
	return false
}

// appendCatalogKey splits s into runs of ASCII letters and digits, lower-cases
// them, drops noise words (dropWord), turns "<n>gb" and "<n> gb" into
// "<n>", and appends the rest without separators.
func appendCatalogKey(dst []byte, s string, model bool) []byte {
	var spans [maxTokens][2]int
	n := 0
	for i := 0; i < len(s); {
		if !isAlnum(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isAlnum(s[j]) {
			j++
		}
		if n == maxTokens {
			return dst
		}
		spans[n] = [2]int{i, j}
		n++
		i = j
	}
	var low [16]byte
	for t := 0; t < n; t++ {
		tok := s[spans[t][0]:spans[t][1]]
		if len(tok) <= len(low) {
			w := low[:len(tok)]
			for k := range len(tok) {
				w[k] = lower(tok[k])
			}
			if dropWord(w, t, n, model) {
				continue
			}
			if string(w) == "gb" && t > 0 && IsDigits(s[spans[t-1][0]:spans[t-1][1]]) {
				continue
			}
		}
		if len(tok) > 2 && strings.EqualFold(tok[len(tok)-2:], "gb") && IsDigits(tok[:len(tok)-2]) {
			tok = tok[:len(tok)-2]
		}
		for k := range len(tok) {
			dst = append(dst, lower(tok[k]))
		}
	}
	return dst
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func IsDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
