package slurm

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fitbot/fitbot/cluster"
)

// restJobs is slurmrestd's answer to GET /slurm/VERSION/jobs/, with only
// what fitbot reads of each job.
type restJobs struct {
	Jobs []job `json:"jobs"`
}

func (r restJobs) jobs() []job {
	if r.Jobs == nil {
		return []job{}
	}
	return r.Jobs
}

// job is one job: v0.0.38 (Slurm 22.05) gives job_state as a string and
// times as numbers; v0.0.40 and later give job_state as an array and
// numbers as {set, infinite, number}.
type job struct {
	ID         number    `json:"job_id"`
	Name       string    `json:"name"`
	State      stateList `json:"job_state"`
	Partition  string    `json:"partition"`
	SubmitTime number    `json:"submit_time"`
	StartTime  number    `json:"start_time"`
	NodeCount  number    `json:"node_count"`
	PerNode    string    `json:"tres_per_node"`
	PerJob     string    `json:"tres_per_job"`
	TRESReq    string    `json:"tres_req_str"`
}

// number is a Slurm integer: a plain number (v0.0.38) or an object
// {"set": true, "infinite": false, "number": 5} (v0.0.40 and later);
// unset and infinite read as 0.
type number int64

// UnmarshalJSON accepts both forms.
func (n *number) UnmarshalJSON(b []byte) error {
	var plain int64
	if err := json.Unmarshal(b, &plain); err == nil {
		*n = number(plain)
		return nil
	}
	var obj struct {
		Set      bool  `json:"set"`
		Infinite bool  `json:"infinite"`
		Number   int64 `json:"number"`
	}
	if err := json.Unmarshal(b, &obj); err != nil {
		return err
	}
	*n = 0
	if obj.Set && !obj.Infinite {
		*n = number(obj.Number)
	}
	return nil
}

// pending is the jobs that wait and ask for GPUs, with when they were
// submitted and when Slurm expects them to start.
func pending(jobs []job, now time.Time) []cluster.Pending {
	out := []cluster.Pending{}
	for _, j := range jobs {
		if !slices.Contains([]string(j.State), "PENDING") {
			continue
		}
		gpus := j.gpus()
		if gpus == 0 {
			continue
		}
		name := j.Name
		if j.ID > 0 {
			name = strconv.FormatInt(int64(j.ID), 10) + " " + name
		}
		out = append(out, cluster.Pending{
			Name: strings.TrimSpace(name), GPUs: gpus, Partition: j.Partition,
			Since:         time.Unix(int64(j.SubmitTime), 0).UTC(),
			StartEstimate: cluster.Estimate(time.Unix(int64(j.StartTime), 0), now),
		})
	}
	return out
}

// gpus is what a job asks for in all: its per-job GPUs, else its
// per-node GPUs times its nodes, else the gres/gpu of its requested TRES.
func (j job) gpus() int {
	if n := tresGPUs(j.PerJob); n > 0 {
		return n
	}
	if n := tresGPUs(j.PerNode); n > 0 {
		return n * max(1, int(j.NodeCount))
	}
	return tresGPUs(j.TRESReq)
}

// tresGPUs reads the GPUs of a TRES list as slurmctld prints it:
// "gres:gpu:h100:3" (22.05), "gres/gpu:h100:3", "gres/gpu=3",
// "cpu=1,mem=1000M,node=1,billing=1,gres/gpu=4"; 0 when it names none.
func tresGPUs(s string) int {
	total := 0
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		rest, ok := strings.CutPrefix(item, "gres:")
		if !ok {
			rest, ok = strings.CutPrefix(item, "gres/")
		}
		if !ok || !(rest == "gpu" || strings.HasPrefix(rest, "gpu:") || strings.HasPrefix(rest, "gpu=")) {
			continue
		}
		if i := strings.IndexAny(rest, "("); i >= 0 {
			rest = rest[:i]
		}
		count := rest[max(strings.LastIndexAny(rest, ":="), 0)+1:]
		if n, ok := gresCount(count); ok && count != rest {
			total += n
		}
	}
	return total
}
