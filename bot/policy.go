package bot

import (
	"slices"
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
type limiter struct {
	perMinute int
	mu        sync.Mutex
	buckets   map[string]bucket
}

type bucket struct {
	tokens float64
	at     time.Time
}

// maxTrackedUsers bounds the limiter's memory; full buckets are dropped past it.
const maxTrackedUsers = 10000

func newLimiter(perMinute int) *limiter {
	return &limiter{perMinute: perMinute, buckets: make(map[string]bucket)}
}

// allow takes one token from user's bucket at now, reporting whether
// there was one.
func (l *limiter) allow(user string, now time.Time) bool {
	if l.perMinute <= 0 {
		return true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	capacity := float64(l.perMinute)
	b, ok := l.buckets[user]
	if !ok {
		b = bucket{tokens: capacity, at: now}
	}
	b.tokens = min(capacity, b.tokens+now.Sub(b.at).Minutes()*capacity)
	b.at = now
	allowed := b.tokens >= 1
	if allowed {
		b.tokens--
	}
	if len(l.buckets) >= maxTrackedUsers {
		l.prune(now)
	}
	l.buckets[user] = b
	return allowed
}

// prune forgets users whose buckets have refilled.
func (l *limiter) prune(now time.Time) {
	for u, b := range l.buckets {
		if now.Sub(b.at) >= time.Minute {
			delete(l.buckets, u)
		}
	}
}
