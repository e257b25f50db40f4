package bot

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/slack-go/slack"

	"github.com/fitbot/fitbot/answer"
	"github.com/fitbot/fitbot/display"
	"github.com/fitbot/fitbot/launch"
	"github.com/fitbot/fitbot/sizing"
	"github.com/fitbot/fitbot/store"
)

// ActionLaunch is the action id of the "Launch config" button that every
// answer that fits carries.
const ActionLaunch = "fit_launch"

// maxSnippet is how much of a config fits in one section block's code
// span, leaving room for the fences (Slack's limit is 3000 characters).
const maxSnippet = 2800

// launchButton is the "Launch config" button for the answer ref points at.
func launchButton(ref string) *slack.ButtonBlockElement {
	return slack.NewButtonBlockElement(ActionLaunch, ref, plain("Launch config"))
}

// launchPressed answers a press of "Launch config" with the config of the
// answer's own settings (DeepSpeed for training, vLLM or llama.cpp for
// serving): as a snippet file in the answer's thread when the answer is a
// message in a channel and uploads work, else (an ephemeral answer, or an
// upload that failed) as text through the response_url, which never
// replaces the answer itself.
func (h *Handler) launchPressed(ctx context.Context, cb slack.InteractionCallback, scope store.Scope, ref string) {
	r, question, failed, ok := h.resultOf(ctx, scope, ref)
	if !ok {
		h.respond(ctx, cb.ResponseURL, failed, ActionLaunch)
		return
	}
	p, a, err := h.answers.Launch(ctx, r)
	var cfg launch.Config
	if err == nil {
		cfg, err = launch.Emit(launch.DefaultKind(a.Request), p)
	}
	if err != nil {
		h.respond(ctx, cb.ResponseURL, ephemeral("No launch config for this answer: "+err.Error()), ActionLaunch)
		return
	}
	uploadFailed := false
	if channel, thread := messageThread(cb); h.cfg.Upload != nil && thread != "" {
		err := h.cfg.Upload.Upload(ctx, File{
			Channel: channel, ThreadTS: thread, Name: cfg.Filename, Title: launchTitle(cfg, a),
			Comment: launchComment(cfg), SnippetType: snippetType(cfg.Kind), Data: []byte(cfg.Text),
		})
		if err == nil {
			return
		}
		h.log.Error("bot: uploading the launch config failed; sending it as text", "kind", cfg.Kind, "err", err)
		uploadFailed = true
	}
	h.respond(ctx, cb.ResponseURL, launchMessage(a, question, cfg, uploadFailed), ActionLaunch)
}

// messageThread is the channel and the thread to reply in for a button on
// a message everyone in the channel sees; thread is "" for an ephemeral
// message, which has no thread to reply in.
func messageThread(cb slack.InteractionCallback) (channel, thread string) {
	channel = cb.Channel.ID
	if channel == "" {
		channel = cb.Container.ChannelID
	}
	if cb.Container.IsEphemeral || cb.Message.Timestamp == "" || channel == "" {
		return channel, ""
	}
	if cb.Message.ThreadTimestamp != "" {
		return channel, cb.Message.ThreadTimestamp
	}
	return channel, cb.Message.Timestamp
}

func launchTitle(cfg launch.Config, a sizing.Answer) string {
	return fmt.Sprintf("%s for %s %s on %s", kindName(cfg.Kind), a.ModelName, display.Method(a.Request.Method), display.Hardware(a.Request.GPUs, a.GPUName))
}

func launchComment(cfg launch.Config) string {
	if len(cfg.Notes) == 0 {
		return ""
	}
	return "• " + strings.Join(cfg.Notes, "\n• ")
}

// kindName is a kind as people write it.
func kindName(k launch.Kind) string {
	switch k {
	case launch.KindDeepSpeed:
		return "DeepSpeed config"
	case launch.KindAccelerate:
		return "Accelerate FSDP config"
	case launch.KindVLLM:
		return "vLLM command"
	case launch.KindLlamaCpp:
		return "llama-server command"
	case launch.KindSkyPilot:
		return "SkyPilot task"
	}
	return string(k)
}

// snippetType is Slack's syntax type for a config's snippet.
func snippetType(k launch.Kind) string {
	switch k {
	case launch.KindDeepSpeed:
		return "javascript"
	case launch.KindAccelerate, launch.KindSkyPilot:
		return "yaml"
	}
	return "shell"
}

