// Package launch turns a sizing answer into the config or command line
// that runs it: a DeepSpeed config, an Accelerate/FSDP config, a `vllm
// serve` or `llama-server` command line, or a SkyPilot task. Every value
// it writes is one the estimate assumed (stage, offload, precision,
// micro-batch, accumulation, parallel sizes, context), so the launched job
// uses the memory the answer promised.
//
// launch is pure: it imports sizing and nothing else of fitbot's, and does
// no I/O.
package launch
