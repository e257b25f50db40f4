package display

import (
	"fmt"
	"strings"
	"time"

	"github.com/fitbot/fitbot/sizing"
)

// ServeVerdict is the line that answers a serving question as asked:
// "2× H100 SXM 80 GB serve about 55 concurrent users of Llama 3.1 70B
// (fp8) at 4k context: first token 0.41 s, 35 tok/s each, $5,825/month",
// or for a plan the cheapest configuration that meets the load (the
// fastest, "Fastest first for ...", when speed was asked), or that
// nothing does, first.
func ServeVerdict(a sizing.AskAnswer) string {
	s := a.Serve
	if s == nil {
		return ""
	}
	if s.Mode == "capacity" && s.Capacity != nil {
		c := s.Capacity
		hw := Hardware(c.GPUsPerReplica, a.GPUName)
		what := fmt.Sprintf("%s (%s) at %s context", a.ModelName, format(a.Request), contextWords(c.PromptTokens+c.OutputTokens))
		switch {
		case !c.Fits:
			users := s.Users // the users asked, or a small team's 10
			if users == 0 {
				users = 10
			}
			return fmt.Sprintf("❌ %s cannot serve %s: the weights and the engine's reserve leave no room for one request; ask \"gpus for %d users of %s\" for the cheapest that can", hw, what, users, a.Request.Model)
		case s.Users > c.MaxConcurrency:
			return fmt.Sprintf("❌ Does not meet the target: %s hold %s of %s at once, not %d; %s (%s) would, %s",
				hw, Counted(c.MaxConcurrency, "concurrent request", "concurrent requests"), what, s.Users,
				Counted(c.Replicas, "replica", "replicas"), Counted(c.Replicas*c.GPUsPerReplica, "GPU", "GPUs"), speedWords(*c))
		case !c.MeetsTargets && s.RequestsPerSecond > 0 && c.Replicas > 1:
			return fmt.Sprintf("❌ Does not meet the target: %s complete %s of the %s requests/s asked of %s; %s (%s) would, %s",
				hw, Count(c.RequestsPerSecond), Count(s.RequestsPerSecond), what, Counted(c.Replicas, "replica", "replicas"),
				Counted(c.Replicas*c.GPUsPerReplica, "GPU", "GPUs"), speedWords(*c))
		case !c.MeetsTargets:
			return fmt.Sprintf("❌ Does not meet the target: %s serve %s %s%s", hw, what, speedWords(*c), inAll(s, *c))
		}
		who := "about " + Counted(c.Concurrency, "concurrent user", "concurrent users")
		if s.Users > 0 {
			who = Counted(s.Users, "concurrent user", "concurrent users")
		}
		return fmt.Sprintf("%s serve %s of %s: %s%s%s%s", hw, who, what, speedWords(*c), perUser(s, *c), perRequest(a.Request, *c), perPeriod(a.Request, *c))
	}
	if len(s.Options) == 0 {
		return fmt.Sprintf("❌ No configuration in the catalog serves %s", a.ModelName)
	}
	o := s.Options[0]
	load := loadWords(s)
	made := inAll(s, o.Serving)
	first := "Cheapest"
	if s.Fastest {
		first = "Fastest"
	}
	if s.NotOnNamed != "" {
		return fmt.Sprintf("❌ %s. %s that does for %s%s: %s%s", s.NotOnNamed, first, load, targetWords(s), optionWords(o), made)
	}
	if !s.MeetsTargets {
		return fmt.Sprintf("❌ Does not meet the target: nothing in the catalog serves %s of %s%s; the closest is %s%s", load, a.ModelName, targetWords(s), optionWords(o), made)
	}
	if s.Fastest && alone(s) {
		return fmt.Sprintf("Fastest first for %s, one request at a time (batch 1)%s: %s", a.ModelName, targetWords(s), aloneWords(o))
	}
	if s.Fastest {
		first = "Fastest first"
	}
	return oneCardWords(s) + fmt.Sprintf("%s for %s of %s%s: %s%s%s", first, load, a.ModelName, targetWords(s), optionWords(o), made, perUser(s, o.Serving))
}

// perRequest is ", $0.38 per 1k requests" when the question asked what
// requests cost; "" otherwise.
func perRequest(r sizing.Request, v sizing.Serving) string {
	if !r.PerRequestAsked || v.USDPer1kRequests == nil {
		return ""
	}
	return fmt.Sprintf(", %s per 1k requests (%s prompt + %s output tokens each)", USD(*v.USDPer1kRequests), Commas(int64(v.PromptTokens)), Commas(int64(v.OutputTokens)))
}

