package llm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/sashabaranov/go-openai/jsonschema"
)

// temperature is as close to 0 as the request can say: go-openai drops a
// zero Temperature (omitempty), which would leave the server's default
// (0.8 on Ollama, 1 on OpenAI). Servers treat this value as greedy
// decoding (vLLM and llama.cpp below 1e-5, OpenAI as 0).
const temperature = math.SmallestNonzeroFloat32

// Client is one OpenAI-compatible chat-completions server, asked by
// Readers. It is safe for concurrent use.
type Client struct {
	cfg    Config
	http   *http.Client
	logger *slog.Logger
}

// New returns a Client for cfg that sends through httpClient (nil means a
// client without its own timeout; Config.Timeout bounds each call) and
// logs each call's latency and outcome to logger (nil discards). New does
// not check cfg.Enabled: the caller decides whether to use the fallback.
func New(cfg Config, httpClient *http.Client, logger *slog.Logger) *Client {
	if httpClient == nil {
		httpClient = &http.Client{}
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Client{cfg: cfg, http: httpClient, logger: logger}
}

// call is what one chat-completions exchange produced, for the log.
type call struct {
	attempts         int
	status           int
	id               string
	promptTokens     int
	completionTokens int
}

// complete makes one chat-completions call, its retry included, within
// Config.Timeout and returns the reply's content. No reply, an HTTP
// error, a refusal (the structured-output refusal field, or a content
// filter: errRefused), a reply cut off at the token limit or one without
// choices is ErrUnavailable.
func (c *Client) complete(ctx context.Context, req openai.ChatCompletionRequest) (string, call, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.timeout())
	defer cancel()
	doer := &retryDoer{next: c.http, now: time.Now}
	api := openai.NewClientWithConfig(c.cfg.clientConfig(doer))
	resp, err := api.CreateChatCompletion(ctx, req)
	info := call{attempts: doer.attempts, status: doer.status, id: resp.ID,
		promptTokens: resp.Usage.PromptTokens, completionTokens: resp.Usage.CompletionTokens}
	if err != nil {
		return "", info, unavailable(fmt.Errorf("chat completion: %w", err), c.cfg.APIKey)
	}
	if len(resp.Choices) == 0 {
		return "", info, unavailable(errors.New("reply has no choices"), c.cfg.APIKey)
	}
	choice := resp.Choices[0]
	if choice.Message.Refusal != "" || choice.FinishReason == openai.FinishReasonContentFilter {
		return "", info, unavailable(refusal(choice.Message.Refusal), c.cfg.APIKey)
	}
	if choice.FinishReason == openai.FinishReasonLength {
		return "", info, unavailable(errors.New("reply cut off at the token limit"), c.cfg.APIKey)
	}
	return choice.Message.Content, info, nil
}

// chat is a chat-completions request of one system and one user message
// whose reply must be schema, strictly.
func (c *Client) chat(system, user, name, about string, schema *jsonschema.Definition) openai.ChatCompletionRequest {
	req := openai.ChatCompletionRequest{
		Model: c.cfg.model(),
		Messages: []openai.ChatCompletionMessage{
			{Role: openai.ChatMessageRoleSystem, Content: system},
			{Role: openai.ChatMessageRoleUser, Content: user},
		},
		ResponseFormat: &openai.ChatCompletionResponseFormat{
			Type: openai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{
				Name:        name,
				Description: about,
				Schema:      schema,
				Strict:      true,
			},
		},
	}
	if !reasoningModel(req.Model) {
		req.Temperature = temperature
	}
	return req
}

// reasoningModel reports model ids whose API rejects any temperature but
// the default (OpenAI's o-series and gpt-5 and later); go-openai refuses
// to send such a request.
func reasoningModel(model string) bool {
	for _, p := range []string{"o1", "o3", "o4", "gpt-5", "gpt-6"} {
		if strings.HasPrefix(model, p) {
			return true
		}
	}
	return false
}
