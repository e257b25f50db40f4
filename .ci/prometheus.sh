#!/usr/bin/env bash
# A throwaway Prometheus from Debian's package, serving the DCGM exporter
# series in dcgm/testdata/dcgm-exporter.om, backfilled with promtool into a
# fresh data directory (retention long enough for the file's old samples).
#   .ci/prometheus.sh          start it; print its URL, then its folder
#   .ci/prometheus.sh stop DIR stop the one started in DIR and remove DIR
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = stop ]; then
  dir=$2
  [ -f "$dir/pid" ] && kill "$(cat "$dir/pid")" 2>/dev/null || true
  rm -rf "$dir"
  exit 0
fi
if ! command -v promtool >/dev/null || ! command -v prometheus >/dev/null; then
  apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus >/dev/null
fi
port=${PROMPORT:-59090}
dir=$(mktemp -d)
promtool tsdb create-blocks-from openmetrics dcgm/testdata/dcgm-exporter.om "$dir/data" >/dev/null
printf 'global:\n  scrape_interval: 1h\nscrape_configs: []\n' > "$dir/prometheus.yml"
prometheus --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/data" \
  --storage.tsdb.retention.time=100y --web.listen-address="127.0.0.1:$port" \
  >"$dir/log" 2>&1 &
echo $! > "$dir/pid"
for _ in $(seq 1 100); do
  if curl -fsS "http://127.0.0.1:$port/-/ready" >/dev/null 2>&1; then
    echo "http://127.0.0.1:$port"
    echo "$dir"
    exit 0
  fi
  sleep 0.2
done
echo "prometheus did not become ready; its log:" >&2
cat "$dir/log" >&2
exit 1
