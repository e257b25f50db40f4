package hub

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/fitbot/fitbot/retry"
)

// Kind tells the Hub's refusals apart.
type Kind string

// The kinds of Error.
const (
	KindGated        Kind = "gated"        // the repo needs an accepted licence and a token
	KindNotFound     Kind = "not_found"    // no such repo, revision or file (or a private one)
	KindUnauthorized Kind = "unauthorized" // HF_TOKEN was refused
	KindRateLimited  Kind = "rate_limited" // 429
	KindUnavailable  Kind = "unavailable"  // 5xx
	KindUnreachable  Kind = "unreachable"  // no answer: offline, DNS, timeout
	KindBadAnswer    Kind = "bad_answer"   // an answer that is not what the API returns
	KindNoMatch      Kind = "no_match"     // a search found nothing
	KindUnexpected   Kind = "unexpected"   // any other status
)

// Error is a request the Hub did not answer with what was asked. Problem
// and Hint are written for the asker and never hold the token.
type Error struct {
	Kind       Kind
	Repo       string // "" for a search
	Status     int    // the HTTP status; 0 when there was no answer
	RetryAfter time.Duration
	Problem    string
	Hint       string
	err        error
}

func (e *Error) Error() string { return e.Problem }

// Unwrap returns the transport error behind an unreachable Hub.
func (e *Error) Unwrap() error { return e.err }

// UserHint is the corrected step for the asker ("set HF_TOKEN ...").
func (e *Error) UserHint() string { return e.Hint }

// Transient reports whether the Hub may answer later: what a cached
// entry may stand in for.
func (e *Error) Transient() bool {
	switch e.Kind {
	case KindUnreachable, KindRateLimited, KindUnavailable, KindBadAnswer, KindUnexpected:
		return true
	}
	return false
}

// refusal turns a non-200 answer into an *Error. The Hub names what went
// wrong in the X-Error-Code header (GatedRepo, RepoNotFound,
// RevisionNotFound, EntryNotFound; huggingface_hub's hf_raise_for_status
// reads the same) and in the body's "error".
func refusal(resp *http.Response, body []byte, repo string, withToken bool) error {
	code := resp.Header.Get("X-Error-Code")
	e := &Error{Repo: repo, Status: resp.StatusCode}
	page := DefaultEndpoint + "/" + repo
	switch {
	case code == "GatedRepo" || (resp.StatusCode == http.StatusForbidden && strings.Contains(hubMessage(body), "restricted")):
		e.Kind = KindGated
		if withToken {
			e.Problem = fmt.Sprintf("%s is a gated repo on the Hugging Face Hub and HF_TOKEN's account has not been granted access", repo)
			e.Hint = fmt.Sprintf("accept the model's terms at %s with the account of HF_TOKEN, then ask again", page)
		} else {
			e.Problem = fmt.Sprintf("%s is a gated repo on the Hugging Face Hub: its config.json needs a token", repo)
			e.Hint = fmt.Sprintf("accept the model's terms at %s and set HF_TOKEN to a read token of that account", page)
		}
	case code == "RepoNotFound" || code == "RevisionNotFound" || code == "EntryNotFound" || resp.StatusCode == http.StatusNotFound:
		e.Kind = KindNotFound
		switch {
		case repo == "":
			e.Problem = "the Hugging Face Hub's search is not available at this endpoint (404)"
		case code == "EntryNotFound":
			e.Problem = fmt.Sprintf("%s on the Hugging Face Hub has no config.json, so fitbot cannot read its architecture", repo)
			e.Hint = "ask about the repo the weights came from (its base model)"
		default:
			e.Problem = fmt.Sprintf("%s is not a model on the Hugging Face Hub", repo)
			e.Hint = "check the id on " + DefaultEndpoint + "/models"
			if !withToken {
				e.Hint += "; a private repo needs HF_TOKEN"
			}
		}
	case resp.StatusCode == http.StatusUnauthorized:
		e.Kind = KindUnauthorized
		if withToken {
			e.Problem = "the Hugging Face Hub refused HF_TOKEN (invalid or expired)"
			e.Hint = "create a read token at " + DefaultEndpoint + "/settings/tokens and set HF_TOKEN to it"
		} else {
			e.Kind = KindNotFound
			e.Problem = fmt.Sprintf("%s is not a public model on the Hugging Face Hub", orHub(repo))
			e.Hint = "check the id; a private repo needs HF_TOKEN"
		}
	case resp.StatusCode == http.StatusTooManyRequests:
		e.Kind = KindRateLimited
		e.RetryAfter, _ = retry.After(resp.Header, time.Now())
		e.Problem = "the Hugging Face Hub is rate-limiting fitbot (429)"
		if e.RetryAfter > 0 {
			e.Problem += fmt.Sprintf("; it asks to wait %v", e.RetryAfter.Round(time.Second))
		}
		e.Hint = "ask again in a minute"
		if !withToken {
			e.Hint += "; HF_TOKEN raises the limit"
		}
	case resp.StatusCode >= 500:
		e.Kind = KindUnavailable
		e.Problem = fmt.Sprintf("the Hugging Face Hub is failing (HTTP %d)", resp.StatusCode)
		e.Hint = "ask again later; status.huggingface.co says when it is back"
	default:
		e.Kind = KindUnexpected
		e.Problem = fmt.Sprintf("the Hugging Face Hub answered HTTP %d for %s", resp.StatusCode, orHub(repo))
	}
	return e
}

// hubMessage is the "error" of a Hub error body, when it has one.
func hubMessage(body []byte) string {
	var b struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal(body, &b) // not every error body is JSON
	return b.Error
}
