package bot

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/slack-go/slack"
	"github.com/slack-go/slack/slackevents"

	"github.com/fitbot/fitbot/digest"
	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/reading"
)

// fileFake is Slack's upload flow over loopback: files.getUploadURLExternal
// hands out an upload URL on the same server, the upload URL takes the
// multipart bytes, files.completeUploadExternal shares the file; it
// records each call and replies from testdata/slack (FILES_SOURCES.md).
// chat.postMessage is the postRecorder's.
type fileFake struct {
	srv           *httptest.Server
	rec           *postRecorder
	getReply      string
	completeReply string

	mu        sync.Mutex
	gets      []url.Values
	uploads   [][]byte
	completes []url.Values
}

func newFileFake(t *testing.T, getReply, completeReply string) *fileFake {
	t.Helper()
	f := &fileFake{rec: newPostRecorder(), getReply: getReply, completeReply: completeReply}
	mux := http.NewServeMux()
	mux.Handle("/api/chat.postMessage", f.rec)
	mux.HandleFunc("/api/files.getUploadURLExternal", func(w http.ResponseWriter, r *http.Request) {
		f.record(r, &f.gets)
		body := strings.ReplaceAll(string(readSlackFile(t, f.getReply)), "UPLOAD_URL", f.srv.URL+"/upload/F0FITCHART1")
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
	})
	mux.HandleFunc("/upload/F0FITCHART1", func(w http.ResponseWriter, r *http.Request) {
		mr, err := r.MultipartReader()
		if err != nil {
			http.Error(w, "not multipart", http.StatusBadRequest)
			return
		}
		var data []byte
		for {
			part, err := mr.NextPart()
			if err != nil {
				break
			}
			if part.FormName() == "file" {
				data, _ = io.ReadAll(part)
			}
		}
		f.mu.Lock()
		f.uploads = append(f.uploads, data)
		f.mu.Unlock()
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintf(w, "OK - %d", len(data))
	})
	mux.HandleFunc("/api/files.completeUploadExternal", func(w http.ResponseWriter, r *http.Request) {
		form := f.record(r, &f.completes)
		body := string(readSlackFile(t, f.completeReply))
		var files []slack.FileSummary
		if json.Unmarshal([]byte(form.Get("files")), &files) == nil && len(files) == 1 {
			body = strings.ReplaceAll(body, "TITLE", files[0].Title)
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
	})
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fileFake) record(r *http.Request, into *[]url.Values) url.Values {
	body, _ := io.ReadAll(r.Body)
	form, _ := url.ParseQuery(string(body))
	f.mu.Lock()
	*into = append(*into, form)
	f.mu.Unlock()
	return form
}

func (f *fileFake) calls() (gets, uploads, completes int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.gets), len(f.uploads), len(f.completes)
}

