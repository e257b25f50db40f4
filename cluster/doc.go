// Package cluster reads the team's own GPU cluster: which nodes have which
// cards, how many of them are free now, and which nodes cannot take work
// (cordoned, NotReady, drained, down). A Source (Kubernetes in package
// kube, Slurm in package slurm) gives a Snapshot; Cache keeps one for a
// few seconds so a busy channel does not hammer the API server; Place
// and OnCluster put a sized job on the free GPUs, or say what is missing.
//
// cluster only reads: no Source may change the cluster. It depends on
// sizing (for the GPU catalog and the sizing of a job) and nothing else
// of fitbot's; it knows no Slack, no store and no configuration.
package cluster
