package cluster

import (
	"cmp"
	"slices"

	"github.com/fitbot/fitbot/sizing"
)

// CardCount is one card's GPUs over the cluster.
type CardCount struct {
	GPU         string // catalog id, or the product name for a card outside the catalog
	Name        string // "H100 SXM 80 GB"
	Free, Total int    // Free counts available nodes only
	Nodes       int    // nodes with the card
	Unavailable int    // of them, nodes that take no work now
}

// Cards counts the snapshot's GPUs by card, the most free first.
func (s Snapshot) Cards() []CardCount {
	by := map[string]*CardCount{}
	var out []*CardCount
	for _, n := range s.Nodes {
		if n.GPUsTotal == 0 {
			continue
		}
		key := n.card()
		c := by[key]
		if c == nil {
			c = &CardCount{GPU: key, Name: key}
			if g, _, err := sizing.LookupGPU(n.GPU); n.GPU != "" && err == nil {
				c.Name = g.Name
			}
			by[key] = c
			out = append(out, c)
		}
		c.Total += n.GPUsTotal
		c.Free += n.GPUsFree
		c.Nodes++
		if n.Unavailable != "" {
			c.Unavailable++
		}
	}
	slices.SortFunc(out, func(a, b *CardCount) int { return cmp.Or(cmp.Compare(b.Free, a.Free), cmp.Compare(a.GPU, b.GPU)) })
	cards := make([]CardCount, len(out))
	for i, c := range out {
		cards[i] = *c
	}
	return cards
}
