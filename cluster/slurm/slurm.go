// Package slurm reads a Slurm cluster's GPU nodes: from slurmrestd (the
// REST API Slurm ships; GET /slurm/VERSION/nodes/ with a JWT in
// X-SLURM-USER-TOKEN), or, where the API is not deployed, from the
// output of `sinfo --json`. Both are read into the same node records
// and counted by one function: gres less gres_used, drained, down and
// failed nodes unavailable. It only reads.
package slurm

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fitbot/fitbot/cluster"
	"github.com/fitbot/fitbot/internal/samehost"
)

// apiVersions are the slurmrestd data parser versions fitbot reads,
// newest first: v0.0.44-v0.0.40 (Slurm 25.11 back to 23.11) give a
// node's state as an array, v0.0.39-v0.0.36 (23.02, 22.05) as one
// lower-case base state with the flags apart. Where the server's OpenAPI
// document cannot be read, they are tried in this order until one is
// not a 404.
var apiVersions = []string{"v0.0.44", "v0.0.43", "v0.0.42", "v0.0.41", "v0.0.40", "v0.0.39", "v0.0.38", "v0.0.37", "v0.0.36"}

// maxBody bounds a slurmrestd or sinfo answer, read whole before it is
// decoded: a 10,000-node cluster's node list is a few tens of MB, and
// the bound keeps a runaway answer from holding hundreds of MB of the
// process's memory (and the asker waiting while it arrives).
const maxBody = 64 << 20

// Config says where the cluster is read from.
type Config struct {
	URL   string // slurmrestd's base URL ("http://slurm-ctl:6820"); "" to use sinfo only
	Token string // JWT for X-SLURM-USER-TOKEN; a secret, never printed
	// User is sent as X-SLURM-USER-NAME: a proxy user's token needs it,
	// and Slurm 22.05 needs it with every token. "" takes the user the
	// token names (its "sun" claim).
	User string
	// APIVersion is the data parser version ("v0.0.38"); "" finds the
	// newest the server has.
	APIVersion string
	// Sinfo is the sinfo command run as `sinfo --json` when URL is not
	// set or slurmrestd cannot be read; "" for no fallback.
	Sinfo string
}

// Source is one Slurm cluster.
type Source struct {
	cfg    Config
	client *http.Client
	now    func() time.Time
	// run runs a command and returns its standard output (exec by
	// default; tests replace it).
	run func(ctx context.Context, name string, args ...string) ([]byte, error)

	mu      sync.Mutex
	version string // the API version found on the server; "" until found
}

// New reads the cluster cfg names through a copy of client (Go's
// default client when nil) that never follows a redirect to another host
// with the token (samehost.Refuse); now is the clock, time.Now when nil.
func New(cfg Config, client *http.Client, now func() time.Time) *Source {
	client = samehost.Client(client)
	if now == nil {
		now = time.Now
	}
	if cfg.User == "" {
		cfg.User = tokenUser(cfg.Token)
	}
	return &Source{cfg: cfg, client: client, now: now, run: runCommand}
}

func runCommand(ctx context.Context, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	out, err := cmd.Output()
	if len(out) > maxBody {
		return nil, errors.New("the output is too large")
	}
	return out, err
}

