package sizing

import (
	"encoding/json"
	"strings"
)

// Encoders beyond BERT: RoBERTa and XLM-RoBERTa (bge-m3,
// multilingual-e5, bge-reranker-v2-m3) are BERT's shape with one token
// type and a position table offset by the padding index, so that
// max_position_embeddings - 2 tokens are usable. A sequence classifier
// (a reranker) has RobertaClassificationHead in place of the pooler:
// the same hidden×hidden dense layer, then out_proj to its labels.

func init() {
	for _, mt := range []string{"roberta", "xlm-roberta"} {
		familyReaders[mt] = true
	}
}

// roberta reads a RoBERTa or XLM-RoBERTa config.
func (r *configReader) roberta(mt string) (Model, []string) {
	m := r.bert()
	m.Family = mt
	m.MaxContext = max(m.PositionEmbeddings-2, 1)
	if !r.classifier() {
		return m, nil
	}
	labels := 2 // transformers' PretrainedConfig default
	if v, ok := r.cfg["id2label"]; ok {
		var ids map[string]string
		if json.Unmarshal(v, &ids) == nil && len(ids) > 0 {
			labels = len(ids)
		}
	}
	h := int64(m.Hidden)
	m.ExtraParams = h*int64(labels) + int64(labels)
	m.ExtraParamsNote = "the classification head's out_proj (a reranker's score)"
	return m, []string{"a sequence classifier (reranker): its head's dense layer is counted where the pooler would be, its out_proj beside it"}
}

// classifier reports whether config.json's architectures are a sequence
// classifier (a cross-encoder reranker).
func (r *configReader) classifier() bool {
	var archs []string
	if v, ok := r.cfg["architectures"]; ok {
		_ = json.Unmarshal(v, &archs) // a malformed list changes no count
	}
	for _, a := range archs {
		if strings.HasSuffix(a, "ForSequenceClassification") {
			return true
		}
	}
	return false
}
