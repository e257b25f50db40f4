#!/usr/bin/env bash
# Runs every fuzz target in the module for a short, bounded time each
# (FUZZTIME, default 3s), one after another; fails on the first finding.
# A failing input is written under the package's testdata/fuzz/ and
# replays in plain `go test` from then on.
#
#   .ci/fuzz.sh                 # every target, 3 s each
#   FUZZTIME=30s .ci/fuzz.sh    # longer
#   .ci/fuzz.sh ./pricing       # one package's targets
set -euo pipefail
cd "$(dirname "$0")/.."
export CGO_ENABLED=1
fuzztime=${FUZZTIME:-3s}
pkgs=("$@")
if [ ${#pkgs[@]} -eq 0 ]; then
  mapfile -t pkgs < <(go list ./...)
fi
start=$(date +%s)
count=0
stalled=0
for pkg in "${pkgs[@]}"; do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  mapfile -t targets < <(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u)
  for target in "${targets[@]}"; do
    [ -n "$target" ] || continue
    echo "== $pkg $target ($fuzztime)"
    # -parallel 2: the CI machine is small; timeout: the whole run of one target.
    if ! out=$(timeout 300 go test "$pkg" -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -parallel 2 2>&1); then
      echo "$out"
      # A finding is written to testdata/fuzz/ and replays in go test. Go's
      # engine can also end a short run with "context deadline exceeded"
      # and no input when its coverage-instrumented workers stall (seen on
      # pricing's decoders); that is reported, not failed: the target's
      # seeds still run in every go test.
      if ! grep -q 'Failing input written' <<<"$out" && grep -q 'context deadline exceeded' <<<"$out"; then
        echo "== warning: $target: the fuzz engine stopped without an input (engine stall, not a finding)"
        stalled=$((stalled + 1))
        continue
      fi
      exit 1
    fi
    echo "$out" | tail -n 2
    count=$((count + 1))
  done
done
echo "== $count fuzz targets ran, $stalled stalled in the engine, $(( $(date +%s) - start )) s"
