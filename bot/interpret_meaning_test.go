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

	"github.com/fitbot/fitbot/llm"
)

// fakeOpenAI is an OpenAI-compatible Chat Completions endpoint that
// replays a recorded reply from testdata/openai with its status, and
// keeps the questions it was asked (the user message of each request).
type fakeOpenAI struct {
	*httptest.Server
	mu        sync.Mutex
	questions []string
}

func newFakeOpenAI(t *testing.T, status int, file string) *fakeOpenAI {
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

// interpreter is llm's client pointed at f.
func (f *fakeOpenAI) interpreter() Interpreter {
	return llm.New(llm.Config{BaseURL: f.URL + "/v1", APIKey: "sk-test", Timeout: 2 * time.Second}, f.Client(), nil)
}

// TestMeaningWordsAskTheLanguageModelOverHTTP: when the grammar reads a
// question but leaves words that look like they carry meaning, a
// configured language model is asked too; what it reads is added (checked
// by the parser) and the answer is marked as interpreted. Chat left over
// asks it nothing; without a model, or when it fails, the grammar's
// answer names the words as not used (issue #31).
func TestMeaningWordsAskTheLanguageModelOverHTTP(t *testing.T) {
	const q = "llama 3.1 8b lora on a 4090 with paged optimizers"

	model := newFakeOpenAI(t, http.StatusOK, "paged_optimizers.json")
	c := newConversation(t, func(cfg *Config) { cfg.Interpreter = model.interpreter() })
	got := c.mention(q)
	wantIn(t, "@fitbot "+q, got, "Interpreted by the language model",
		`interpreted by the language model: \"paged\", \"optimizers\" read as \"adamw-8bit\"; `, "lora adamw-8bit")
	wantNotIn(t, "@fitbot "+q, got, "not used")
	if model.asked() != 1 {
		t.Errorf("the model was asked %d times, want once", model.asked())
	}

	rurl := newResponseURL(t)
	ack := c.slashTo(q, rurl.URL+"/r")
	wantIn(t, "/fit "+q, ack, "Interpreting your question")
	posted := rurl.posted(t)
	if len(posted) != 1 || !posted[0].ReplaceOriginal {
		t.Fatalf("posted %+v, want the interpreted answer in place of the acknowledgement", posted)
	}
	wantIn(t, "/fit "+q+" (late)", posted[0].Text+string(mustJSON(t, posted[0].Blocks)), "Interpreted by the language model", "read as")

	got = c.mention("llama 3.1 8b lora on a 4090 lol pls 🙏")
	wantNotIn(t, "@fitbot ... lol", got, "Interpreted", "not used")
	if model.asked() != 2 {
		t.Errorf("chat asked the model: %d questions, want 2", model.asked())
	}

	for name, change := range map[string]func(*Config){
		"no language model": nil,
		"the model fails": func(cfg *Config) {
			cfg.Interpreter = newFakeOpenAI(t, http.StatusInternalServerError, "error_500.json").interpreter()
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
