package bot

import (
	"slices"
	"strings"
	"sync"
	"time"
)

// Policy says who may use the bot and how often. Empty lists allow
// everyone (FITBOT_ALLOWED_TEAMS, FITBOT_ALLOWED_CHANNELS); Admins
// (FITBOT_ADMINS) are the user ids allowed the commands that spend money
// or change shared state.
type Policy struct {
	AllowedTeams     []string // Slack team (workspace) ids; empty: any
	AllowedChannels  []string // channel ids; empty: any
	Admins           []string // user ids
	PerUserPerMinute int      // answers per user per minute; 0: unlimited
}

// allows reports whether a command from team in channel may be answered.
func (p Policy) allows(team, channel string) bool {
	return (len(p.AllowedTeams) == 0 || slices.Contains(p.AllowedTeams, team)) &&
		(len(p.AllowedChannels) == 0 || slices.Contains(p.AllowedChannels, channel))
}

// isAdmin reports whether user is one of the admins.
func (p Policy) isAdmin(user string) bool { return user != "" && slices.Contains(p.Admins, user) }

// limiter is a token bucket per user: perMinute tokens, refilled evenly
// over a minute.
//
// A bucket left alone for a minute is full again, and a full bucket is
// the same as no bucket; so the limiter keeps two generations of buckets
// and forgets the older one wholesale each minute instead of scanning for
// idle buckets. A user seen in the last minute is in cur or prev; one not
// seen for longer is in neither and starts full, which is exactly what
// their bucket would hold. Each request costs two map look-ups and no
// scan whatever the number of users, and memory is bounded by
// maxTrackedUsers per generation: past it the generations turn early,
// which can only hand a user back tokens early (a flood of distinct users
// in one minute needs the signing secret), never refuse one wrongly.
type limiter struct {
	perMinute int
	mu        sync.Mutex
	cur, prev map[string]bucket
	turned    time.Time // when cur was started
}

type bucket struct {
	tokens float64
	at     time.Time
}

// maxTrackedUsers bounds each generation of the limiter's buckets.
const maxTrackedUsers = 10000

func newLimiter(perMinute int) *limiter {
	return &limiter{perMinute: perMinute, cur: make(map[string]bucket), prev: make(map[string]bucket)}
}

// allow takes one token from user's bucket at now, reporting whether
// there was one.
func (l *limiter) allow(user string, now time.Time) bool {
	if l.perMinute <= 0 {
		return true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.turned.IsZero() {
		l.turned = now
	}
	if now.Sub(l.turned) >= time.Minute {
		l.turn(now)
	}
	capacity := float64(l.perMinute)
	b, ok := l.cur[user]
	if !ok {
		if b, ok = l.prev[user]; ok {
			delete(l.prev, user)
		} else {
			b = bucket{tokens: capacity, at: now}
		}
		if len(l.cur) >= maxTrackedUsers {
			l.turn(now)
		}
		// The key outlives the request: a copy, so that it does not
		// keep the request's whole form body alive.
		user = strings.Clone(user)
	}
	b.tokens = min(capacity, b.tokens+max(0, now.Sub(b.at).Minutes())*capacity)
	b.at = now
	allowed := b.tokens >= 1
	if allowed {
		b.tokens--
	}
	l.cur[user] = b
	return allowed
}

// turn forgets the older generation and starts a new one. Every bucket
// in prev was last touched before cur was started, a minute ago or more
// on a timely turn, so it has refilled and forgetting it changes nothing.
func (l *limiter) turn(now time.Time) {
	l.prev, l.cur = l.cur, make(map[string]bucket, len(l.cur))
	l.turned = now
}
