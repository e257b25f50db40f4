package bot

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/slack-go/slack"
)

// FileUploader puts a file into a channel, in a thread when ThreadTS is
// set; *Uploader is one.
type FileUploader interface {
	Upload(ctx context.Context, f File) error
}

// File is one upload: a picture or a text snippet and where it goes.
type File struct {
	Channel     string
	ThreadTS    string // the parent message's ts; "" for the channel itself
	Name        string // file name, e.g. "memory.png" or "ds_config.json"
	Title       string
	AltText     string // what a screen reader says for a picture
	Comment     string // the message introducing the file
	SnippetType string // "json", "yaml", "shell" for a text snippet; "" for a picture
	Data        []byte
}

// UploadAPI is Slack's file upload as slack-go makes it: one call that
// runs files.getUploadURLExternal, sends the bytes to the upload URL it
// returns, then files.completeUploadExternal to share the file (the
// legacy files.upload is retired). *slack.Client is one.
type UploadAPI interface {
	UploadFileContext(ctx context.Context, params slack.UploadFileParameters) (*slack.FileSummary, error)
}

// Uploader uploads files with Slack's external upload flow. A failure is
// counted by the step that failed and returned; the caller keeps the text
// it already posted. Uploads are not retried: the bytes are streamed.
type Uploader struct {
	api     UploadAPI
	metrics *Metrics
}

// NewUploader returns an uploader over api; metrics may be nil.
func NewUploader(api UploadAPI, metrics *Metrics) *Uploader {
	return &Uploader{api: api, metrics: metrics}
}

// Upload uploads f and shares it into its channel (and thread).
func (u *Uploader) Upload(ctx context.Context, f File) error {
	if u.api == nil {
		return errors.New("bot: the uploader has no Slack API")
	}
	if len(f.Data) == 0 || f.Channel == "" || f.Name == "" {
		return fmt.Errorf("upload %q: a file needs a name, bytes and a channel", f.Name)
	}
	_, err := u.api.UploadFileContext(ctx, slack.UploadFileParameters{
		Reader: bytes.NewReader(f.Data), FileSize: len(f.Data), Filename: f.Name,
		Title: f.Title, AltTxt: f.AltText, InitialComment: f.Comment, SnippetType: f.SnippetType,
		Channel: f.Channel, ThreadTimestamp: f.ThreadTS,
	})
	if err == nil {
		return nil
	}
	method := "files.upload"
	switch {
	case strings.HasPrefix(err.Error(), "GetUploadURLExternal"):
		method = "files.getUploadURLExternal"
	case strings.HasPrefix(err.Error(), "UploadToURL"):
		method = "files.upload_url"
	case strings.HasPrefix(err.Error(), "CompleteUploadExternal"):
		method = "files.completeUploadExternal"
	}
	kind, _, _ := classifySlackError(err)
	u.metrics.SlackAPIError(method, kind)
	return fmt.Errorf("%s of %s to %s: %w", method, f.Name, f.Channel, err)
}