// oneCardWords is what one of the named card holds, before a plan for
// more users than it does: "One L4 24 GB holds 25 of the 100 users at
// once (awq). "; "" when the plan has no such card.
func oneCardWords(s *sizing.ServeResult) string {
	o := s.OneCard
	if o == nil {
		return ""
	}
	if !o.Serving.Fits {
		return fmt.Sprintf("One %s cannot hold a request of this length. ", o.GPUName)
	}
	return fmt.Sprintf("One %s holds %d of the %d users at once (%s). ", o.GPUName, o.Serving.MaxConcurrency, s.Users, format(o.Request))
}

// perPeriod is ", about 640M output tokens a day at this load" when the
// question asked the tokens of a period (a day, an hour, a week); ""
// otherwise.
func perPeriod(r sizing.Request, v sizing.Serving) string {
	seconds := sizing.Periods[r.TokensPerAsked]
	if seconds == 0 || v.OutputTokensPerSecond <= 0 {
		return ""
	}
	out := v.OutputTokensPerSecond * float64(max(v.Replicas, 1)) * seconds
	all := out * float64(v.PromptTokens+v.OutputTokens) / float64(max(v.OutputTokens, 1))
	article := "a "
	if r.TokensPerAsked == "hour" {
		article = "an "
	}
	return fmt.Sprintf(", about %s output tokens %s%s at this load (%s with the prompts)", Count(out), article, r.TokensPerAsked, Count(all))
}

// alone reports whether a plan is for one request at a time: fastest
// asked with no load said.
func alone(s *sizing.ServeResult) bool {
	return s.Users == 0 && s.RequestsPerSecond == 0 && s.OutputTokensPerSecondTarget == 0 && s.DailyUsers == 0
}

// aloneWords is one planned configuration serving one request:
// "8× B200 180 GB (fp8), first token 44 ms, 223.5 tok/s, $34,923/month
// at runpod".
func aloneWords(o sizing.ServeOption) string {
	v := o.Serving
	s := fmt.Sprintf("%s (%s), first token %s, %s tok/s", Hardware(v.GPUsPerReplica, o.GPUName), format(o.Request), seconds(v.TTFTSeconds), Decimal(v.TokensPerSecondPerUser))
	if v.USDPerMonth != nil {
		s += ", " + USD(*v.USDPerMonth) + "/month"
		if o.Provider != "" {
			s += " at " + o.Provider
			if o.Market == "spot" {
				s += " spot"
			}
		}
	}
	return s
}

// perUser is ", $17.52 a user a month": the month over the users asked,
// what a product manager prices; "" with no users asked or
// no price.
func perUser(s *sizing.ServeResult, v sizing.Serving) string {
	users, who := s.Users, "a user"
	if users <= 0 {
		users, who = s.DailyUsers, "a daily user" // "10k users each send 20 messages a day"
	}
	if users <= 0 || v.USDPerMonth == nil {
		return ""
	}
	return fmt.Sprintf(", %s %s a month", USD(*v.USDPerMonth/float64(users)), who)
}

// inAll is ", 1,036 tok/s in all", the output of all of v's replicas,
// when the question asked an output in all; "" otherwise.
func inAll(s *sizing.ServeResult, v sizing.Serving) string {
	if s.OutputTokensPerSecondTarget <= 0 {
		return ""
	}
	return fmt.Sprintf(", %s tok/s in all", Count(v.OutputTokensPerSecond*float64(max(v.Replicas, 1))))
}

// ServeTable is the serving answer as a table a phone can read: a header
// and one row per configuration.
func ServeTable(a sizing.AskAnswer) [][]string {
	s := a.Serve
	if s == nil {
		return nil
	}
	rows := [][]string{{"GPUs", "weights", "users", "first token", "tok/s each", "$/month", "$/1M out"}}
	row := func(hw string, q sizing.Request, v sizing.Serving) []string {
		if !v.Fits {
			return []string{hw, format(q), "0", "—", "—", money(v.USDPerMonth), "—"}
		}
		users := fmt.Sprintf("%d", v.Concurrency*v.Replicas)
		if v.Replicas > 1 {
			users = fmt.Sprintf("%d×%d", v.Replicas, v.Concurrency)
		}
		return []string{hw, format(q), users, seconds(v.TTFTSeconds), Decimal(v.TokensPerSecondPerUser), money(v.USDPerMonth), money(v.USDPerMillionOutputTokens)}
	}
	if s.Capacity != nil {
		rows = append(rows, row(Hardware(s.Capacity.GPUsPerReplica, a.GPUName), a.Request, *s.Capacity))
	}
	for _, o := range s.Options {
		hw := Hardware(o.Serving.GPUsPerReplica, o.GPUName)
		if o.Serving.Replicas > 1 {
			hw = fmt.Sprintf("%d × %s", o.Serving.Replicas, hw)
		}
		rows = append(rows, row(hw, o.Request, o.Serving))
	}
	return rows
}

