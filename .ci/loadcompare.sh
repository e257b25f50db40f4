#!/bin/bash
# Loads `fitbot serve --http` (real binary, real SQLite file) and the
# minimal signed handler (`fitload -minimal`, in its own process) the same
# way, on loopback only, in alternating slices (fitbot SLICE, minimal
# SLICE, fitbot SLICE, ...) so that other work on a shared machine weighs
# on both alike, and prints one line of figures for each: throughput, p50
# and p99 (the median over slices), server CPU and heap allocations per
# request, rows per commit, RSS (sampled every 10 s of fitbot's load, the
# last after DURATION of it), and whether every plan an answer said was
# kept is in the database, with the ratio of each slice pair and the
# load average before and after. BENCHMARKS.md and docs/proof.md quote it.
#
#   .ci/loadcompare.sh CLIENTS DURATION [TAG]      e.g. .ci/loadcompare.sh 64 30
#
# DURATION is each side's total load in seconds. Environment: SLICE
# (default 5) seconds per slice; OUT (default /tmp/fitbot-loadcompare) for
# the binaries, the database, the logs and results.jsonl (one JSON object
# a run, appended); USERS (default 20000) distinct Slack users; RATE
# (default 100000) the per-user limit, high enough that the limiter runs
# and refuses nothing; SERVE_GOGC, when set, is GOGC for fitbot alone. Needs go, curl and python3.
set -eu
C=${1:?clients}; D=${2:?seconds}; TAG=${3:-run}; SLICE=${SLICE:-5}
OUT=${OUT:-/tmp/fitbot-loadcompare}; B=$OUT/bin; W=$OUT/$TAG-c$C
mkdir -p "$B"; rm -rf "$W"; mkdir -p "$W"
cd "$(dirname "$0")/.."
go build -o "$B/fitbot" ./cmd/fitbot
go build -o "$B/fitload" ./cmd/fitload
PORT=$((18180 + RANDOM % 500)); MPORT=$((PORT + 1000)); SPORT=$((PORT + 2000)); HPORT=$((PORT + 3000))
"$B/fitload" -fake-slack 127.0.0.1:$SPORT -d 10m 2>/dev/null & FS=$!
"$B/fitload" -minimal 127.0.0.1:$MPORT -secret load-secret -d 10m 2>"$W/minimal.log" & MIN=$!
sleep 0.5
SLACK_BOT_TOKEN=xoxb-load-test SLACK_SIGNING_SECRET=load-secret SLACK_API_URL=http://127.0.0.1:$SPORT/ \
  FITBOT_DB="$W/fitbot.db" FITBOT_RATE_LIMIT=${RATE:-100000} FITBOT_HEALTH_ADDR=127.0.0.1:$HPORT \
  FITBOT_REFRESH_CRON='0 0 1 1 *' FITBOT_DIGEST_CRON='0 0 1 1 *' \
  FITBOT_AWS_URL=http://127.0.0.1:1 FITBOT_AZURE_URL=http://127.0.0.1:1 \
  FITBOT_RUNPOD_URL=http://127.0.0.1:1 FITBOT_VAST_URL=http://127.0.0.1:1 \
  env ${SERVE_GOGC:+GOGC=$SERVE_GOGC} "$B/fitbot" serve --http 127.0.0.1:$PORT >"$W/serve.log" 2>&1 & SRV=$!
trap 'kill $SRV $MIN $FS 2>/dev/null || true' EXIT
for _ in $(seq 100); do curl -sf http://127.0.0.1:$HPORT/readyz >/dev/null && break; sleep 0.2; done
curl -s http://127.0.0.1:$HPORT/metrics >"$W/metrics0.txt"
cputime() { awk '{print $14+$15}' "/proc/$1/stat"; }
rss() { awk '/VmRSS/{print $2}' "/proc/$1/status"; }
load() { # load NAME URL SLICE_NO
  "$B/fitload" -target "$2" -secret load-secret -c "$C" -d "${SLICE}s" -users "${USERS:-20000}" \
    -kept "$W/kept-$1-$3.txt" -json >"$W/$1-$3.json"
}
rss $SRV >"$W/rss.txt"
load0=$(cut -d' ' -f1 /proc/loadavg)
cpu=0; mcpu=0; done_s=0; next_rss=10; i=0
while [ "$done_s" -lt "$D" ]; do
  i=$((i + 1))
  c0=$(cputime $SRV); load fitbot http://127.0.0.1:$PORT $i; c1=$(cputime $SRV); cpu=$((cpu + c1 - c0))
  done_s=$((done_s + SLICE))
  if [ "$done_s" -ge "$next_rss" ]; then rss $SRV >>"$W/rss.txt"; next_rss=$((next_rss + 10)); fi
  m0=$(cputime $MIN); load minimal http://127.0.0.1:$MPORT $i; m1=$(cputime $MIN); mcpu=$((mcpu + m1 - m0))