// Read reads the nodes from slurmrestd, falling back to sinfo.
func (s *Source) Read(ctx context.Context) (cluster.Snapshot, error) {
	at := s.now()
	var restErr error
	if s.cfg.URL != "" {
		recs, jobs, err := s.readREST(ctx)
		if err == nil {
			snap := snapshot("slurm ("+origin(s.cfg.URL)+")", at, recs)
			if jobs != nil {
				snap.SetPending(pending(jobs, at))
			}
			return snap, nil
		}
		if s.cfg.Sinfo == "" {
			return cluster.Snapshot{}, err
		}
		restErr = err
	}
	if s.cfg.Sinfo == "" {
		return cluster.Snapshot{}, cluster.ErrNotConfigured
	}
	out, err := s.run(ctx, s.cfg.Sinfo, "--json")
	if err != nil {
		e := &cluster.Error{Source: "Slurm", Kind: cluster.FaultUnreachable, Detail: "`sinfo --json` failed: " + commandFailure(err), Err: err}
		return cluster.Snapshot{}, errors.Join(restErr, e)
	}
	recs, err := parseSinfo(out)
	if err != nil {
		return cluster.Snapshot{}, errors.Join(restErr, &cluster.Error{Source: "Slurm", Kind: cluster.FaultBadAnswer, Detail: "could not read `sinfo --json`: " + err.Error(), Err: err})
	}
	source := "slurm (sinfo)"
	if restErr != nil {
		source = "slurm (sinfo; slurmrestd failed)"
	}
	return snapshot(source, at, recs), nil
}

// commandFailure says why a command failed without its output: sinfo's
// stderr names the controller and the error, which is safe, but only
// its first line is shown.
func commandFailure(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		line, _, _ := strings.Cut(strings.TrimSpace(string(ee.Stderr)), "\n")
		if line != "" {
			return fmt.Sprintf("exit %d: %s", ee.ExitCode(), truncate(line, 200))
		}
		return fmt.Sprintf("exit %d", ee.ExitCode())
	}
	var pe *exec.Error
	if errors.As(err, &pe) {
		return "no such command: " + pe.Name
	}
	return err.Error()
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// origin is a URL's scheme and host: what answers name, never a path
// or query that could carry a secret.
func origin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "slurmrestd"
	}
	return u.Scheme + "://" + u.Host
}

// readREST reads the nodes, and the jobs where slurmrestd gives them
// (nil when it does not), at the API version the server has.
func (s *Source) readREST(ctx context.Context) ([]record, []job, error) {
	version, err := s.apiVersion(ctx)
	if err != nil {
		return nil, nil, err
	}
	var nodes restNodes
	status, err := s.get(ctx, "/slurm/"+version+"/nodes/", &nodes)
	if status == http.StatusNotFound && s.cfg.APIVersion == "" {
		s.setVersion("") // the server changed under fitbot: find its version again
	}
	if err != nil {
		return nil, nil, err
	}
	var jobs restJobs
	if _, err := s.get(ctx, "/slurm/"+version+"/jobs/", &jobs); err != nil {
		return nodes.Nodes, nil, nil // the nodes are read; the queue is not
	}
	return nodes.Nodes, jobs.jobs(), nil
}

func (s *Source) setVersion(v string) {
	s.mu.Lock()
	s.version = v
	s.mu.Unlock()
}

// apiVersion is the configured version, else the newest of apiVersions
// the server has, from its OpenAPI document (GET /openapi/v3), else the
// first that does not answer 404. The version found is kept.
func (s *Source) apiVersion(ctx context.Context) (string, error) {
	if s.cfg.APIVersion != "" {
		return s.cfg.APIVersion, nil
	}
	s.mu.Lock()
	v := s.version
	s.mu.Unlock()
	if v != "" {
		return v, nil
	}
	var doc openAPIDoc
	status, err := s.get(ctx, "/openapi/v3", &doc)
	switch {
	case err == nil:
		v = doc.newest()
	case status == http.StatusNotFound || status == http.StatusOK:
		// No document, or one fitbot cannot read: ask each version.
	default:
		return "", err
	}
	for _, cand := range apiVersions {
		if v != "" {
			break
		}
		var ping json.RawMessage
		status, err := s.get(ctx, "/slurm/"+cand+"/ping", &ping)
		if status == http.StatusNotFound {
			continue
		}
		if err != nil && status != http.StatusOK {
			return "", err
		}
		v = cand
	}
	if v == "" {
		return "", &cluster.Error{Source: "Slurm", Kind: cluster.FaultBadAnswer,
			Detail: "slurmrestd at " + origin(s.cfg.URL) + " serves none of the API versions fitbot reads (" + apiVersions[len(apiVersions)-1] + " to " + apiVersions[0] + "): start it with a slurmctld plugin of one of them (slurmrestd -s list names them on Slurm 22.05 and 23.02, slurmrestd -d list from 23.11)"}
	}
	s.setVersion(v)
	return v, nil
}

