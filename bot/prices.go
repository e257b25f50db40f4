package bot

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/fitbot/fitbot/answer"
	"github.com/fitbot/fitbot/display"
	"github.com/fitbot/fitbot/pricing"
	"github.com/slack-go/slack"
)

// maxOffersListed is how many offers one prices message shows.
const maxOffersListed = 25

// pricesCommand shows the cheapest offer per GPU (`/fit prices`), every
// offer for one GPU (`/fit prices h100 sxm`) or for every variant of a
// family (`/fit prices a100`). With no prices stored yet it shows the
// built-in sheet, saying how old it is.
func (h *Handler) pricesCommand(ctx context.Context, cmd slack.SlashCommand, arg string) Message {
	if strings.EqualFold(arg, "refresh") {
		return h.refreshCommand(ctx, cmd)
	}
	now := h.now()
	if arg == "" {
		var offers []pricing.Offer
		if h.cfg.Prices != nil {
			var err error
			if offers, err = h.cfg.Prices.CheapestOffers(ctx); err != nil {
				h.log.Error("bot: reading prices failed", "err", err)
				return apology()
			}
		}
		if len(offers) == 0 {
			return sheetMessage("Cheapest GPU prices", pricing.DefaultSheet().CheapestPerGPU(), now)
		}
		return pricesMessage("Cheapest GPU prices", offers, now)
	}
	gpus := pricing.GPUFamily(arg)
	title := "Prices for every " + strings.ToUpper(strings.TrimSpace(arg))
	if gpus == nil {
		gpu, err := lookupGPU(arg)
		if err != nil {
			// More than a card ("spot h100", "h100 on runpod"): read as the
			// same price question asked in words.
			if q := h.answers.Read("prices " + arg); q.Kind() == answer.KindPrices && len(q.Route.GPUs) > 0 {
				return h.priceAnswer(ctx, q.Route)
			}
			return h.failure("", err)
		}
		gpus, title = []string{gpu}, "Prices for "+gpu
	}
	var offers []pricing.Offer
	for _, gpu := range gpus {
		if h.cfg.Prices == nil {
			break
		}
		o, err := h.cfg.Prices.OffersForGPU(ctx, gpu)
		if err != nil {
			h.log.Error("bot: reading prices failed", "gpu", gpu, "err", err)
			return apology()
		}
		offers = append(offers, o...)
	}
	if len(offers) == 0 {
		var sheet []pricing.Offer
		for _, o := range pricing.DefaultSheet().Offers() {
			if slices.Contains(gpus, o.GPU) {
				sheet = append(sheet, o)
			}
		}
		msg := sheetMessage(title, sheet, now)
		if len(gpus) == 1 {
			msg = onePricesGPU(msg, gpus[0])
		}
		return msg
	}
	return onePricesGPU(pricesMessage(title, offers, now), pictureGPU(gpus, offers))
}

// pictureGPU is the GPU whose price picture a listing of gpus carries:
// the first of them with offers (a family's, "every H100", is mostly one
// card's).
func pictureGPU(gpus []string, offers []pricing.Offer) string {
	for _, g := range gpus {
		for _, o := range offers {
			if o.GPU == g {
				return g
			}
		}
	}
	return ""
}

// sheetMessage lists built-in sheet offers, saying the store has none yet
// and how old the sheet is.
func sheetMessage(title string, offers []pricing.Offer, now time.Time) Message {
	msg := listPrices(title+" (built-in sheet)", offers, now, false)
	sheet := pricing.DefaultSheet()
	note := fmt.Sprintf("No prices fetched yet: this is fitbot's built-in price sheet, dated %s to %s (the oldest %s). An admin can run `/fit prices refresh`.",
		sheet.Oldest().Format(time.DateOnly), sheet.Newest().Format(time.DateOnly), formatAge(sheet.Oldest(), now))
	msg.Blocks = append(msg.Blocks, slack.NewContextBlock("", mrkdwn(note)))
	return msg
}

// refreshCommand fetches prices now for an admin, acknowledging at once
// and posting the outcome to the command's response_url.
func (h *Handler) refreshCommand(ctx context.Context, cmd slack.SlashCommand) Message {
	switch {
	case !h.cfg.Policy.isAdmin(cmd.UserID):
		return ephemeral("Only fitbot admins (FITBOT_ADMINS) can refresh prices.")
	case h.cfg.Refresh == nil || cmd.ResponseURL == "":
		return ephemeral("Refreshing from Slack is not available on this fitbot; run `fitbot prices refresh` on the server.")
	}
	h.later(ctx, "refresh", func(ctx context.Context) {
		summary, err := h.cfg.Refresh(ctx)
		msg := ephemeral("Prices refreshed: " + summary)
		if err != nil {
			h.log.Error("bot: price refresh from Slack failed", "err", err)
			msg = ephemeral("The price refresh failed; the last good prices stay in use. The details are in fitbot's log.")
		}
		msg.ReplaceOriginal = true
		h.respond(ctx, cmd.ResponseURL, msg, "refresh")
	})
	return ephemeral("Refreshing prices from the providers… the result follows here.")
}

// pricesMessage lists offers by GPU (named with its variant: "A100 PCIe
// 80 GB"), fresh before stale, cheapest per GPU-hour first, with
// provider, market, region and the age of each price; a stale one says
// so.
func pricesMessage(title string, offers []pricing.Offer, now time.Time) Message {
	return listPrices(title, offers, now, true)
}

// listPrices is pricesMessage; markStale false leaves out the per-row
// stale marks where the message says once that every price is old (the
// built-in sheet).
func listPrices(title string, offers []pricing.Offer, now time.Time, markStale bool) Message {
	if len(offers) == 0 {
		return ephemeral(title + ": no offers known yet.")
	}
	offers = slices.Clone(offers)
	slices.SortStableFunc(offers, func(a, b pricing.Offer) int {
		return cmp.Or(cmp.Compare(a.GPU, b.GPU), pricing.CompareOffers(a, b, now))
	})
	blocks := []slack.Block{slack.NewHeaderBlock(plain(title))}
	var b strings.Builder
	for i, o := range offers {
		if i == maxOffersListed {
			fmt.Fprintf(&b, "\n_%d more not shown._", len(offers)-maxOffersListed)
			break
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%s  *%s*/GPU-h  %s %s", display.GPUName(o.GPU), display.USD(o.USDPerGPUHour), o.Provider, strings.ReplaceAll(string(o.Market), "_", "-"))
		if o.Tier != "" {
			fmt.Fprintf(&b, " (%s)", o.Tier)
		}
		if o.Region != "" {
			fmt.Fprintf(&b, ", %s", o.Region)
		}
		if o.GPUCount != 1 {
			fmt.Fprintf(&b, ", %g GPUs for %s/h", o.GPUCount, display.USD(o.USDPerHour))
		}
		fmt.Fprintf(&b, ", %s", formatAge(o.AsOf(), now))
		if markStale && o.Stale(now) {
			b.WriteString(" _(stale)_")
		}
	}
	blocks = append(blocks, slack.NewSectionBlock(mrkdwn(b.String()), nil, nil),
		slack.NewContextBlock("", mrkdwn("Per GPU-hour, on-demand unless marked. `/fit prices GPU` lists every offer for one GPU.")))
	count := fmt.Sprintf("%d offers", len(offers))
	if len(offers) == 1 {
		count = "1 offer"
	}
	return ephemeral(title+": "+count, blocks...)
}