// ServeSummary is a serving answer in one line, as a kept plan shows it.
func ServeSummary(a sizing.AskAnswer) string {
	s := a.Serve
	switch {
	case s == nil:
		return ""
	case s.Capacity != nil:
		return fmt.Sprintf("%s on %s, %s first token, %s tok/s each", Counted(s.Capacity.Concurrency, "concurrent user", "concurrent users"),
			Hardware(s.Capacity.GPUsPerReplica, a.GPUName), seconds(s.Capacity.TTFTSeconds), Decimal(s.Capacity.TokensPerSecondPerUser))
	case len(s.Options) > 0 && s.Fastest:
		return "fastest: " + optionWords(s.Options[0])
	case len(s.Options) > 0:
		return "cheapest: " + optionWords(s.Options[0])
	}
	return "no configuration serves it"
}

// format is the weight format of a request: "fp8", "awq", "bf16".
func format(r sizing.Request) string {
	if r.Quant != sizing.QuantNone {
		return string(r.Quant)
	}
	return string(r.Precision)
}

// contextWords is a request length as people say it: "4k", "2,500".
func contextWords(n int) string {
	if n >= 1024 && n%1024 == 0 {
		return fmt.Sprintf("%dk", n/1024)
	}
	return Commas(int64(n))
}

// speedWords is "first token 0.41 s, 35 tok/s each, $5,825/month".
func speedWords(v sizing.Serving) string {
	s := fmt.Sprintf("first token %s, %s tok/s each", seconds(v.TTFTSeconds), Decimal(v.TokensPerSecondPerUser))
	if v.TTFTSeconds == 0 && v.TokensPerSecondPerUser == 0 {
		// Infinite latencies, written as zero: the requests arrive faster
		// than the replica serves them, and its queue grows without end.
		s = "overloaded: requests arrive faster than it serves them"
	}
	if v.USDPerMonth != nil {
		s += ", " + USD(*v.USDPerMonth) + "/month"
	}
	return s
}

// optionWords is one planned configuration in words.
func optionWords(o sizing.ServeOption) string {
	v := o.Serving
	hw := fmt.Sprintf("%s (%s)", Hardware(v.GPUsPerReplica, o.GPUName), format(o.Request))
	switch {
	case v.Replicas > 1 && v.GPUsPerReplica > 1:
		hw = fmt.Sprintf("%d replicas of %s, %d GPUs in all", v.Replicas, hw, v.Replicas*v.GPUsPerReplica)
	case v.Replicas > 1:
		hw = fmt.Sprintf("%d replicas of %s", v.Replicas, hw)
	}
	s := fmt.Sprintf("%s, %s each, %s", hw, Counted(v.Concurrency, "user", "users"), speedWords(v))
	if o.Provider != "" && v.USDPerMonth != nil {
		s += " at " + o.Provider
		if o.Market == "spot" {
			s += " spot"
		}
	}
	return s
}

// loadWords is the asked load: "200 users", "10 requests/s".
func loadWords(s *sizing.ServeResult) string {
	var parts []string
	if s.Users > 0 {
		parts = append(parts, Counted(s.Users, "user", "users"))
	}
	if s.RequestsPerSecond > 0 {
		parts = append(parts, TrimZero(fmt.Sprintf("%.2f", s.RequestsPerSecond))+" requests/s")
	}
	if s.OutputTokensPerSecondTarget > 0 {
		parts = append(parts, Count(s.OutputTokensPerSecondTarget)+" output tokens/s in all")
	}
	if len(parts) == 0 {
		return "one replica"
	}
	return strings.Join(parts, " and ")
}

// targetWords is " with first token under 1 s and 20 tok/s each".
func targetWords(s *sizing.ServeResult) string {
	var parts []string
	if s.TTFTTargetSeconds > 0 {
		parts = append(parts, "first token under "+seconds(s.TTFTTargetSeconds))
	}
	if s.TokensPerSecondPerUserTarget > 0 {
		parts = append(parts, Decimal(s.TokensPerSecondPerUserTarget)+" tok/s each")
	}
	if len(parts) == 0 {
		return ""
	}
	return " with " + strings.Join(parts, " and ")
}

// seconds is a latency: "0.41 s", "35 ms".
func seconds(v float64) string {
	if v > 0 && v < 0.1 {
		return fmt.Sprintf("%.0f ms", v*1000)
	}
	return TrimZero(fmt.Sprintf("%.2f", v)) + " s"
}

// money is a price or "—" when unknown.
func money(v *float64) string {
	if v == nil {
		return "—"
	}
	return USD(*v)
}