// openAPIDoc is slurmrestd's OpenAPI document, with only its paths.
type openAPIDoc struct {
	Paths map[string]json.RawMessage `json:"paths"`
}

// newest is the newest version of apiVersions whose nodes endpoint the
// document lists ("/slurm/v0.0.38/nodes" or "/slurm/v0.0.42/nodes/").
func (d openAPIDoc) newest() string {
	for _, v := range apiVersions {
		for _, p := range []string{"/slurm/" + v + "/nodes", "/slurm/" + v + "/nodes/"} {
			if _, ok := d.Paths[p]; ok {
				return v
			}
		}
	}
	return ""
}

// get is GET {URL}{path} into out, with the token and user headers. It
// returns the HTTP status (0 when there was no answer) and an error
// safe to show.
func (s *Source) get(ctx context.Context, path string, out any) (int, error) {
	fault := func(kind, detail string, err error) error {
		return &cluster.Error{Source: "Slurm", Kind: kind, Detail: detail, Err: err}
	}
	u := strings.TrimRight(s.cfg.URL, "/") + path
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, fault(cluster.FaultBadAnswer, "FITBOT_SLURM_URL is not a URL fitbot can use", err)
	}
	req.Header.Set("Accept", "application/json")
	if s.cfg.Token != "" {
		req.Header.Set("X-SLURM-USER-TOKEN", s.cfg.Token)
	}
	if s.cfg.User != "" {
		req.Header.Set("X-SLURM-USER-NAME", s.cfg.User)
	}
	resp, err := s.client.Do(req)
	if re, ok := samehost.As(err); ok {
		return 0, fault(cluster.FaultBadAnswer, "slurmrestd at "+re.From+" redirected fitbot to another host ("+re.To+"); fitbot does not send its token there: set FITBOT_SLURM_URL to the address that answers", err)
	}
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return 0, fault(cluster.FaultUnreachable, "slurmrestd at "+origin(s.cfg.URL)+" did not answer in time", err)
		}
		return 0, fault(cluster.FaultUnreachable, "cannot reach slurmrestd at "+origin(s.cfg.URL), errors.New("request failed")) // the cause may quote the URL: left out
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return resp.StatusCode, fault(cluster.FaultUnreachable, "slurmrestd's answer was cut short", err)
	}
	if len(body) > maxBody {
		return resp.StatusCode, fault(cluster.FaultBadAnswer, fmt.Sprintf("slurmrestd's answer is over %d MiB; fitbot reads no more", maxBody>>20), nil)
	}
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		hint := "renew FITBOT_SLURM_TOKEN (scontrol token username=USER lifespan=SECONDS)"
		if s.cfg.User == "" {
			hint += ", or set FITBOT_SLURM_USER to the token's user (Slurm 22.05 needs it with every token)"
		}
		return resp.StatusCode, fault(cluster.FaultForbidden, fmt.Sprintf("slurmrestd refused fitbot's token (HTTP %d): %s", resp.StatusCode, hint), nil)
	case resp.StatusCode == http.StatusNotFound:
		return resp.StatusCode, fault(cluster.FaultBadAnswer, fmt.Sprintf("slurmrestd has no %s (HTTP 404)", strings.TrimSuffix(path, "/")), nil)
	}
	var e restErrors
	_ = json.Unmarshal(body, &e) // an error list where the body has one
	if resp.StatusCode != http.StatusOK {
		msg := fmt.Sprintf("HTTP %d", resp.StatusCode)
		if len(e.Errors) > 0 {
			msg += ": " + truncate(cmpOr(e.Errors[0].Description, e.Errors[0].Error), 200)
		}
		return resp.StatusCode, fault(cluster.FaultBadAnswer, "slurmrestd answered with an error, "+msg, nil)
	}
	if err := json.Unmarshal(body, out); err != nil {
		return resp.StatusCode, fault(cluster.FaultBadAnswer, fmt.Sprintf("slurmrestd's answer to %s is not what its API describes", strings.TrimSuffix(path, "/")), err)
	}
	return resp.StatusCode, nil
}