func readSlackFile(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/slack/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func (f *fileFake) client() *slack.Client {
	return NewSlackClient("xoxb-test-bot-token", "", f.srv.URL+"/api", f.srv.Client())
}

func (f *fileFake) uploader(t *testing.T, m *Metrics) *Uploader {
	t.Helper()
	return NewUploader(f.client(), m)
}

// TestUploaderFlow uploads a file into a thread and checks both Slack
// calls and the bytes in between; an error from either call is returned
// with the step that failed and counted.
func TestUploaderFlow(t *testing.T) {
	data := []byte("\x89PNG fake picture bytes")
	tests := []struct {
		name, get, complete string
		wantErr             string
		wantCalls           [3]int
	}{
		{"both calls succeed", "files_getUploadURLExternal_ok.json", "files_completeUploadExternal_ok.json", "", [3]int{1, 1, 1}},
		{"getUploadURLExternal fails", "files_getUploadURLExternal_error.json", "files_completeUploadExternal_ok.json", "files.getUploadURLExternal of memory.png to C0FITBOT: GetUploadURLExternal: invalid_arguments", [3]int{1, 0, 0}},
		{"completeUploadExternal fails", "files_getUploadURLExternal_ok.json", "files_completeUploadExternal_not_in_channel.json", "files.completeUploadExternal of memory.png to C0FITBOT: CompleteUploadExternal: not_in_channel", [3]int{1, 1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFileFake(t, tt.get, tt.complete)
			m := NewMetrics()
			err := fake.uploader(t, m).Upload(context.Background(), File{
				Channel: "C0FITBOT", ThreadTS: "1764464400.000200", Name: "memory.png", Title: "Fits: 9.1 of 23.6 GiB",
				AltText: "Memory per GPU", Data: data,
			})
			if gotErr := fmt.Sprint(err); (tt.wantErr == "") != (err == nil) || (err != nil && gotErr != tt.wantErr) {
				t.Fatalf("Upload error %v, want %q", err, tt.wantErr)
			}
			g, u, c := fake.calls()
			if [3]int{g, u, c} != tt.wantCalls {
				t.Fatalf("calls get/upload/complete = %d/%d/%d, want %v", g, u, c, tt.wantCalls)
			}
			get := fake.gets[0]
			if get.Get("filename") != "memory.png" || get.Get("length") != fmt.Sprint(len(data)) || get.Get("alt_txt") != "Memory per GPU" {
				t.Errorf("getUploadURLExternal form %v", get)
			}
			if u == 1 && !bytes.Equal(fake.uploads[0], data) {
				t.Errorf("uploaded %q, want %q", fake.uploads[0], data)
			}
			if c == 1 {
				done := fake.completes[0]
				if done.Get("channel_id") != "C0FITBOT" || done.Get("thread_ts") != "1764464400.000200" ||
					!strings.Contains(done.Get("files"), `"id":"F0FITCHART1"`) || !strings.Contains(done.Get("files"), "Fits: 9.1 of 23.6 GiB") {
					t.Errorf("completeUploadExternal form %v", done)
				}
			}
		})
	}
}

func TestUploaderRefusesEmptyFiles(t *testing.T) {
	fake := newFileFake(t, "files_getUploadURLExternal_ok.json", "files_completeUploadExternal_ok.json")
	if err := fake.uploader(t, nil).Upload(context.Background(), File{Channel: "C1", Name: "x.png"}); err == nil {
		t.Error("an empty file uploaded")
	}
	if g, _, _ := fake.calls(); g != 0 {
		t.Errorf("%d calls for an empty file", g)
	}
}

// TestEventAnswerCarriesItsPicture: a mention's answer is posted in the
// thread, then its memory picture is uploaded into the same thread; when
// the upload fails the text answer is there all the same.
func TestEventAnswerCarriesItsPicture(t *testing.T) {
	for _, tt := range []struct {
		name, get, complete string
		wantCalls           [3]int
		wantMetric          string // the failure counted, "" for none
	}{
		{"uploaded", "files_getUploadURLExternal_ok.json", "files_completeUploadExternal_ok.json", [3]int{1, 1, 1}, ""},
		{"completeUploadExternal fails", "files_getUploadURLExternal_ok.json", "files_completeUploadExternal_not_in_channel.json", [3]int{1, 1, 1},
			`fitbot_slack_api_errors_total{kind="client",method="files.completeUploadExternal"} 1`},
		{"getUploadURLExternal fails", "files_getUploadURLExternal_error.json", "files_completeUploadExternal_ok.json", [3]int{1, 0, 0},
			`fitbot_slack_api_errors_total{kind="client",method="files.getUploadURLExternal"} 1`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFileFake(t, tt.get, tt.complete)
			m := NewMetrics()
			f := newEventsFixture(t, func(c *Config) { c.Upload = fake.uploader(t, m) })
			f.deliver(t, "app_mention_thread.json")
			f.h.Wait()
			posts := f.rec.posted()
			if len(posts) != 1 || !strings.Contains(posts[0].Text, "Fits") {
				t.Fatalf("posts %+v, want the text answer", posts)
			}
			g, u, c := fake.calls()
			if [3]int{g, u, c} != tt.wantCalls {
				t.Fatalf("calls get/upload/complete = %d/%d/%d, want %v", g, u, c, tt.wantCalls)
			}
			w := httptest.NewRecorder()
			m.Handler().ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
			exposition := w.Body.String()
			if tt.wantMetric != "" && !strings.Contains(exposition, tt.wantMetric) {
				t.Errorf("metrics lack %s", tt.wantMetric)
			}
			if tt.wantMetric == "" && strings.Contains(exposition, `method="files.`) {
				t.Errorf("a successful upload counted as a failure")
			}
			if u == 0 {
				return
			}
			img, err := png.Decode(bytes.NewReader(fake.uploads[0]))
			if err != nil {
				t.Fatalf("the uploaded picture is not a PNG: %v", err)
			}
			if img.Bounds().Dx() < 600 {
				t.Errorf("picture %v too small for a phone", img.Bounds())
			}
			done := fake.completes[0]
			if done.Get("channel_id") != posts[0].Channel || done.Get("thread_ts") != posts[0].ThreadTS {
				t.Errorf("picture shared to %s/%s, the answer is in %s/%s", done.Get("channel_id"), done.Get("thread_ts"), posts[0].Channel, posts[0].ThreadTS)
			}
		})
	}
}

