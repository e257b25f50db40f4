package bot

import (
	"hash/maphash"
	"sync"
	"time"
)

// A signed request is valid for SignatureWindow either side of its
// timestamp, so one captured on the way (a proxy log, a copied curl) can
// be sent again within it and would be answered again: a slash command
// asked twice, a button's Share posted twice. Slack itself never resends
// a slash command or an interaction, so a repeated signature is a replay:
// replayGuard remembers each signature seen within the window and says
// whether one is new. It is per process (a replay to another instance of
// a shared deployment is not caught) and keeps at most replayMax
// signatures, forgetting the oldest first, so its memory stays bounded
// under any load. An expired signature is not looked for: it stays until
// its place in the ring is taken, and reads as new.

// replayMax bounds the signatures kept. Each is kept as a 64-bit hash
// with its expiry, 16 bytes in the map and 16 in the ring: about 4 MB at
// the bound, a few hundred answers a second for the whole window. Two
// signatures among 100,000 share a hash with a chance of about 3 in 10^10
// (the seed is the process's own, so nobody can aim for one).
const replayMax = 100_000

type replayGuard struct {
	mu   sync.Mutex
	seed maphash.Seed
	seen map[uint64]int64 // signature hash → when it expires (Unix nanoseconds)
	ring []replayEntry    // the same in the order taken; once full, next is the oldest
	next int
}

type replayEntry struct {
	key     uint64
	expires int64
}

// first reports whether signature was not seen within the window, and
// remembers it.
func (g *replayGuard) first(signature string, now time.Time) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.seen == nil {
		g.seed = maphash.MakeSeed()
		g.seen = make(map[uint64]int64)
	}
	key, at := maphash.String(g.seed, signature), now.UnixNano()
	if exp, ok := g.seen[key]; ok && at < exp {
		return false
	}
	e := replayEntry{key: key, expires: now.Add(2 * SignatureWindow).UnixNano()} // the window runs both ways around the timestamp
	if len(g.ring) < replayMax {
		g.ring = append(g.ring, e)
	} else {
		g.forget(g.ring[g.next])
		g.ring[g.next] = e
		g.next = (g.next + 1) % replayMax
	}
	g.seen[key] = e.expires
	return true
}

// forget removes e from the map unless its key was taken again since
// (then the map holds the newer expiry).
func (g *replayGuard) forget(e replayEntry) {
	if exp, ok := g.seen[e.key]; ok && exp == e.expires {
		delete(g.seen, e.key)
	}
}