// tokenUser is the user a Slurm JWT names (its "sun" claim, as
// `scontrol token` writes it), "" when it names none. The token is not
// checked: slurmctld does that.
func tokenUser(token string) string {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return ""
	}
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(parts[1], "="))
	if err != nil {
		return ""
	}
	var claims struct {
		Sun string `json:"sun"`
	}
	if json.Unmarshal(b, &claims) != nil || len(claims.Sun) > 256 || strings.ContainsAny(claims.Sun, "\r\n") {
		return ""
	}
	return claims.Sun
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// restErrors is the error list of any slurmrestd answer.
type restErrors struct {
	Errors []struct {
		Description string `json:"description"`
		Error       string `json:"error"`
	} `json:"errors"`
}

// restNodes is slurmrestd's answer to GET /slurm/VERSION/nodes/
// (v0.0.42_openapi_nodes_resp), with only what fitbot reads. Slurm
// 22.05's `sinfo --json` prints the same object.
type restNodes struct {
	Nodes []record `json:"nodes"`
}

// record is one node as fitbot reads it, from either source.
type record struct {
	Name       string    `json:"name"`
	Gres       string    `json:"gres"`
	GresUsed   string    `json:"gres_used"`
	State      stateList `json:"state"`
	StateFlags []string  `json:"state_flags"` // v0.0.38 (Slurm 22.05): the flags apart from the base state
	Partitions []string  `json:"partitions"`
	Reason     string    `json:"reason"`
}

// stateList is a node's states: the array v0.0.39 and later give
// (["IDLE","DRAIN"]), or v0.0.38's single base state ("idle"), upper-cased.
type stateList []string

// UnmarshalJSON accepts both forms.
func (s *stateList) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*s = stateList{strings.ToUpper(one)}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return err
	}
	*s = many
	return nil
}

// sinfoOutput is `sinfo --json`. From Slurm 23.02 (the data parser's
// sinfo response) it is one entry per group of nodes alike in
// partition, state and gres_used, so every node of a group has the
// group's gres and gres_used; Slurm 22.05 prints the node list.
type sinfoOutput struct {
	Nodes []record `json:"nodes"`
	Sinfo []struct {
		Node struct {
			State stateList `json:"state"`
		} `json:"node"`
		Nodes struct {
			Nodes []string `json:"nodes"`
		} `json:"nodes"`
		Gres struct {
			Total string `json:"total"`
			Used  string `json:"used"`
		} `json:"gres"`
		Partition struct {
			Name string `json:"name"`
		} `json:"partition"`
		Reason struct {
			Description string `json:"description"`
		} `json:"reason"`
	} `json:"sinfo"`
}

// parseSinfo reads `sinfo --json`: Slurm 22.05's node list (the
// slurmrestd nodes object), or later releases' groups, one record per
// node with its partitions gathered from every group that names it.
func parseSinfo(b []byte) ([]record, error) {
	var out sinfoOutput
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	if out.Sinfo == nil && out.Nodes != nil {
		return out.Nodes, nil
	}
	if out.Sinfo == nil {
		return nil, errors.New("neither a sinfo nor a nodes list in the output")
	}
	by := map[string]int{}
	var recs []record
	for _, g := range out.Sinfo {
		for _, name := range g.Nodes.Nodes {
			i, ok := by[name]
			if !ok {
				i = len(recs)
				by[name] = i
				recs = append(recs, record{Name: name, Gres: g.Gres.Total, GresUsed: g.Gres.Used, State: g.Node.State, Reason: g.Reason.Description})
			}
			if p := strings.TrimSuffix(g.Partition.Name, "*"); p != "" && !slices.Contains(recs[i].Partitions, p) {
				recs[i].Partitions = append(recs[i].Partitions, p)
			}
		}
	}
	return recs, nil
}