done
rss_end=$(rss $SRV); mrss=$(rss $MIN); load1=$(cut -d' ' -f1 /proc/loadavg)
curl -s http://127.0.0.1:$HPORT/metrics >"$W/metrics.txt"
kill $SRV; wait $SRV 2>/dev/null || true
kill -INT $MIN; wait $MIN 2>/dev/null || true
kill $FS; wait $FS 2>/dev/null || true
trap - EXIT
python3 - "$W" "$cpu" "$mcpu" "$rss_end" "$mrss" "$C" "$TAG" "$(getconf CLK_TCK)" "$OUT/results.jsonl" "$load0" "$load1" <<'PY'
import glob, json, re, sqlite3, statistics, sys
w, cpu, mcpu, rss, mrss, c, tag, hz, results, load0, load1 = sys.argv[1:]
hz = int(hz)
def slices(name):
    return [json.load(open(p))['results'][0] for p in sorted(glob.glob(f'{w}/{name}-*.json'))]
def total(rs):
    n = sum(r['requests'] for r in rs)
    return dict(requests=n, rps=n / sum(r['seconds'] for r in rs),
                p50=statistics.median(r['p50_ms'] for r in rs), p99=statistics.median(r['p99_ms'] for r in rs),
                p99_max=max(r['p99_ms'] for r in rs), errors=sum(r['errors'] for r in rs),
                refusals=sum(r['refusals'] for r in rs), slice_rps=[round(r['requests_per_second']) for r in rs])
f, m = total(slices('fitbot')), total(slices('minimal'))
def metric(txt, name):
    x = re.search(r'^' + re.escape(name) + r' (\S+)$', txt, re.M)
    return float(x.group(1)) if x else 0.0
met, met0 = open(w + '/metrics.txt').read(), open(w + '/metrics0.txt').read()
mallocs = metric(met, 'go_memstats_mallocs_total') - metric(met0, 'go_memstats_mallocs_total')
rows, batches = metric(met, 'fitbot_plan_batch_rows_sum'), metric(met, 'fitbot_plan_batch_rows_count')
mm = re.search(r'sent (\d+) replies, (\d+) heap', open(w + '/minimal.log').read())
db = sqlite3.connect(w + '/fitbot.db')
have = {r[0] for r in db.execute('SELECT id FROM plans')}
kept = [int(x) for p in glob.glob(w + '/kept-fitbot-*.txt') for x in open(p).read().split()]
lines = sum(1 for l in open(w + '/serve.log') if '"msg":"question"' in l)
out = dict(tag=tag, c=int(c), **f,
    cpu_us=int(cpu) / hz / max(f['requests'], 1) * 1e6, allocs=mallocs / max(f['requests'], 1),
    rss_mb=int(rss) / 1024, rss_samples_mb=[round(int(x) / 1024, 1) for x in open(w + '/rss.txt').read().split()],
    rows_per_commit=rows / max(batches, 1), question_log_lines=lines,
    kept=len(kept), kept_missing=sum(1 for i in kept if i not in have),
    **{'m_' + k: v for k, v in m.items()},
    m_cpu_us=int(mcpu) / hz / max(m['requests'], 1) * 1e6, m_allocs=float(mm.group(2)) if mm else None,
    m_rss_mb=int(mrss) / 1024)
out['ratio'] = out['rps'] / out['m_rps']
out['slice_ratios'] = [round(a / b, 2) for a, b in zip(out['slice_rps'], out['m_slice_rps'])]
out['load_avg'] = [float(load0), float(load1)]
open(results, 'a').write(json.dumps(out) + '\n')
print(f"{tag} c={c}: fitbot {out['rps']:.0f} req/s (slices {out['slice_rps']}), p50 {out['p50']:.1f} ms, p99 {out['p99']:.1f} ms, "
      f"{out['cpu_us']:.0f} us CPU and {out['allocs']:.0f} allocations a request, {out['rows_per_commit']:.1f} rows a commit, "
      f"RSS {out['rss_mb']:.1f} MB {out['rss_samples_mb']}, {out['errors']} errors, {out['refusals']} refusals, "
      f"{out['kept']} kept plans, {out['kept_missing']} missing, {lines} question lines for {out['requests']} requests | "
      f"minimal {out['m_rps']:.0f} req/s (slices {out['m_slice_rps']}), p50 {out['m_p50']:.1f} ms, p99 {out['m_p99']:.1f} ms, "
      f"{out['m_cpu_us']:.0f} us CPU and {out['m_allocs']} allocations a request, RSS {out['m_rss_mb']:.1f} MB | ratio {out['ratio']:.2f} "
      f"(slices {out['slice_ratios']}), load average {load0} at the start, {load1} at the end")
PY