// launchMessage is the config as an ephemeral reply, beside the answer.
func launchMessage(a sizing.Answer, question string, cfg launch.Config, uploadFailed bool) Message {
	text := cfg.Text
	shortened := len(text) > maxSnippet
	if shortened {
		text = text[:maxSnippet]
		if i := strings.LastIndexByte(text, '\n'); i > 0 {
			text = text[:i+1]
		}
	}
	blocks := []slack.Block{
		slack.NewSectionBlock(mrkdwn(fmt.Sprintf("*%s* (`%s`)", launchTitle(cfg, a), cfg.Filename)), nil, nil),
		slack.NewSectionBlock(mrkdwn("```"+text+"```"), nil, nil),
	}
	var notes []string
	if uploadFailed {
		notes = append(notes, "The file upload to this thread failed, so here is the text.")
	}
	if shortened {
		notes = append(notes, "Shortened to fit Slack; `fitbot fit --emit` prints it whole.")
	}
	notes = append(notes, cfg.Notes...)
	notes = append(notes, fmt.Sprintf("Other formats: `fitbot fit --emit deepspeed|accelerate|vllm|llama.cpp|skypilot %s`", question))
	blocks = append(blocks, slack.NewContextBlock("", mrkdwn(display.Truncate(strings.Join(notes, "\n"), maxText))))
	return ephemeral(launchTitle(cfg, a), blocks...)
}

// resultOf is the result a button's reference points at: "plan:ID" a
// kept plan's canonical question, "q:QUESTION" the question; question is
// the words answered. The result is the one this process rendered with
// the button (keptResults), or else the question answered again through
// answer.Service (an answer another replica rendered, or one from before
// a restart). A plan scope does not read is answered as one that does
// not exist. When ok is false, failed says why.
func (h *Handler) resultOf(ctx context.Context, scope store.Scope, ref string) (r answer.Result, question string, failed Message, ok bool) {
	question, found := strings.CutPrefix(ref, refQuery)
	if idText, isPlan := strings.CutPrefix(ref, refPlan); isPlan {
		id, err := strconv.ParseInt(idText, 10, 64)
		if err != nil || id <= 0 || h.cfg.Plans == nil {
			return r, "", ephemeral("That button no longer points at a plan fitbot knows. Ask the question again."), false
		}
		plan, err := h.cfg.Plans.Plan(ctx, scope, id)
		if errors.Is(err, store.ErrNotFound) {
			return r, "", ephemeral(fmt.Sprintf("There is no plan #%d.", id)), false
		}
		if err != nil {
			h.log.Error("bot: loading a plan failed", "id", id, "err", err)
			return r, "", apology(), false
		}
		question, found = plan.Canonical, true
		if question == "" {
			question = plan.Question
		}
	}
	if !found {
		return r, "", ephemeral("That button no longer points at a question fitbot knows. Ask the question again."), false
	}
	if r, ok := h.results.get(refQuery + question); ok {
		return r, question, Message{}, true
	}
	r, err := h.answers.HandleQuestion(ctx, answer.Who{}, h.answers.ReadSizing(question))
	switch {
	case err != nil:
		h.log.Error("bot: answering a button's question failed", "err", err)
		return r, "", apology(), false
	case r.Kind == answer.KindClarify:
		return r, "", h.clarifyReply(r), false
	}
	return r, question, Message{}, true
}

// keptResults are the results of the answers this process rendered, by
// their buttons' value ("q:" and the canonical question): a button
// pressed on one (Launch config, Share's picture) reads its result
// instead of answering the question again.
type keptResults struct {
	mu    sync.Mutex
	byRef map[string]answer.Result
}

// maxKeptResults bounds keptResults; past it an arbitrary entry goes.
const maxKeptResults = 1024

// put keeps r as the result of the answer whose buttons carry ref.
func (k *keptResults) put(ref string, r answer.Result) {
	if ref == "" {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.byRef == nil {
		k.byRef = make(map[string]answer.Result)
	}
	if _, ok := k.byRef[ref]; !ok && len(k.byRef) >= maxKeptResults {
		for old := range k.byRef {
			delete(k.byRef, old)
			break
		}
	}
	k.byRef[ref] = r
}

// get is the result kept for ref.
func (k *keptResults) get(ref string) (answer.Result, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	r, ok := k.byRef[ref]
	return r, ok
}