// snapshot counts the records' GPUs.
func snapshot(source string, at time.Time, recs []record) cluster.Snapshot {
	nodes := make([]cluster.Node, 0, len(recs))
	for _, r := range recs {
		total := parseGres(r.Gres)
		used := parseGres(r.GresUsed)
		states := append(slices.Clone([]string(r.State)), r.StateFlags...)
		n := cluster.Node{Name: r.Name, Partitions: r.Partitions, Unavailable: unavailable(states)}
		// A node with several GPU types is shown as its most numerous.
		best := ""
		for typ, c := range total {
			if best == "" || c > total[best] || c == total[best] && typ < best {
				best = typ
			}
		}
		if best != "" {
			n.GPUsTotal = total[best]
			n.GPUsFree = max(0, total[best]-used[best])
			n.Product = "gpu"
			if best != untyped {
				n.Product = "gpu:" + best
				n.GPU = cluster.CatalogGPU(best, 0)
			}
		}
		nodes = append(nodes, n)
	}
	return cluster.NewSnapshot(source, at, nodes)
}

// untyped is the key of GPUs configured without a type ("gpu:8").
const untyped = "(untyped)"

// parseGres reads a gres string ("gpu:h100:8(S:0-1),gpu:a100:2(IDX:0,2)",
// "gpu:4", "gpu:h100:0(IDX:N/A),mps:0") into GPU counts by type; other
// generic resources are skipped, and so is anything it cannot read.
func parseGres(s string) map[string]int {
	out := map[string]int{}
	depth, start := 0, 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) {
			switch s[i] {
			case '(':
				depth++
				continue
			case ')':
				depth = max(0, depth-1)
				continue
			case ',':
				if depth > 0 {
					continue
				}
			default:
				continue
			}
		}
		entry := s[start:i]
		start = i + 1
		if j := strings.IndexByte(entry, '('); j >= 0 {
			entry = entry[:j]
		}
		f := strings.Split(strings.TrimSpace(entry), ":")
		if len(f) < 2 || f[0] != "gpu" {
			continue
		}
		typ := untyped
		if len(f) >= 3 && strings.Join(f[1:len(f)-1], ":") != "" {
			typ = strings.Join(f[1:len(f)-1], ":") // "gpu::8" names no type: untyped
		}
		if n, ok := gresCount(f[len(f)-1]); ok {
			out[typ] += n
		}
	}
	return out
}

// gresCount reads a gres count: "8", and Slurm's suffixed forms "1K".
func gresCount(s string) (int, bool) {
	mult := 1
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, s[:len(s)-1]
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, s[:len(s)-1]
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 1<<20 {
		return 0, false
	}
	return n * mult, true
}

// unavailable says why a node in these states takes no work, "" when it
// does. Slurm gives a base state (IDLE, MIXED, ALLOCATED, DOWN, ...) and
// flags (DRAIN, NOT_RESPONDING, ...); DRAIN with work still running is
// "draining", which takes no new work either.
func unavailable(states []string) string {
	has := func(s string) bool { return slices.Contains(states, s) }
	switch {
	case has("DOWN"):
		return "down"
	case has("FAIL"):
		return "failed"
	case has("DRAIN") && (has("ALLOCATED") || has("MIXED") || has("COMPLETING")):
		return "draining"
	case has("DRAIN"):
		return "drained"
	case has("NOT_RESPONDING"):
		return "not responding"
	case has("MAINTENANCE"):
		return "maintenance"
	case has("POWERED_DOWN") || has("POWERING_DOWN"):
		return "powered down"
	case has("FUTURE") || has("UNKNOWN") || has("INVALID") || has("INVALID_REG") || has("ERROR"):
		return "not ready"
	}
	return ""
}
