#!/bin/bash
# Loads two `fitbot serve --http` processes the same way, one on a SQLite
# file and one on a PostgreSQL database, in alternating slices (SQLite
# SLICE, PostgreSQL SLICE, ...) so that other work on a shared machine
# weighs on both alike, and prints each side's throughput, p50 and p99
# (medians over slices), errors and rows per group commit. Loopback only.
#
#   PG_URL=postgres://... .ci/loaddb.sh CLIENTS DURATION    e.g. 64 15
#
# PG_URL names an EMPTY database (the run writes plans into it), e.g. one
# made on the cluster .ci/postgres.sh starts. SLICE (default 5) seconds
# per slice; OUT (default /tmp/fitbot-loaddb). Needs go, curl, python3.
set -eu
C=${1:?clients}; D=${2:?seconds}; SLICE=${SLICE:-5}; PG=${PG_URL:?PG_URL}
OUT=${OUT:-/tmp/fitbot-loaddb}; B=$OUT/bin; W=$OUT/c$C
mkdir -p "$B"; rm -rf "$W"; mkdir -p "$W"
cd "$(dirname "$0")/.."
go build -o "$B/fitbot" ./cmd/fitbot
go build -o "$B/fitload" ./cmd/fitload
P=$((19180 + RANDOM % 500)); SPORT=$((P + 2000))
"$B/fitload" -fake-slack 127.0.0.1:$SPORT -d 10m 2>/dev/null & FS=$!
sleep 0.5
serve() { # serve NAME DB PORT HEALTHPORT
  SLACK_BOT_TOKEN=xoxb-load-test SLACK_SIGNING_SECRET=load-secret SLACK_API_URL=http://127.0.0.1:$SPORT/ \
    FITBOT_DB="$2" FITBOT_RATE_LIMIT=100000 FITBOT_HEALTH_ADDR=127.0.0.1:$4 \
    FITBOT_REFRESH_CRON='0 0 1 1 *' FITBOT_DIGEST_CRON='0 0 1 1 *' \
    FITBOT_AWS_URL=http://127.0.0.1:1 FITBOT_AZURE_URL=http://127.0.0.1:1 \
    FITBOT_RUNPOD_URL=http://127.0.0.1:1 FITBOT_VAST_URL=http://127.0.0.1:1 \
    "$B/fitbot" serve --http 127.0.0.1:$3 >"$W/$1.log" 2>&1 &
}
serve sqlite "$W/fitbot.db" $P $((P + 3000)); LITE=$!
serve postgres "$PG" $((P + 1)) $((P + 3001)); PGS=$!
trap 'kill $LITE $PGS $FS 2>/dev/null || true' EXIT
for h in $((P + 3000)) $((P + 3001)); do
  for _ in $(seq 100); do curl -sf http://127.0.0.1:$h/readyz >/dev/null && break; sleep 0.2; done
done
load() { # load NAME PORT SLICE_NO
  "$B/fitload" -target http://127.0.0.1:$2 -secret load-secret -c "$C" -d "${SLICE}s" -users 20000 -json >"$W/$1-$3.json"
}
done_s=0; i=0
while [ "$done_s" -lt "$D" ]; do
  i=$((i + 1)); load sqlite $P $i; load postgres $((P + 1)) $i; done_s=$((done_s + SLICE))
done
curl -s http://127.0.0.1:$((P + 3000))/metrics >"$W/sqlite-metrics.txt"
curl -s http://127.0.0.1:$((P + 3001))/metrics >"$W/postgres-metrics.txt"
python3 - "$W" "$C" <<'PY'
import glob, json, re, statistics, sys
w, c = sys.argv[1:]
for name in ('sqlite', 'postgres'):
    rs = [json.load(open(p))['results'][0] for p in sorted(glob.glob(f'{w}/{name}-*.json'))]
    n = sum(r['requests'] for r in rs)
    met = open(f'{w}/{name}-metrics.txt').read()
    g = lambda k: float((re.search(r'^' + k + r' (\S+)$', met, re.M) or [0, 0])[1])
    rows, batches = g('fitbot_plan_batch_rows_sum'), g('fitbot_plan_batch_rows_count')
    print(json.dumps(dict(db=name, clients=int(c), requests=n, rps=round(n / sum(r['seconds'] for r in rs)),
        p50_ms=round(statistics.median(r['p50_ms'] for r in rs), 2), p99_ms=round(statistics.median(r['p99_ms'] for r in rs), 1),
        errors=sum(r['errors'] for r in rs), rows_per_commit=round(rows / batches, 1) if batches else 0,
        slice_rps=[round(r['requests_per_second']) for r in rs])))
PY
