package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/fitbot/fitbot/bot"
)

// questions is the mix the generator cycles through: what an ML team
// asks (most of it answers that fit or do not, some help and catalog
// lookups, some input fitbot cannot read and says so).
var questions = []string{
	"13B lora 4090",
	"llama-3.1-8b qlora rtx-4090",
	"llama-3.1-70b qlora 2xa100",
	"llama-3.1-70b full 8xh100 zero3",
	"mistral 7b lora a10g",
	"mixtral 8x7b inference int4 2x4090 ctx 32k",
	"llama-3.1-405b inference fp8 8xh200",
	"qwen2.5-32b lora h100 seq 8k",
	"7b full a100-80 3 epochs of 100M tokens",
	"70b qlora 4090",
	"gemma-2-27b inference l40s batch 16",
	"phi-3-mini full rtx-4090",
	"llama-3.1-8b inference t4",
	"2 nodes of 8 h100 full 70b",
	"help",
	"gpus",
	"mistral 7b lora",
	"can we fine-tune a model please",
	"13B lora a1000",
	"llama-3.1-8b qlora rtx-4090 seq 0",
}

// generator makes signed slash-command requests.
type generator struct {
	secret      string
	users       int
	responseURL string
	next        atomic.Uint64
}

func newGenerator(secret string, users int, responseURL string) *generator {
	return &generator{secret: secret, users: users, responseURL: responseURL}
}

// request returns the i-th request body and its headers, signed now.
func (g *generator) request() (body []byte, header http.Header) {
	i := g.next.Add(1)
	form := url.Values{
		"token":        {"deprecated-verification-token"},
		"team_id":      {"T1DC2JH3J"},
		"team_domain":  {"fitbot-load"},
		"channel_id":   {"C0FITLOAD"},
		"channel_name": {"ml-capacity"},
		"user_id":      {fmt.Sprintf("ULOAD%05d", i%uint64(g.users))},
		"user_name":    {"load"},
		"command":      {"/fit"},
		"text":         {questions[i%uint64(len(questions))]},
		"response_url": {g.responseURL + "/commands/T1DC2JH3J/" + strconv.FormatUint(i, 10)},
		"trigger_id":   {"13345224609.738474920.8088930838d88f008e0"},
		"api_app_id":   {"A0FITLOAD"},
	}
	body = []byte(form.Encode())
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	header = http.Header{
		"Content-Type":              {"application/x-www-form-urlencoded"},
		"X-Slack-Request-Timestamp": {ts},
		"X-Slack-Signature":         {bot.ComputeSignature(g.secret, ts, body)},
	}
	return body, header
}

// result is one target's figures.
type result struct {
	Name        string  `json:"name"`
	URL         string  `json:"url"`
	Concurrency int     `json:"concurrency"`
	Seconds     float64 `json:"seconds"`
	Requests    int     `json:"requests"`
	Errors      int     `json:"errors"`
	// Refusals counts 200 replies that are not an answer: a rate
	// limit, an apology. They count as requests, not errors.
	Refusals int `json:"refusals"`
	// Kept counts answers that said their plan was kept; KeptIDs are
	// those plans' ids, for checking afterwards that each is in the file.
	Kept         int         `json:"kept"`
	KeptIDs      []int64     `json:"-"`
	RPS          float64     `json:"requests_per_second"`
	P50          float64     `json:"p50_ms"`
	P90          float64     `json:"p90_ms"`
	P99          float64     `json:"p99_ms"`
	Max          float64     `json:"max_ms"`
	FirstErrors  []string    `json:"first_errors,omitempty"`
	StatusCounts map[int]int `json:"status_counts"`
}

// maxErrorsKept is how many distinct error texts a result keeps.
const maxErrorsKept = 5

