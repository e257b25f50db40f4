package bot

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"time"

	"github.com/slack-go/slack"

	"github.com/fitbot/fitbot/chart"
	"github.com/fitbot/fitbot/digest"
	"github.com/fitbot/fitbot/pricing"
	"github.com/fitbot/fitbot/sizing"
	"github.com/fitbot/fitbot/store"
)

// PriceHistory reads the price observations a price picture draws;
// *store.DB is one.
type PriceHistory interface {
	ObservationsBetween(ctx context.Context, from, to time.Time) ([]pricing.Offer, error)
}

// pricesBlockPrefix starts the header block id of a one-GPU price
// listing, followed by the GPU's catalog id: the listing carries the
// GPU's price picture (the header's text is the GPU's display name).
const pricesBlockPrefix = "prices:"

// onePricesGPU marks msg, a price listing, as carrying gpu's price
// picture; gpu "" leaves it as it is.
func onePricesGPU(msg Message, gpu string) Message {
	if gpu != "" && len(msg.Blocks) > 0 {
		if hb, ok := msg.Blocks[0].(*slack.HeaderBlock); ok {
			hb.BlockID = pricesBlockPrefix + gpu
		}
	}
	return msg
}

// picture is what an answer's picture is drawn from: the estimate (its
// memory picture), or a serving answer and the query it answered (its
// latency and throughput curve).
type picture struct {
	fit   *sizing.Answer
	serve *sizing.AskAnswer
	query sizing.Query
}

// withPicture is msg carrying the picture p.
func withPicture(msg Message, p picture) Message {
	msg.picture = &p
	return msg
}

// attachPicture uploads the picture of a reply just posted to asker in
// their channel (in thread): the picture the answer carries (Message's
// picture), a one-GPU price listing's price history. A reply without
// one, or a Handler without an uploader, uploads nothing; a failed upload
// is logged, the reply stays as it is. Nothing is answered again.
func (h *Handler) attachPicture(ctx context.Context, asker who, thread string, msg Message) {
	channel := asker.channel
	if h.cfg.Upload == nil || channel == "" {
		return
	}
	var err error
	if p := msg.picture; p != nil {
		err = h.uploadPicture(ctx, channel, thread, *p, "")
	} else if gpu := pricesGPU(msg.Blocks); gpu != "" {
		if h.cfg.History == nil {
			h.log.Info("bot: no price picture: no price history is configured", "gpu", gpu)
			return
		}
		var drawn bool
		drawn, err = uploadPricePicture(ctx, h.cfg.Upload, h.cfg.History, channel, thread, gpu, h.now())
		if err == nil && !drawn {
			h.log.Info("bot: no price picture: no prices observed in the window", "gpu", gpu, "days", chart.HistoryDays)
		}
	}
	if err != nil {
		h.log.Error("bot: uploading the picture failed; the text answer stands", "channel", channel, "err", err)
	}
}

// uploadPicture uploads the picture p.
func (h *Handler) uploadPicture(ctx context.Context, channel, thread string, p picture, comment string) error {
	if p.serve != nil {
		return h.uploadServeCurve(ctx, channel, thread, *p.serve, p.query, comment)
	}
	return h.uploadMemoryPicture(ctx, channel, thread, *p.fit, comment)
}

// pricesGPU is the GPU of a one-GPU price listing (onePricesGPU), ""
// for any other message.
func pricesGPU(blocks []slack.Block) string {
	if len(blocks) == 0 {
		return ""
	}
	hb, ok := blocks[0].(*slack.HeaderBlock)
	if !ok {
		return ""
	}
	gpu, _ := strings.CutPrefix(hb.BlockID, pricesBlockPrefix)
	if gpu == hb.BlockID {
		return ""
	}
	return gpu
}

// uploadMemoryPicture uploads an answer's memory picture.
func (h *Handler) uploadMemoryPicture(ctx context.Context, channel, thread string, a sizing.Answer, comment string) error {
	d := chart.Memory(a)
	png, err := chart.MemoryPNG(d)
	if err != nil {
		return fmt.Errorf("draw the memory picture: %w", err)
	}
	return h.cfg.Upload.Upload(ctx, File{
		Channel: channel, ThreadTS: thread, Name: "memory.png", Title: strings.ReplaceAll(d.Title, "\n", " · "),
		AltText: memoryAltText(d), Comment: comment, Data: png,
	})
}

// memoryAltText says what the memory picture shows, for screen readers.
func memoryAltText(d chart.MemoryData) string {
	parts := make([]string, len(d.Segments))
	for i, s := range d.Segments {
		parts[i] = fmt.Sprintf("%s %.1f GiB", s.Label, s.GiB)
	}
	return fmt.Sprintf("Memory per GPU, %.1f of %.1f GiB: %s.", d.TotalGiB, d.CardGiB, strings.Join(parts, ", "))
}

