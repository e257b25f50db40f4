package bot

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
)

// ResponseURLPoster posts messages to Slack response_urls over HTTP. A
// response_url takes up to five posts within 30 minutes of the command.
type ResponseURLPoster struct {
	client *http.Client
}

// NewResponseURLPoster returns a poster that uses client.
func NewResponseURLPoster(client *http.Client) *ResponseURLPoster {
	return &ResponseURLPoster{client: client}
}

// Respond posts msg as JSON to responseURL. Errors never contain the URL,
// which is a credential for the conversation.
func (p *ResponseURLPoster) Respond(ctx context.Context, responseURL string, msg Message) error {
	body, err := msg.encode()
	if err != nil {
		return fmt.Errorf("encode response: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, responseURL, bytes.NewReader(body))
	if err != nil {
		return errors.New("post response: invalid response_url")
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := p.client.Do(req)
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err
		}
		return fmt.Errorf("post response: %w", err)
	}
	defer resp.Body.Close()
	detail, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("post response: slack answered %s: %s", resp.Status, bytes.TrimSpace(detail))
	}
	return nil
}
