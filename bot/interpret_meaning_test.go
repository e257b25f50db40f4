package bot

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fitbot/fitbot/answer"
	"github.com/fitbot/fitbot/llm"
)

// fakeOpenAI is an OpenAI-compatible Chat Completions endpoint that
// replays a recorded reply from testdata/openai (SOURCE.md says where
// each shape comes from) with its status, after delay, and keeps the
// questions it was asked (the user message of each request).
type fakeOpenAI struct {
	*httptest.Server
	mu        sync.Mutex
	questions []string
}

func newFakeOpenAI(t *testing.T, status int, file string, delay time.Duration) *fakeOpenAI {
	t.Helper()
	body := readTestdata(t, "../openai/"+file)
	f := &fakeOpenAI{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer sk-test" {
			t.Errorf("language model asked %s %s (auth %q), want POST /v1/chat/completions with the key", r.Method, r.URL.Path, r.Header.Get("Authorization"))
		}
		var req struct {
			Messages []struct{ Role, Content string } `json:"messages"`
		}
		raw, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(raw, &req); err != nil || len(req.Messages) == 0 {
			t.Errorf("request body %s: %v", raw, err)
		} else {
			f.mu.Lock()
			f.questions = append(f.questions, req.Messages[len(req.Messages)-1].Content)
			f.mu.Unlock()
		}
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		w.Write(body)
	}))
	t.Cleanup(f.Close)
	return f
}

// asked is how many questions the model was asked.
func (f *fakeOpenAI) asked() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.questions)
}

