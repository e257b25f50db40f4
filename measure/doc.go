// Package measure reads what a training or serving run really used — typed
// by a person ("peak 71 GiB, 3,150 tok/s, 5.2 h"), nvidia-smi's CSV log, a
// small JSON file, or the DCGM exporter's series in Prometheus — and says
// how far fitbot's figures were from a team's measured runs.
//
// Everything is per run: the busiest GPU's peak memory in bytes, the whole
// job's tokens per second, the wall-clock hours and, from DCGM, the mean
// tensor-pipe activity. Nothing here talks to a database or to Slack.
package measure