// TestLaunchConfigButton presses "Launch config" on an ephemeral answer
// (the config comes back as text, beside the answer) and on an answer in
// a channel thread (a snippet uploaded into the thread; when the upload
// fails, the text, saying so).
func TestLaunchConfigButton(t *testing.T) {
	for _, tt := range []struct {
		name, payload, complete string
		wantUpload              bool
		wantText                string
	}{
		{"ephemeral answer", "block_actions.json", "files_completeUploadExternal_ok.json", false, "train_micro_batch_size_per_gpu"},
		{"answer in a thread", "block_actions_channel.json", "files_completeUploadExternal_ok.json", true, ""},
		{"upload fails", "block_actions_channel.json", "files_completeUploadExternal_not_in_channel.json", true, "The file upload to this thread failed"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFileFake(t, "files_getUploadURLExternal_ok.json", tt.complete)
			h := newTestHandler(t, func(c *Config) { c.Upload = fake.uploader(t, nil) })
			rurl := newResponseURL(t)
			var cb slack.InteractionCallback
			payload := strings.NewReplacer("ACTION_ID", ActionLaunch, "ACTION_VALUE", "q:llama-3.1-8b qlora rtx-4090", "RESPONSE_URL", rurl.URL+"/actions/T1/1/x").
				Replace(string(readSlackFile(t, tt.payload)))
			if err := json.Unmarshal([]byte(payload), &cb); err != nil {
				t.Fatal(err)
			}
			h.Interaction(context.Background(), cb)
			h.Wait()
			_, _, c := fake.calls()
			if (c == 1) != tt.wantUpload {
				t.Fatalf("%d completeUploadExternal calls, want upload %v", c, tt.wantUpload)
			}
			if tt.wantUpload {
				done := fake.completes[0]
				if done.Get("thread_ts") != "1764464400.000200" || done.Get("channel_id") != "C0FITBOT" {
					t.Errorf("snippet shared to %s/%s, want the answer's thread C0FITBOT/1764464400.000200", done.Get("channel_id"), done.Get("thread_ts"))
				}
				var ds map[string]any
				if err := json.Unmarshal(fake.uploads[0], &ds); err != nil || ds["train_micro_batch_size_per_gpu"] != 1.0 {
					t.Errorf("uploaded snippet %s is not the answer's DeepSpeed config (%v)", fake.uploads[0], err)
				}
				if fake.gets[0].Get("filename") != "ds_config.json" || fake.gets[0].Get("snippet_type") != "javascript" {
					t.Errorf("getUploadURLExternal form %v", fake.gets[0])
				}
			}
			posted := rurl.posted(t)
			if tt.wantText == "" {
				if len(posted) != 0 {
					t.Errorf("posted %+v besides the upload", posted)
				}
				return
			}
			if len(posted) != 1 || posted[0].ReplaceOriginal || posted[0].ResponseType != slack.ResponseTypeEphemeral {
				t.Fatalf("posted %+v, want one private reply that leaves the answer", posted)
			}
			if raw := string(mustJSON(t, posted[0].Blocks)); !strings.Contains(raw, tt.wantText) || !strings.Contains(raw, "ds_config.json") {
				t.Errorf("reply %s lacks %q", raw, tt.wantText)
			}
		})
	}
}

