package bot

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// postedToChannel is one chat.postMessage call as Slack received it.
type postedToChannel struct {
	Channel  string
	Text     string
	ThreadTS string
	Blocks   []json.RawMessage
}

// postRecorder is a recording chat.postMessage endpoint: it keeps every
// call's form and answers from its script, one reply per call (the last
// one repeating), with the payloads Slack sends (testdata/slack).
type postRecorder struct {
	mu     sync.Mutex
	posts  []postedToChannel
	auth   []string // the token of every call
	script []scriptedReply
}

// scriptedReply is one answer of the fake: a status, headers and a body file.
type scriptedReply struct {
	status int
	header map[string]string
	file   string
}

var replyOK = scriptedReply{status: http.StatusOK, file: "chat_postMessage_ok.json"}

func newPostRecorder(script ...scriptedReply) *postRecorder {
	if len(script) == 0 {
		script = []scriptedReply{replyOK}
	}
	return &postRecorder{script: script}
}

func (p *postRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	form, err := url.ParseQuery(string(body))
	if err != nil {
		http.Error(w, "bad form", http.StatusBadRequest)
		return
	}
	post := postedToChannel{Channel: form.Get("channel"), Text: form.Get("text"), ThreadTS: form.Get("thread_ts")}
	if b := form.Get("blocks"); b != "" {
		if err := json.Unmarshal([]byte(b), &post.Blocks); err != nil {
			http.Error(w, "bad blocks", http.StatusBadRequest)
			return
		}
	}
	p.mu.Lock()
	reply := p.script[min(len(p.auth), len(p.script)-1)]
	token := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	if token == "" {
		token = form.Get("token") // slack-go sends the token in the form
	}
	p.auth = append(p.auth, token)
	if reply.status == http.StatusOK {
		p.posts = append(p.posts, post)
	}
	p.mu.Unlock()
	for k, v := range reply.header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(reply.status)
	if reply.file != "" {
		data, err := os.ReadFile("testdata/slack/" + reply.file)
		if err != nil {
			panic(err)
		}
		w.Write(data)
	}
}

// calls is how many times chat.postMessage was called; posted the calls
// that succeeded.
func (p *postRecorder) calls() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.auth)
}

func (p *postRecorder) posted() []postedToChannel {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]postedToChannel(nil), p.posts...)
}

// eventually polls cond every few milliseconds for up to five seconds.
func eventually(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 5s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitPosts waits until n posts arrived or the test's patience runs out.
func (p *postRecorder) waitPosts(t *testing.T, n int) []postedToChannel {
	t.Helper()
	eventually(t, func() bool { return len(p.posted()) >= n })
	return p.posted()
}