// load sends requests to target from o.concurrency workers until o.duration
// has passed, o.maxRequests were sent, or ctx ends.
func load(ctx context.Context, name, target string, gen *generator, o options) result {
	transport := &http.Transport{MaxIdleConns: o.concurrency, MaxIdleConnsPerHost: o.concurrency,
		MaxConnsPerHost: o.concurrency, IdleConnTimeout: 30 * time.Second}
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: transport, Timeout: 10 * time.Second}
	ctx, cancel := context.WithTimeout(ctx, o.duration)
	defer cancel()

	var (
		sent    atomic.Int64
		mu      sync.Mutex
		wg      sync.WaitGroup
		latency = make([][]time.Duration, o.concurrency)
		res     = result{Name: name, URL: target, Concurrency: o.concurrency, StatusCounts: map[int]int{}}
	)
	start := time.Now()
	for w := range o.concurrency {
		wg.Go(func() {
			var mine []time.Duration
			for ctx.Err() == nil && sent.Add(1) <= int64(o.maxRequests) {
				body, header := gen.request()
				t0 := time.Now()
				status, refused, planID, err := send(ctx, client, target, body, header)
				d := time.Since(t0)
				if ctx.Err() != nil && err != nil {
					break // the run ended under this request; it does not count
				}
				mine = append(mine, d)
				mu.Lock()
				res.StatusCounts[status]++
				switch {
				case err != nil:
					res.Errors++
					if len(res.FirstErrors) < maxErrorsKept && !slices.Contains(res.FirstErrors, err.Error()) {
						res.FirstErrors = append(res.FirstErrors, err.Error())
					}
				case refused:
					res.Refusals++
				case planID > 0:
					res.Kept++
					res.KeptIDs = append(res.KeptIDs, planID)
				}
				mu.Unlock()
			}
			latency[w] = mine
		})
	}
	wg.Wait()
	res.Seconds = time.Since(start).Seconds()
	all := slices.Concat(latency...)
	slices.Sort(all)
	res.Requests = len(all)
	res.RPS = float64(res.Requests) / res.Seconds
	res.P50, res.P90, res.P99 = percentile(all, 0.50), percentile(all, 0.90), percentile(all, 0.99)
	if len(all) > 0 {
		res.Max = ms(all[len(all)-1])
	}
	return res
}

// send posts one command; an error is a transport failure, a status
// other than 200, or a body that is not a Slack message; refused reports
// a reply that is a rate limit or an apology; planID is the plan an
// answer says it kept, 0 when it says none.
func send(ctx context.Context, client *http.Client, target string, body []byte, header http.Header) (status int, refused bool, planID int64, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return 0, false, 0, err
	}
	req.Header = header
	resp, err := client.Do(req)
	if err != nil {
		return 0, false, 0, err
	}
	defer resp.Body.Close()
	reply, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return resp.StatusCode, false, 0, fmt.Errorf("reading the reply: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, false, 0, fmt.Errorf("status %d: %.80s", resp.StatusCode, reply)
	}
	var msg struct {
		ResponseType string `json:"response_type"`
		Text         string `json:"text"`
	}
	if err := json.Unmarshal(reply, &msg); err != nil || msg.ResponseType == "" {
		return resp.StatusCode, false, 0, fmt.Errorf("reply is not a Slack message: %.80s", reply)
	}
	refused = bytes.Contains(reply, []byte("Sorry, ")) || bytes.Contains(reply, []byte("faster than fitbot answers"))
	return resp.StatusCode, refused, keptPlan(reply), nil
}

// keptPattern finds the plan id in an answer's "Kept in the team's plans
// as plan 42" line.
var keptPattern = regexp.MustCompile(`Kept in the team's plans as plan (\d+)`)

// keptPlan returns the plan id a reply says it kept, or 0.
func keptPlan(reply []byte) int64 {
	m := keptPattern.FindSubmatch(reply)
	if m == nil {
		return 0
	}
	id, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return id
}

// percentile is the nearest-rank percentile of sorted durations, in ms.
func percentile(sorted []time.Duration, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted))*p+0.5) - 1
	return ms(sorted[min(max(i, 0), len(sorted)-1)])
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// report prints the results as a table (or JSON) and, for two, the ratio.
func report(w io.Writer, o options, results []result) error {
	if o.jsonOut {
		out := map[string]any{"results": results}
		if len(results) == 2 && results[1].RPS > 0 {
			out["throughput_ratio"] = results[0].RPS / results[1].RPS
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "target\tc\tseconds\trequests\treq/s\tp50 ms\tp90 ms\tp99 ms\tmax ms\terrors\trefusals\t")
	for _, r := range results {
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%d\t%.0f\t%.2f\t%.2f\t%.2f\t%.2f\t%d\t%d\t\n",
			r.Name, r.Concurrency, r.Seconds, r.Requests, r.RPS, r.P50, r.P90, r.P99, r.Max, r.Errors, r.Refusals)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range results {
		for _, e := range r.FirstErrors {
			fmt.Fprintf(w, "%s error: %s\n", r.Name, e)
		}
	}
	if len(results) == 2 && results[1].RPS > 0 {
		fmt.Fprintf(w, "throughput ratio fitbot / %s: %.2f\n", strings.Fields(results[1].Name)[0], results[0].RPS/results[1].RPS)
	}
	return nil
}
