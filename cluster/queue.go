package cluster

import (
	"cmp"
	"fmt"
	"slices"
	"time"
)

// Pending is one job (Slurm) or pod (Kubernetes) that asks for GPUs and
// waits for them.
type Pending struct {
	Name string `json:"name"`
	// GPUs is what it asks for in all.
	GPUs int `json:"gpus"`
	// Since is when it was submitted (Slurm) or created (Kubernetes).
	Since time.Time `json:"since"`
	// Partition is the Slurm partition (or the Kubernetes namespace) it
	// waits in.
	Partition string `json:"partition,omitempty"`
	// StartEstimate is when the scheduler expects it to start (Slurm's
	// backfill estimate); nil when it gives none.
	StartEstimate *time.Time `json:"start_estimate,omitempty"`
}

// farFuture is how far ahead a scheduler's start estimate says nothing:
// Slurm sets a year ahead for a job waiting behind jobs with no time
// limit.
const farFuture = 300 * 24 * time.Hour

// Estimate is a scheduler's start time as fitbot keeps it: nil when it
// is unset or a placeholder (zero, or Slurm's year-ahead time for a job
// behind jobs with no time limit).
func Estimate(t, now time.Time) *time.Time {
	if t.IsZero() || t.Unix() <= 0 || t.Sub(now) > farFuture {
		return nil
	}
	t = t.UTC()
	return &t
}

// sortPending orders the queue as it drains: by start estimate where
// given, then by submission.
func sortPending(p []Pending) {
	slices.SortStableFunc(p, func(a, b Pending) int {
		switch {
		case a.StartEstimate != nil && b.StartEstimate != nil:
			if c := a.StartEstimate.Compare(*b.StartEstimate); c != 0 {
				return c
			}
		case a.StartEstimate != nil:
			return -1
		case b.StartEstimate != nil:
			return 1
		}
		return cmp.Or(a.Since.Compare(b.Since), cmp.Compare(a.Name, b.Name))
	})
}

// lastStart is the latest start estimate of the queue: when, as the
// scheduler sees it now, every job waiting has started. Nil when any job
// has no estimate (the queue's end is not known) or none waits.
func lastStart(p []Pending) *time.Time {
	var last *time.Time
	for _, j := range p {
		if j.StartEstimate == nil {
			return nil
		}
		if last == nil || j.StartEstimate.After(*last) {
			last = j.StartEstimate
		}
	}
	return last
}

// SetPending keeps what waits for GPUs, in the order the queue drains,
// and the time the scheduler expects the last of it to start.
func (s *Snapshot) SetPending(p []Pending) {
	p = append([]Pending{}, p...)
	sortPending(p)
	s.Pending = p
	s.StartEstimate = lastStart(p)
}

// Ahead is the pending work in the given partitions (all when none is
// given).
func (s Snapshot) Ahead(partitions []string) []Pending {
	var out []Pending
	for _, p := range s.Pending {
		if len(partitions) == 0 || p.Partition == "" || slices.Contains(partitions, p.Partition) {
			out = append(out, p)
		}
	}
	return out
}

// QueueLine says in one line what waits for GPUs: "Queue: 2 jobs wait for
// 6 GPUs (the oldest since 15:34 UTC); Slurm expects the last to start at
// 15:36 UTC." It is "" when the source does not read a queue.
func (s Snapshot) QueueLine() string {
	if s.Pending == nil {
		return ""
	}
	return queueWords(s.Pending, s.scheduler())
}

func (s Snapshot) scheduler() string {
	if indexASCIIFold(s.Source, "slurm") == 0 {
		return "Slurm"
	}
	return "the scheduler"
}

func queueWords(p []Pending, scheduler string) string {
	if len(p) == 0 {
		return "Queue: nothing waits for GPUs."
	}
	gpus := 0
	oldest := p[0].Since
	for _, j := range p {
		gpus += j.GPUs
		if j.Since.Before(oldest) {
			oldest = j.Since
		}
	}
	line := fmt.Sprintf("Queue: %d %s for %d %s (the oldest since %s)", len(p), plural(len(p), "job waits", "jobs wait"), gpus, plural(gpus, "GPU", "GPUs"), clockWords(oldest))
	if last := lastStart(p); last != nil {
		return line + fmt.Sprintf("; %s expects the last to start at %s.", scheduler, clockWords(*last))
	}
	return line + fmt.Sprintf("; %s gives no start time for all of them.", scheduler)
}

// clockWords is a time as answers say it: "Dec 7 15:34 UTC".
func clockWords(t time.Time) string {
	return t.UTC().Format("Jan 2 15:04 UTC")
}
