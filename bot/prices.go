package bot

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/fitbot/fitbot/display"
	"github.com/fitbot/fitbot/pricing"
	"github.com/slack-go/slack"
)

// maxOffersListed is how many offers one prices message shows.
const maxOffersListed = 25

// pricesCommand shows the cheapest offer per GPU (`/fit prices`) or every
// offer for one GPU (`/fit prices h100`).
func (h *Handler) pricesCommand(ctx context.Context, cmd slack.SlashCommand, arg string) Message {
	if strings.EqualFold(arg, "refresh") {
		return h.refreshCommand(ctx, cmd)
	}
	if h.cfg.Prices == nil {
		return ephemeral("Prices are not available yet on this fitbot. Answers use the built-in price sheet where it has the GPU.")
	}
	if arg == "" {
		offers, err := h.cfg.Prices.CheapestOffers(ctx)
		if err != nil {
			h.log.Error("bot: reading prices failed", "err", err)
			return apology()
		}
		return pricesMessage("Cheapest GPU prices", offers, h.now())
	}
	gpu, err := lookupGPU(arg)
	if err != nil {
		return h.failure("", err)
	}
	offers, err := h.cfg.Prices.OffersForGPU(ctx, gpu)
	if err != nil {
		h.log.Error("bot: reading prices failed", "gpu", gpu, "err", err)
		return apology()
	}
	return pricesMessage("Prices for "+gpu, offers, h.now())
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

// pricesMessage lists offers, cheapest per GPU-hour first, with provider,
// market, region and the age of each price.
func pricesMessage(title string, offers []pricing.Offer, now time.Time) Message {
	if len(offers) == 0 {
		return ephemeral(title + ": no offers known yet.")
	}
	offers = slices.Clone(offers)
	slices.SortStableFunc(offers, func(a, b pricing.Offer) int {
		return cmp.Or(cmp.Compare(a.GPU, b.GPU), cmp.Compare(a.USDPerGPUHour, b.USDPerGPUHour))
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
		fmt.Fprintf(&b, "`%s`  *%s*/GPU-h  %s %s", o.GPU, display.USD(o.USDPerGPUHour), o.Provider, strings.ReplaceAll(string(o.Market), "_", "-"))
		if o.Tier != "" {
			fmt.Fprintf(&b, " (%s)", o.Tier)
		}
		if o.Region != "" {
			fmt.Fprintf(&b, ", %s", o.Region)
		}
		if o.GPUCount != 1 {
			fmt.Fprintf(&b, ", %g GPUs for %s/h", o.GPUCount, display.USD(o.USDPerHour))
		}
		fmt.Fprintf(&b, ", %s", formatAge(o.ObservedAt, now))
	}
	blocks = append(blocks, slack.NewSectionBlock(mrkdwn(b.String()), nil, nil),
		slack.NewContextBlock("", mrkdwn("Per GPU-hour, on-demand unless marked. `/fit prices GPU` lists every offer for one GPU.")))
	return ephemeral(fmt.Sprintf("%s: %d offers", title, len(offers)), blocks...)
}