// reader is llm's reader of fitbot's request pointed at f, as
// cmd/fitbot wires it for both faces.
func (f *fakeOpenAI) reader(t *testing.T) answer.ModelReader {
	t.Helper()
	r, err := llm.NewRequestReader(llm.New(llm.Config{BaseURL: f.URL + "/v1", APIKey: "sk-test", Timeout: 500 * time.Millisecond}, f.Client(), nil))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestMeaningWordsAskTheLanguageModelOverHTTP: when the grammar reads a
// question but leaves words that look like they carry meaning, a
// configured language model is asked too, through answer.Service as on
// the command line; what it reads is added (checked by reading.Validate)
// and the answer is marked as interpreted, whichever shape the server
// replies in. Chat left over asks it nothing; without a model the
// grammar's answer names the words as not used; when the model fails
// (5xx, a refusal, a reply that is not the schema, a timeout) the asker
// is told it was unavailable and gets the grammar's answer.
func TestMeaningWordsAskTheLanguageModelOverHTTP(t *testing.T) {
	const q = "llama 3.1 8b lora on a 4090 with paged optimizers"

	for _, shape := range []string{"paged_optimizers.json", "paged_optimizers_ollama_fenced.json", "paged_optimizers_vllm_think.json"} {
		model := newFakeOpenAI(t, http.StatusOK, shape, 0)
		c := newConversation(t, func(cfg *Config) { cfg.ModelReader = model.reader(t) })
		got := c.mention(q)
		wantIn(t, shape+": @fitbot "+q, got, "Interpreted by the language model",
			`interpreted by the language model: \"paged\", \"optimizers\" read as \"adamw-8bit\"`, "lora adamw-8bit")
		wantNotIn(t, shape+": @fitbot "+q, got, "not used", "unavailable")
		if model.asked() != 1 {
			t.Errorf("%s: the model was asked %d times, want once", shape, model.asked())
		}
	}

	model := newFakeOpenAI(t, http.StatusOK, "paged_optimizers.json", 0)
	c := newConversation(t, func(cfg *Config) { cfg.ModelReader = model.reader(t) })
	rurl := newResponseURL(t)
	ack := c.slashTo(q, rurl.URL+"/r")
	wantIn(t, "/fit "+q, ack, "Interpreting your question")
	posted := rurl.posted(t)
	if len(posted) != 1 || !posted[0].ReplaceOriginal {
		t.Fatalf("posted %+v, want the interpreted answer in place of the acknowledgement", posted)
	}
	wantIn(t, "/fit "+q+" (late)", posted[0].Text+string(mustJSON(t, posted[0].Blocks)), "Interpreted by the language model", "read as")

	got := c.mention("llama 3.1 8b lora on a 4090 lol pls 🙏")
	wantNotIn(t, "@fitbot ... lol", got, "Interpreted", "not used")
	if model.asked() != 1 {
		t.Errorf("chat asked the model: %d questions, want 1", model.asked())
	}

	for name, change := range map[string]func(*Config){
		"no language model": nil,
		"the model answers 500": func(cfg *Config) {
			cfg.ModelReader = newFakeOpenAI(t, http.StatusInternalServerError, "error_500.json", 0).reader(t)
		},
		"the model refuses": func(cfg *Config) {
			cfg.ModelReader = newFakeOpenAI(t, http.StatusOK, "refusal.json", 0).reader(t)
		},
		"the model replies another schema": func(cfg *Config) {
			cfg.ModelReader = newFakeOpenAI(t, http.StatusOK, "old_schema.json", 0).reader(t)
		},
		"the model times out": func(cfg *Config) {
			cfg.ModelReader = newFakeOpenAI(t, http.StatusOK, "paged_optimizers.json", 5*time.Second).reader(t)
		},
	} {
		c := newConversation(t, change)
		got := c.mention(q)
		wantIn(t, name, got, `not used: \"paged\", \"optimizers\"`, "LoRA")
		wantNotIn(t, name, got, "Interpreted")
		// The asker is told when the model was asked and could not help.
		if told := strings.Contains(got, "The language model was unavailable"); told != (change != nil) {
			t.Errorf("%s: says the model was unavailable: %v, want %v\n%s", name, told, change != nil, got)
		}
	}
}

// TestModelFailureOnAQuestionTheGrammarCannotRead: with the model
// configured and failing, a question with nothing to size gets the help
// (which does not ask to configure the model, since it is configured)
// and is told the model was unavailable; one the model asks back about
// gets its question.
func TestModelFailureOnAQuestionTheGrammarCannotRead(t *testing.T) {
	const q = "can we handle the new checkpoint"
	c := newConversation(t, func(cfg *Config) {
		cfg.ModelReader = newFakeOpenAI(t, http.StatusInternalServerError, "error_500.json", 0).reader(t)
	})
	got := c.mention(q)
	wantIn(t, q, got, "The language model was unavailable", "interpreted by a language model")
	wantNotIn(t, q, got, "OPENAI_API_KEY", "Interpreted by the language model")

	c = newConversation(t, func(cfg *Config) {
		cfg.ModelReader = fakeReader{err: &answer.NotUnderstood{QuestionBack: "Which checkpoint, and on which GPUs?"}}
	})
	got = c.mention(q)
	wantIn(t, q, got, "Which checkpoint, and on which GPUs?")
	wantNotIn(t, q, got, "unavailable")
}

// TestThreadFollowUpAsksTheLanguageModel: a follow-up the grammar cannot
// read in a thread goes to the configured model with the thread's
// request, whose reading of it as a change is answered in the thread;
// when the model fails, the asker is told.
func TestThreadFollowUpAsksTheLanguageModel(t *testing.T) {
	model := newFakeOpenAI(t, http.StatusOK, "paged_optimizers.json", 0)
	c := newConversation(t, func(cfg *Config) { cfg.ModelReader = model.reader(t) })
	c.mention("llama 3.1 8b lora on a 4090")
	if model.asked() != 0 {
		t.Fatalf("a question the grammar read whole asked the model %d times", model.asked())
	}
	got := c.threadReply(c.events, "and with paged optimizers?")
	wantIn(t, "follow-up", got, "interpreted by the language model as a change to the thread's question (llama-3.1-8b lora rtx-4090)",
		"Interpreted by the language model", "lora adamw-8bit rtx-4090")
	if model.asked() != 1 || !strings.Contains(model.questions[0], "in the thread of fitbot's answer") ||
		!strings.Contains(model.questions[0], `"model":"llama-3.1-8b"`) {
		t.Errorf("the model was asked %d times, want once with the thread's request:\n%q", model.asked(), model.questions)
	}
	c = newConversation(t, func(cfg *Config) {
		cfg.ModelReader = newFakeOpenAI(t, http.StatusInternalServerError, "error_500.json", 0).reader(t)
	})
	c.mention("llama 3.1 8b lora on a 4090")
	got = c.threadReply(c.events, "and with paged optimizers?")
	wantIn(t, "follow-up, model down", got, "I didn't catch that", "The language model was unavailable")
}
