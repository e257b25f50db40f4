package reading

import (
	"strings"
)

// Money is what a question said of money: a budget for the job ("$5k a
// month", "budget is $2000") or the price of one GPU-hour to count it
// at ("at $2.5/hr"). The answer counts the run at the asker's price and
// says what the budget buys.
type Money struct {
	BudgetUSD   float64 `json:"budget_usd,omitempty"`   // 0: none said
	PerMonth    bool    `json:"per_month,omitempty"`    // the budget is a month's ("$5k/month")
	BudgetWords string  `json:"budget_words,omitempty"` // the asker's words: "$5k/month"

	USDPerGPUHour float64 `json:"usd_per_gpu_hour,omitempty"` // the asker's price of one GPU-hour; 0: none said
	PriceWords    string  `json:"price_words,omitempty"`      // the asker's words: "2.5$/hr"
}

// The words of an amount of money and of what it is per (vocab.txt, its
// parse_money.go section).
var (
	currencyWords = vocab.set("money_currency")
	hourUnits     = vocab.set("money_hour")
	hoursGlued    = vocab.set("money_hour_glued")
	monthUnits    = vocab.set("money_month")
	perWords      = vocab.set("money_per")
	gpuWords      = vocab.set("money_gpu")
	perAdverbs    = vocab.values("money_per_one")
	priceAt       = vocab.set("money_at")
	budgetWords   = vocab.set("money_budget")
	budgetBetween = vocab.set("money_budget_between")
)

// maxBudgetUSD and maxGPUHourUSD bound the amounts read: larger ones are
// not a budget or a price anybody sizes a run against.
const (
	maxBudgetUSD  = 1e9
	maxGPUHourUSD = 1000
)

// readMoney finds a price per GPU-hour ("$2.5/hr", "2.5$/hr", "at $2/h",
// "$2.50 per gpu hour") and a budget ("$5k/month", "$2000", "$2,000",
// "5k usd", "2k dollars a month") and returns the tokens the main parse
// should read (the rest), filtered in place.
func readMoney(input string, toks []token) ([]token, Money) {
	var m Money
	w := lowsOf(toks)
	var drop []bool
	for i := 0; i < len(toks); i++ {
		v, unit, n, ok := amountAt(input, toks, i)
		if !ok {
			continue
		}
		end := i + n
		// What the amount is per: glued ("/hr", "/month") or in words
		// ("per gpu hour", "a month", "monthly").
		per := strings.TrimPrefix(unit, "/")
		if per == "" {
			j := end
			if perWords.has(w(j)) {
				j++
			}
			if gpuWords.has(w(j)) {
				j++
			}
			switch adverb, ok := perAdverbs[w(end)]; {
			case ok:
				per, end = adverb, end+1
			case j > end && (hourUnits.has(w(j)) || monthUnits.has(w(j))):
				per, end = w(j), j+1
			case j > end && strings.HasPrefix(w(j), "/") && hourUnits.has(w(j)[1:]):
				per, end = "hour", j+1 // "$2 per gpu/hr"
			}
		}
		per = strings.TrimPrefix(strings.TrimPrefix(per, "gpu/"), "gpu-")
		from := i
		switch {
		case hourUnits.has(per) || hoursGlued.has(per):
			if m.USDPerGPUHour > 0 || v > maxGPUHourUSD {
				continue
			}
			from -= btoi(priceAt.has(w(i - 1))) // "at $2/h"
			m.USDPerGPUHour, m.PriceWords = v, span(input, toks, from, end)
		case per == "" || monthUnits.has(per):
			if m.BudgetUSD > 0 || v > maxBudgetUSD {
				continue
			}
			m.BudgetUSD, m.PerMonth, m.BudgetWords = v, per != "", span(input, toks, i, end)
		default:
			continue
		}
		if drop == nil {
			drop = make([]bool, len(toks))
		}
		for k := from; k < end; k++ {
			drop[k] = true
		}
		i = end - 1
	}
	return without(toks, drop), m
}

// afterBudget reports whether the amount at toks[i] follows "budget"
// ("budget 20k/month", "budget is 2000", "budget of 5k", "budget is like
// 5k"): money without its currency sign.
func afterBudget(toks []token, i int) bool {
	for j := i - 1; j >= 0 && j >= i-3; j-- {
		switch k := low(toks[j]); {
		case budgetWords.has(k):
			return true
		case !budgetBetween.has(k):
			return false
		}
	}
	return false
}

// amountAt reads an amount of money at toks[i]: "$2.5", "2.5$", "$5k",
// "$2,000" (two tokens: the comma separates words), "5k usd", "2k
// dollars", with what is glued to it after a slash ("$5k/month" gives
// "/month"). It reports the dollars, that unit and the tokens used.
func amountAt(input string, toks []token, i int) (float64, string, int, bool) {
	raw := strings.ToLower(toks[i].raw)
	dollar := strings.HasPrefix(raw, "$")
	raw = strings.TrimPrefix(raw, "$")
	num, unit := raw, ""
	if k := strings.IndexByte(raw, '/'); k >= 0 {
		num, unit = raw[:k], raw[k:]
	}
	if s, ok := strings.CutSuffix(num, "$"); ok && !dollar {
		num, dollar = s, true // "2.5$/hr"
	}
	if s, ok := strings.CutSuffix(num, "usd"); ok && !dollar && s != "" {
		num, dollar = s, true // "5kusd"
	}
	n, ok := parseNumber(num)
	if !ok || n.neg {
		return 0, "", 0, false
	}
	n.exp += n.scale()
	v := exactFloat(n)
	used := 1
	// "$2,000": the comma split the thousands off.
	if dollar && unit == "" && n.suffix == "" && i+1 < len(toks) && toks[i].end < len(input) && input[toks[i].end] == ',' &&
		toks[i+1].start == toks[i].end+1 && len(toks[i+1].raw) >= 3 && isDigit(toks[i+1].raw[0]) {
		if rest, ok := parseNumber(strings.ToLower(toks[i+1].raw[:3])); ok && rest.suffix == "" {
			v = v*1000 + exactFloat(rest)
			used = 2
			if r := strings.ToLower(toks[i+1].raw[3:]); strings.HasPrefix(r, "/") {
				unit = r
			} else if r != "" {
				return 0, "", 0, false
			}
		}
	}
	if !dollar && afterBudget(toks, i) {
		dollar = true // "budget 20k/month", "budget is 2000"
	}
	if !dollar && i+used < len(toks) {
		// "5k usd", "2k dollars", "5k usd/month"
		next := strings.ToLower(toks[i+used].raw)
		cur, glued, _ := strings.Cut(next, "/")
		if budgetWords.has(cur) && unit == "" && n.suffix != "" && v > 0 { // "12k budget"; "4090 budget" is a card; "0k budget" no amount
			// "a 12k budget/month": the amount is the budget's.
			if glued != "" {
				unit = "/" + glued
			}
			return v, unit, used + 1, true
		}
		if !currencyWords.has(cur) || unit != "" {
			return 0, "", 0, false
		}
		dollar, used = true, used+1
		if glued != "" {
			unit = "/" + glued
		}
	}
	if !dollar || v <= 0 {
		return 0, "", 0, false
	}
	return v, unit, used, true
}