// uploadPricePicture uploads a GPU's price history of the last
// chart.HistoryDays; drawn is false when there was nothing to draw.
func uploadPricePicture(ctx context.Context, up FileUploader, history PriceHistory, channel, thread, gpu string, now time.Time) (drawn bool, err error) {
	now = now.UTC()
	obs, err := history.ObservationsBetween(ctx, now.AddDate(0, 0, -chart.HistoryDays), now)
	if err != nil {
		return false, fmt.Errorf("price history of %s: %w", gpu, err)
	}
	name := gpu
	if g, _, err := sizing.LookupGPU(gpu); err == nil {
		name = g.Name
	}
	d := chart.Prices(name, gpu, obs, now)
	if len(d.Series) == 0 {
		return false, nil // nothing to draw yet
	}
	png, err := chart.PricesPNG(d)
	if err != nil {
		return false, fmt.Errorf("draw the price picture: %w", err)
	}
	return true, up.Upload(ctx, File{
		Channel: channel, ThreadTS: thread, Name: gpu + "-prices.png", Title: strings.ReplaceAll(d.Title, "\n", " · "),
		AltText: fmt.Sprintf("Price per GPU-hour of %s over %d days, one line per provider.", name, chart.HistoryDays), Data: png,
	})
}

// digestChartGPU is the GPU whose picture the weekly digest carries: the
// one with the week's largest move, "" in a quiet week.
func digestChartGPU(d digest.Digest) string {
	gpu, best := "", 0.0
	for _, m := range d.Moves {
		if c := math.Abs(m.ChangePct); c > best {
			gpu, best = m.GPU, c
		}
	}
	return gpu
}

// attachChart uploads the week's price picture into the digest's thread:
// the history of the GPU with the week's largest move. A failure is
// logged; the digest is posted and recorded already.
func (p *DigestPoster) attachChart(ctx context.Context, log *slog.Logger, ts string, d digest.Digest) {
	gpu := digestChartGPU(d)
	if p.upload == nil || p.history == nil || gpu == "" {
		return
	}
	uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), p.ttl/2)
	defer cancel()
	if _, err := uploadPricePicture(uctx, p.upload, p.history, p.channel, ts, gpu, d.WeekEnd); err != nil {
		log.Error("digest: uploading the week's picture failed; the digest stands", "gpu", gpu, "err", err)
	}
}

// shareChart uploads the memory picture of an answer just shared in the
// channel, right under it (the response_url post that shared it returns no
// timestamp to thread on).
func (h *Handler) shareChart(ctx context.Context, cb slack.InteractionCallback, scope store.Scope, ref string) {
	channel := cb.Channel.ID
	if h.cfg.Upload == nil || channel == "" {
		return
	}
	r, _, _, ok := h.resultOf(ctx, scope, ref)
	if !ok {
		return
	}
	var p picture
	switch {
	case r.Ask != nil && r.Ask.Serve != nil:
		p = picture{serve: r.Ask, query: r.Question.Parsed.Query}
	case r.Fit != nil:
		p = picture{fit: &r.Fit.Estimate}
	default:
		return
	}
	if err := h.uploadPicture(ctx, channel, "", p, fmt.Sprintf("Picture of the answer <@%s> shared", cb.User.ID)); err != nil {
		h.log.Error("bot: uploading the shared answer's picture failed; the answer stands", "channel", channel, "err", err)
	}
}

// withLaunch adds the "Launch config" button to the answer's button block.
func withLaunch(b slack.Block, ref string) {
	if ab, ok := b.(*slack.ActionBlock); ok && ab.Elements != nil {
		ab.Elements.ElementSet = append(ab.Elements.ElementSet, launchButton(ref))
	}
}

// sharedBlocks are an answer's blocks as the channel sees them when it is
// shared: the private buttons go, the "Launch config" button stays.
func sharedBlocks(blocks []slack.Block) []slack.Block {
	out := make([]slack.Block, 0, len(blocks))
	for _, b := range blocks {
		ab, ok := b.(*slack.ActionBlock)
		if !ok {
			out = append(out, b)
			continue
		}
		if ab.BlockID != answerActionsID || ab.Elements == nil {
			continue
		}
		for _, el := range ab.Elements.ElementSet {
			if btn, ok := el.(*slack.ButtonBlockElement); ok && btn.ActionID == ActionLaunch {
				out = append(out, slack.NewActionBlock(answerActionsID, launchButton(btn.Value)))
			}
		}
	}
	return out
}
