package sizing

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestWhisperConfigCount: WhisperForConditionalGeneration's count from
// whisper-large-v3's config.json is the Hub's 1,543,490,560.
func TestWhisperConfigCount(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "families", "whisper-large-v3.json"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := ModelFromConfig(data, "openai/whisper-large-v3")
	if err != nil {
		t.Fatal(err)
	}
	if total, _ := m.ParamCount(); total != 1_543_490_560 {
		t.Errorf("whisper-large-v3: %d parameters, want 1543490560", total)
	}
	if m.Architecture() != ArchEncoderDecoder || m.EncoderSeq != 1500 || m.MaxContext != 448 {
		t.Errorf("whisper-large-v3: %s, %d frames, %d tokens", m.Architecture(), m.EncoderSeq, m.MaxContext)
	}
}

// TestWhisperCountsMatchHub: the catalog's Whisper and Distil-Whisper
// counts are transformers' exact ones (the Hub's safetensors totals;
// public tables list tiny 37,760,640, base 72,593,920, small 241,734,912,
// medium 763,857,920, large-v2 1,543,304,960).
func TestWhisperCountsMatchHub(t *testing.T) {
	for id, want := range map[string]int64{
		"whisper-tiny": 37_760_640, "whisper-base": 72_593_920, "whisper-small": 241_734_912,
		"whisper-medium": 763_857_920, "whisper-large-v2": 1_543_304_960, "whisper-large-v3": 1_543_490_560,
	} {
		m, _, err := LookupModel(id)
		if err != nil {
			t.Fatal(err)
		}
		if total, _ := m.ParamCount(); total != want {
			t.Errorf("%s: %d parameters, want %d", id, total, want)
		}
	}
}

// TestWhisperPublishedVRAM sizes Whisper large-v2 as faster-whisper's
// README measured it (SYSTRAN/faster-whisper README, "Large-v2 model on
// GPU": 13 minutes of audio, beam 5, RTX 3070 Ti 8GB, MiB as nvidia-smi
// reports): transformers (SDPA) fp16 4960, faster-whisper fp16 4525, int8
// 2926, and with batch_size=8 fp16 6090, int8 4500. fitbot's batch is
// clips at once; beams add only decoder self-attention KV, not counted.
//
// Tolerances: 10 % at one clip, where the terms are the weights, the
// cross-attention KV over 1,500 frames and a CUDA context (fitbot's
// 1.3 GB, measured for PyTorch on a V100, is a little above an inference
// engine's); 30 % at 8 clips, where fitbot caches 448 decoder tokens per
// clip and encodes all 8 clips at once, and the measured pipeline decodes
// far shorter segments.
func TestWhisperPublishedVRAM(t *testing.T) {
	tests := []struct {
		name  string
		quant Quant
		batch int
		mib   float64
		tol   float64
	}{
		{"transformers SDPA fp16", QuantNone, 1, 4960, 0.10},
		{"faster-whisper fp16", QuantNone, 1, 4525, 0.10},
		{"faster-whisper int8", QuantINT8, 1, 2926, 0.10},
		{"faster-whisper fp16 batch 8", QuantNone, 8, 6090, 0.30},
		{"faster-whisper int8 batch 8", QuantINT8, 8, 4500, 0.30},
	}
	e := &Estimator{}
	for _, tt := range tests {
		a, err := e.Answer(Query{Model: "whisper-large-v2", Method: MethodInference, Precision: PrecisionFP16, Quant: tt.quant,
			GPU: "rtx-3070", MicroBatch: tt.batch})
		if err != nil {
			t.Fatal(err)
		}
		got := float64(a.PerGPU.TotalBytes) / (1 << 20)
		if math.Abs(got-tt.mib)/tt.mib > tt.tol {
			t.Errorf("%s: %.0f MiB, published %.0f (tolerance %.0f%%)", tt.name, got, tt.mib, tt.tol*100)
		}
		if a.Request.Architecture != ArchEncoderDecoder || a.Request.SeqLen != 448 {
			t.Errorf("%s: %s at %d tokens, want encoder-decoder at Whisper's 448", tt.name, a.Request.Architecture, a.Request.SeqLen)
		}
	}
}

// TestWhisperAudioRateAndKVWords: a Whisper answer says how many hours of
// audio an hour it transcribes (about 19 on a T4, one clip
// at a time), and its KV line gives the decoder's 160 KiB per text token
// and the 234.38 MiB cross-attention KV per clip apart, not one 234.53 MiB
// "per token".
func TestWhisperAudioRateAndKVWords(t *testing.T) {
	p, err := Parse("whisper large v3 on a t4, how many hours of audio per hour")
	if err != nil {
		t.Fatal(err)
	}
	a, err := (&Estimator{}).Answer(p.Query)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Warnings) == 0 || !strings.HasPrefix(a.Warnings[0], "audio: about ") || !strings.Contains(a.Warnings[0], "hours of audio an hour") {
		t.Errorf("warnings %q; want the audio rate first", a.Warnings)
	}
	var rate float64
	if _, err := fmt.Sscanf(a.Warnings[0], "audio: about %f hours", &rate); err != nil || rate < 10 || rate > 30 {
		t.Errorf("audio rate %v (%v); want 10 to 30 hours an hour on a T4", rate, err)
	}
	if !anyHasPrefix(a.Assumptions, "KV cache in fp16: 160 KiB per text token of the decoder's own attention (all layers, one clip), plus 234.38 MiB per clip for the cross-attention over its 1,500 encoder frames") {
		t.Errorf("assumptions %q; want the KV per text token and per clip apart", a.Assumptions)
	}
	p, _ = Parse("whisper large-v2 int8 batch 8 rtx-3070")
	if a, err := (&Estimator{}).Answer(p.Query); err != nil || !slices.Contains(a.Warnings, "hours of audio an hour are sized at batch 1 only (one 30 s clip at a time)") {
		t.Errorf("batch 8: %v, warnings %q; want the rate said unsized", err, a.Warnings)
	}
}