// ServingLine is an inference answer's serving figures in one line: what
// the engine's KV cache holds and how the answered load runs ("Serving
// (vllm at 0.9): 90,560 tokens of KV cache, 44 requests of 2,048 tokens
// at once; at 44: first token 0.21 s, 31 tok/s each"). "" for none.
func ServingLine(sv *sizing.Serving) string {
	if sv == nil {
		return ""
	}
	head := fmt.Sprintf("Serving (%s at %s): ", sv.Engine, TrimZero(fmt.Sprintf("%.2f", sv.GPUMemoryUtilization)))
	if sv.Engine == sizing.EngineLlamaCPP {
		// Apple silicon: no vLLM, and the memory is the GPU's share of
		// the unified memory, not a setting of the engine.
		head = fmt.Sprintf("Serving (llama.cpp or MLX, in the GPU's %.0f%% of unified memory): ", sv.UnifiedMemoryShare*100)
	}
	if !sv.Fits {
		return head + "no room for the KV cache of one request after the weights and the engine's reserve"
	}
	s := fmt.Sprintf("%s%s tokens of KV cache, %s of %s tokens at once; at %d: %s", head, Commas(sv.KVCacheTokens),
		Counted(sv.MaxConcurrency, "request", "requests"), Commas(int64(sv.PromptTokens+sv.OutputTokens)), sv.Concurrency, speedWords(*sv))
	return s
}

// FirstTokenWords is the asked time to first token of one request alone
// ("first token 4.21 s for a 32,768-token prompt at batch 1"), for the
// speed line; "" when the question did not ask it or the answer has no
// serving figures.
func FirstTokenWords(a sizing.Answer) string {
	sv := a.Serving
	if !a.Request.FirstTokenAsked || sv == nil || sv.AloneTTFTSeconds <= 0 {
		return ""
	}
	n := Commas(int64(sv.PromptTokens))
	return fmt.Sprintf("first token %s for %s %s-token prompt at batch 1", seconds(sv.AloneTTFTSeconds), article(n), n)
}

// article is the indefinite article before a number as it is read:
// "an 8,192", "an 11,000", "a 32,768".
func article(n string) string {
	lead, _, _ := strings.Cut(n, ",")
	if strings.HasPrefix(n, "8") || lead == "11" || lead == "18" {
		return "an"
	}
	return "a"
}

// NotServable reports whether an inference answer fits the card's memory
// while its serving engine, which keeps a share of the card back, has no
// room for one request's KV cache: the verdict says so first, since the
// model loads but serves nothing.
func NotServable(a sizing.Answer) bool {
	return a.Fits && a.Request.Method == sizing.MethodInference && a.Serving != nil && !a.Serving.Fits
}

// ServePurchase is the line a serving answer adds when the question asked
// which cards to own: "To own: 4× RTX 3090 24 GB cost $2,800-$4,000 to
// buy (4 × $700-$1,000 a card, seen 2026-02-22: ...), plus about $2,500
// for the machine around them; a spare card for redundancy is common".
// It names the option priced when it is not the first, and says so when
// fitbot has no purchase price for any; "" when owning was not asked.
func ServePurchase(a sizing.AskAnswer) string {
	s := a.Serve
	if s == nil || !a.Request.Own {
		return ""
	}
	p := s.Purchase
	if p == nil {
		var known []string
		for _, pp := range sizing.PurchasePrices() {
			known = append(known, pp.GPU)
		}
		switch {
		case len(s.Options) > 0:
			return fmt.Sprintf("To own: fitbot has no purchase price for %s or the other cards listed; it has them for %s", s.Options[0].GPUName, strings.Join(known, ", "))
		case s.Capacity != nil:
			return fmt.Sprintf("To own: fitbot has no purchase price for %s; it has them for %s", a.GPUName, strings.Join(known, ", "))
		}
		return ""
	}
	lead := "To own: "
	if p.Option > 0 && p.Option < len(s.Options) {
		lead = fmt.Sprintf("To own: fitbot has no purchase price for %s; the first option it has one for is row %d: ", s.Options[0].GPUName, p.Option+1)
	}
	verb, them := "cost", "them"
	if p.Cards == 1 {
		verb, them = "costs", "it"
	}
	machines := "the machine"
	if p.Machines > 1 {
		machines = fmt.Sprintf("each of the %d machines", p.Machines)
	}
	each := ""
	if p.Cards > 1 {
		each = fmt.Sprintf("%d × %s-%s a card, ", p.Cards, USD(p.CardUSDLow), USD(p.CardUSDHigh))
	}
	return fmt.Sprintf("%s%s %s %s-%s to buy (%sseen %s: %s), plus about %s for %s around %s; a spare card for redundancy is common",
		lead, Hardware(p.Cards, p.GPUName), verb, USD(p.USDLow), USD(p.USDHigh), each, p.AsOf.Format(time.DateOnly), p.Source, USD(p.HostUSD), machines, them)
}