// TestShareCarriesThePicture: sharing posts the answer in the channel and
// then its picture under it.
func TestShareCarriesThePicture(t *testing.T) {
	fake := newFileFake(t, "files_getUploadURLExternal_ok.json", "files_completeUploadExternal_ok.json")
	h := newTestHandler(t, func(c *Config) { c.Upload = fake.uploader(t, nil) })
	rurl := newResponseURL(t)
	var cb slack.InteractionCallback
	payload := strings.NewReplacer("ACTION_ID", ActionShare, "ACTION_VALUE", "q:llama-3.1-8b qlora rtx-4090", "RESPONSE_URL", rurl.URL+"/actions/T1/1/x").
		Replace(string(readSlackFile(t, "block_actions.json")))
	if err := json.Unmarshal([]byte(payload), &cb); err != nil {
		t.Fatal(err)
	}
	h.Interaction(context.Background(), cb)
	h.Wait()
	if p := rurl.posted(t); len(p) != 2 || p[0].ResponseType != slack.ResponseTypeInChannel {
		t.Fatalf("posted %+v, want the shared answer and the delete", p)
	}
	if _, u, c := fake.calls(); u != 1 || c != 1 || fake.completes[0].Get("channel_id") != "C0FITBOT" ||
		!strings.Contains(fake.completes[0].Get("initial_comment"), "<@U2CERLKJA> shared") {
		t.Errorf("picture upload: %d uploads, %d completes %v", u, c, fake.completes)
	}
}

// TestDigestCarriesTheWeeksPicture posts the weekly digest (one move, on
// h100) and then the h100 price picture in the digest's thread, drawn
// from the store's real observations; a failed upload leaves the digest
// posted and recorded.
func TestDigestCarriesTheWeeksPicture(t *testing.T) {
	for _, tt := range []struct {
		name, complete string
	}{
		{"uploaded", "files_completeUploadExternal_ok.json"},
		{"upload fails", "files_completeUploadExternal_not_in_channel.json"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newDigestFixture(t)
			fake := newFileFake(t, "files_getUploadURLExternal_ok.json", tt.complete)
			p, err := NewDigestPoster(DigestPosterConfig{Store: f.db, Slack: f.web, Channel: "C0DIGEST", Holder: "one",
				Upload: fake.uploader(t, nil), History: f.db, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
			if err != nil {
				t.Fatal(err)
			}
			p.clock = f.now.Now
			if err := p.PostWeekly(context.Background(), digestDue); err != nil {
				t.Fatalf("PostWeekly: %v", err)
			}
			if n := len(f.rec.posted()); n != 1 {
				t.Fatalf("%d digests posted, want 1", n)
			}
			if g, u, c := fake.calls(); g != 1 || u != 1 || c != 1 {
				t.Fatalf("calls get/upload/complete = %d/%d/%d, want 1/1/1", g, u, c)
			}
			if fake.gets[0].Get("filename") != "h100-prices.png" {
				t.Errorf("uploaded %q, want the h100 picture", fake.gets[0].Get("filename"))
			}
			done := fake.completes[0]
			if done.Get("channel_id") != "C0DIGEST" || done.Get("thread_ts") != "1764464401.000300" {
				t.Errorf("picture shared to %s/%s, want the digest's thread", done.Get("channel_id"), done.Get("thread_ts"))
			}
			rec, err := f.db.Digest(context.Background(), "C0DIGEST", digestDue.Add(-digest.Week))
			if err != nil || rec.TS != "1764464401.000300" {
				t.Errorf("digest record %+v, %v", rec, err)
			}
		})
	}
}

// fakeHistory serves a fixed list of observations.
type fakeHistory []pricing.Offer

func (f fakeHistory) ObservationsBetween(_ context.Context, from, to time.Time) ([]pricing.Offer, error) {
	var out []pricing.Offer
	for _, o := range f {
		if !o.ObservedAt.Before(from) && o.ObservedAt.Before(to) {
			out = append(out, o)
		}
	}
	return out, nil
}

// TestAttachPicture picks the picture a posted reply carries: an answer's
// memory picture, a one-GPU price listing's history, nothing for other
// replies or a GPU without history.
func TestAttachPicture(t *testing.T) {
	var hist fakeHistory
	for d := range 20 {
		hist = append(hist, pricing.Offer{Provider: "runpod", GPU: "h100", GPUCount: 1, Market: pricing.MarketOnDemand,
			USDPerGPUHour: 2.39, ObservedAt: testNow.AddDate(0, 0, -d-1)})
	}
	a := fixtures["llama-3.1-8b qlora rtx-4090"].answer
	for _, tt := range []struct {
		name     string
		msg      Message
		wantFile string
	}{
		{"answer", withPicture(ephemeral("answer", answerBlocks(a, answerView{ref: "q:llama-3.1-8b qlora rtx-4090", now: testNow})...), picture{fit: &a}), "memory.png"},
		// An answer's blocks alone are not answered again for a picture.
		{"answer without its picture", ephemeral("answer", answerBlocks(a, answerView{ref: "q:llama-3.1-8b qlora rtx-4090", now: testNow})...), ""},
		{"prices for one gpu", onePricesGPU(pricesMessage("Prices for H100 SXM 80 GB", hist[:1], testNow), "h100"), "h100-prices.png"},
		{"prices for a gpu without history", onePricesGPU(pricesMessage("Prices for L4 24 GB", hist[:1], testNow), "l4"), ""},
		{"cheapest prices", pricesMessage("Cheapest GPU prices", hist[:1], testNow), ""},
		{"an error", ephemeral("I couldn't use that"), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fake := newFileFake(t, "files_getUploadURLExternal_ok.json", "files_completeUploadExternal_ok.json")
			h := newTestHandler(t, func(c *Config) { c.Upload = fake.uploader(t, nil); c.History = hist })
			h.attachPicture(context.Background(), slashAsker(slash("")), "1764464400.000200", tt.msg)
			g, _, _ := fake.calls()
			if tt.wantFile == "" {
				if g != 0 {
					t.Errorf("uploaded %v, want nothing", fake.gets)
				}
				return
			}
			if g != 1 || fake.gets[0].Get("filename") != tt.wantFile {
				t.Errorf("uploads %v, want %s", fake.gets, tt.wantFile)
			}
		})
	}
}

