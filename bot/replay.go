package bot

import (
	"crypto/sha256"
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
// under any load.

// replayMax bounds the signatures kept: 32 bytes and a time each, about
// 6 MB at the bound, a few hundred answers a second for the whole window.
const replayMax = 100_000

type replayGuard struct {
	mu    sync.Mutex
	seen  map[[32]byte]time.Time // signature digest → when it expires
	order [][32]byte             // the digests, oldest first
	head  int                    // order[head:] are still in seen
}

// first reports whether signature was not seen within the window, and
// remembers it.
func (g *replayGuard) first(signature string, now time.Time) bool {
	key := sha256.Sum256([]byte(signature))
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.seen == nil {
		g.seen = map[[32]byte]time.Time{}
	}
	if exp, ok := g.seen[key]; ok && now.Before(exp) {
		return false
	}
	// Forget the expired and, past the bound, the oldest.
	for g.head < len(g.order) {
		k := g.order[g.head]
		if exp, ok := g.seen[k]; ok && now.Before(exp) && len(g.seen) < replayMax {
			break
		}
		delete(g.seen, k)
		g.head++
	}
	if g.head > len(g.order)/2 {
		g.order = append(g.order[:0:0], g.order[g.head:]...)
		g.head = 0
	}
	g.seen[key] = now.Add(2 * SignatureWindow) // the window runs both ways around the timestamp
	g.order = append(g.order, key)
	return true
}
