package llm

import (
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxNameBytes caps a model or GPU name taken from the model's reply.
const maxNameBytes = 64

// command turns the extracted fields into the words of a fit command, in
// the parser's own vocabulary, so that reading.Parse validates them like
// typed input: unknown names get its "did you mean", impossible numbers
// its bounds. Nothing is checked or dropped here except characters a name
// cannot contain; a field left unspecified adds no word.
func (x extraction) command() string {
	var w []string
	add := func(s ...string) { w = append(w, s...) }
	switch model := name(x.Model); {
	case model != "":
		add(model)
	case x.ParamsBillions != 0 && x.Experts != 0:
		add(strconv.Itoa(x.Experts) + "x" + billions(x.ParamsBillions))
	case x.ParamsBillions != 0:
		add(billions(x.ParamsBillions))
	}
	for _, v := range []string{x.Method, x.Optimizer, x.Precision, x.Quant} {
		if v != unspecified && v != "" {
			add(v)
		}
	}
	add(x.hardware()...)
	if x.ZeROStage != unspecified && x.ZeROStage != "" {
		add("zero" + x.ZeROStage)
	}
	switch x.Offload {
	case "cpu":
		add("offload-cpu")
	case "nvme":
		add("offload-nvme")
	case "none":
		add("no-offload")
	}
	if x.SeqLen != 0 {
		add("seq", strconv.Itoa(x.SeqLen))
	}
	if x.MicroBatch != 0 {
		add("batch", strconv.Itoa(x.MicroBatch))
	}
	switch x.GradCkpt {
	case "on":
		add("ckpt")
	case "off":
		add("no-ckpt")
	}
	if x.LoRARank != 0 {
		add("rank", strconv.Itoa(x.LoRARank))
	}
	if x.Tokens != 0 {
		add(strconv.FormatInt(x.Tokens, 10), "tokens")
	}
	return strings.Join(w, " ")
}

// hardware is the GPU part in the form sizing.Format writes: "16 x H100
// 2 nodes", "2 x RTX 4090", "RTX 4090" or, with no GPU named, "4 gpus".
func (x extraction) hardware() []string {
	var w []string
	switch gpu := name(x.GPU); {
	case gpu != "" && x.GPUs != 0:
		w = append(w, strconv.Itoa(x.GPUs), "x", gpu)
	case gpu != "":
		w = append(w, gpu)
	case x.GPUs != 0:
		w = append(w, strconv.Itoa(x.GPUs), "gpus")
	}
	if x.Nodes != 0 {
		w = append(w, strconv.Itoa(x.Nodes), "nodes")
	}
	return w
}

// billions writes a bare size in the parser's notation: 13 → "13b",
// 0.35 → "0.35b", 1e30 → "1e30b". Absurd values stay absurd for the
// parser to reject; the exponent loses its "+", which the parser reads as
// a separator.
func billions(b float64) string {
	if a := math.Abs(b); a >= 1e-3 && a < 1e6 {
		return strconv.FormatFloat(b, 'f', -1, 64) + "b"
	}
	return strings.Replace(strconv.FormatFloat(b, 'e', -1, 64), "e+", "e", 1) + "b"
}

// name keeps the characters a model or GPU name can have (letters,
// digits, "." "-" "_" "/" and spaces), folds the rest to spaces and caps
// the length, so that a name is one or a few plain words.
func name(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune(".-_/", r) {
			return r
		}
		return ' '
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > maxNameBytes {
		cut := maxNameBytes
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = strings.TrimSpace(s[:cut])
	}
	return s
}