// TestMentionAnsweredOnce: a mention is answered once, and its picture
// (the memory picture of a fit answer, the curve of a serving answer) is
// drawn from the answer posted, without reading it back or asking again.
func TestMentionAnsweredOnce(t *testing.T) {
	for _, tt := range []struct {
		text, file           string
		wantAnswers, wantAsk int64
	}{
		{"llama-3.1-8b qlora rtx-4090", "memory.png", 1, 0},
		{"how many users llama-3.1-70b fp8 2xh100 seq 4096", "serving.png", 0, 1},
	} {
		t.Run(tt.file, func(t *testing.T) {
			fake := newFileFake(t, "files_getUploadURLExternal_ok.json", "files_completeUploadExternal_ok.json")
			est := &countingAnswerer{est: askEstimator}
			f := newEventsFixture(t, func(c *Config) {
				c.Upload = fake.uploader(t, nil)
				c.Parse, c.Answer, c.Ask = reading.Parse, est, est
			})
			payload := strings.Replace(string(readTestdata(t, "app_mention_thread.json")), "llama-3.1-8b qlora rtx-4090", tt.text, 1)
			ev, err := slackevents.ParseEvent(json.RawMessage(payload), slackevents.OptionNoVerifyToken())
			if err != nil {
				t.Fatal(err)
			}
			f.events.HandleEvent(context.Background(), ev)
			f.h.Wait()
			if posts := f.rec.posted(); len(posts) != 1 {
				t.Fatalf("%d posts, want the answer", len(posts))
			}
			if a, s := est.calls.Load(), est.asks.Load(); a != tt.wantAnswers || s != tt.wantAsk {
				t.Errorf("%d estimates and %d searches for one question, want %d and %d", a, s, tt.wantAnswers, tt.wantAsk)
			}
			if g, u, _ := fake.calls(); g != 1 || u != 1 || fake.gets[0].Get("filename") != tt.file {
				t.Errorf("uploads %v, want %s", fake.gets, tt.file)
			}
		})
	}
}

// TestServeAnswerCarriesItsCurve: sharing a serving answer posts it with
// the latency/throughput picture, not the memory picture.
func TestServeAnswerCarriesItsCurve(t *testing.T) {
	fake := newFileFake(t, "files_getUploadURLExternal_ok.json", "files_completeUploadExternal_ok.json")
	h := newTestHandler(t, func(c *Config) {
		c.Upload = fake.uploader(t, nil)
		c.Parse, c.Answer, c.Ask = reading.Parse, Fixed{Estimator: askEstimator}, Fixed{Estimator: askEstimator}
	})
	rurl := newResponseURL(t)
	var cb slack.InteractionCallback
	payload := strings.NewReplacer("ACTION_ID", ActionShare, "ACTION_VALUE", "q:how many users llama-3.1-70b fp8 2xh100 seq 4096", "RESPONSE_URL", rurl.URL+"/actions/T1/1/x").
		Replace(string(readSlackFile(t, "block_actions.json")))
	if err := json.Unmarshal([]byte(payload), &cb); err != nil {
		t.Fatal(err)
	}
	h.Interaction(context.Background(), cb)
	h.Wait()
	if _, u, c := fake.calls(); u != 1 || c != 1 || fake.gets[0].Get("filename") != "serving.png" {
		t.Errorf("picture upload: %d uploads, %d completes, gets %v", u, c, fake.gets)
	}
}

// TestServeLaunchConfig: "Launch config" on a serving answer is the vLLM
// command of the answered replica: its concurrency as --max-num-seqs.
func TestServeLaunchConfig(t *testing.T) {
	h := newTestHandler(t, func(c *Config) {
		c.Parse, c.Answer, c.Ask = reading.Parse, Fixed{Estimator: askEstimator}, Fixed{Estimator: askEstimator}
	})
	rurl := newResponseURL(t)
	var cb slack.InteractionCallback
	payload := strings.NewReplacer("ACTION_ID", ActionLaunch, "ACTION_VALUE", "q:how many users llama-3.1-70b fp8 2xh100 seq 4096", "RESPONSE_URL", rurl.URL+"/actions/T1/1/x").
		Replace(string(readSlackFile(t, "block_actions.json")))
	if err := json.Unmarshal([]byte(payload), &cb); err != nil {
		t.Fatal(err)
	}
	h.Interaction(context.Background(), cb)
	h.Wait()
	posted := rurl.posted(t)
	if len(posted) != 1 {
		t.Fatalf("posted %+v, want the config", posted)
	}
	if raw := string(mustJSON(t, posted[0].Blocks)); !strings.Contains(raw, "vllm serve meta-llama/Llama-3.1-70B-Instruct") || !strings.Contains(raw, "--max-num-seqs 55") {
		t.Errorf("config %s is not the serving replica's vLLM command", raw)
	}
}

// TestButtonsReadTheAnswersResult: Share (its picture included) and
// Launch config on an answer read the result the answer was rendered
// from, with no second estimate; Re-price answers again at today's
// prices.
func TestButtonsReadTheAnswersResult(t *testing.T) {
	fake := newFileFake(t, "files_getUploadURLExternal_ok.json", "files_completeUploadExternal_ok.json")
	est := &countingAnswerer{est: askEstimator}
	h := newTestHandler(t, func(c *Config) {
		c.Upload = fake.uploader(t, nil)
		c.Parse, c.Answer, c.Ask = reading.Parse, est, est
	})
	const q = "llama-3.1-8b qlora rtx-4090"
	if msg := h.Command(context.Background(), slash(q)); msg.Outcome != OutcomeAnswered {
		t.Fatalf("/fit %s: %q", q, msg.Text)
	}
	if n := est.calls.Load(); n != 1 {
		t.Fatalf("%d estimates for the question, want 1", n)
	}
	rurl := newResponseURL(t)
	press := func(action string) {
		t.Helper()
		var cb slack.InteractionCallback
		payload := strings.NewReplacer("ACTION_ID", action, "ACTION_VALUE", "q:"+q, "RESPONSE_URL", rurl.URL+"/actions/T1/1/x").
			Replace(string(readSlackFile(t, "block_actions.json")))
		if err := json.Unmarshal([]byte(payload), &cb); err != nil {
			t.Fatal(err)
		}
		h.Interaction(context.Background(), cb)
		h.Wait()
	}
	press(ActionShare)
	press(ActionLaunch)
	if n := est.calls.Load(); n != 1 {
		t.Errorf("%d estimates after Share and Launch config, want the answer's one", n)
	}
	if _, u, _ := fake.calls(); u != 1 {
		t.Errorf("%d uploads, want the shared answer's picture", u)
	}
	if !slices.ContainsFunc(rurl.posted(t), func(m postedMessage) bool { return strings.HasPrefix(m.Text, "DeepSpeed config for Llama 3.1 8B") }) {
		t.Errorf("no launch config posted: %v", rurl.posted(t))
	}
	press(ActionReprice)
	if n := est.calls.Load(); n != 2 {
		t.Errorf("%d estimates after Re-price, want one more: today's prices", n)
	}
}
