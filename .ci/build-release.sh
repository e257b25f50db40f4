#!/usr/bin/env bash
# Builds fitbot's release binary, the one the Docker image ships, and
# smoke-runs it. The Dockerfile's builder stage runs this very script, so
# the tags and flags below are the image's: change them here, nowhere else.
#
#   .ci/build-release.sh [OUTPUT]          default bin/fitbot
#
# VERSION (environment) is stamped into the binary (fitbot version); when
# unset it is `git describe --always --dirty`, or "dev" outside a checkout.
#
# The binary is static: cgo (mattn/go-sqlite3) linked against glibc's
# static libraries, so it runs on a distroless image with no libc.
#   sqlite_omit_load_extension  no load_extension, so no dlopen in a static binary
#   osusergo netgo              pure-Go user and DNS lookups, no glibc NSS
set -euo pipefail
cd "$(dirname "$0")/.."

out=${1:-bin/fitbot}
tags='sqlite_omit_load_extension osusergo netgo'
version=${VERSION:-$(git describe --always --dirty 2>/dev/null || echo dev)}

die() { echo "build-release: $*" >&2; exit 1; }

[[ $version =~ ^[A-Za-z0-9][A-Za-z0-9._+-]*$ ]] ||
  die "VERSION \"$version\" must be letters, digits and . _ + - (it is stamped into the binary)"

# A cgo build needs a C compiler, and a static one glibc's static archives
# (libc6-dev). Install them where we can (the builder image, CI as root);
# say what is missing where we cannot.
cc=${CC:-gcc}
need=()
command -v "$cc" >/dev/null || need+=(gcc)
if [ ${#need[@]} -eq 0 ] && [ "$("$cc" -print-file-name=libc.a)" = libc.a ]; then
  need+=(libc6-dev)
fi
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "== installing ${need[*]}"
    apt-get update -qq && apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  else
    die "a static cgo build needs ${need[*]} (Debian/Ubuntu: sudo apt-get install ${need[*]}; Alpine: apk add build-base)"
  fi
fi

echo "== go build ($version) -> $out"
mkdir -p "$(dirname "$out")"
CGO_ENABLED=1 go build -trimpath -tags "$tags" \
  -ldflags "-s -w -X main.version=$version -linkmode external -extldflags \"-static\"" \
  -o "$out" ./cmd/fitbot

# A dynamic binary would build and then fail on distroless/static with
# "no such file or directory": refuse it here.
if command -v readelf >/dev/null; then
  if readelf -l "$out" | grep -q 'Requesting program interpreter'; then
    die "$out is dynamically linked; the image needs a static binary"
  fi
elif command -v file >/dev/null; then
  file "$out" | grep -q 'statically linked' || die "$out is not statically linked: $(file "$out")"
else
  die "neither readelf nor file is installed to check that $out is static (apt-get install binutils)"
fi

# The SQLite driver linked the same way: the store's open, migration and
# transaction tests, compiled static with the release tags.
echo "== store tests, linked as the release binary is"
CGO_ENABLED=1 go test -count=1 -trimpath -tags "$tags" -ldflags '-linkmode external -extldflags "-static"' \
  -run '^(TestOpen|TestMigrateFromEveryVersion|TestTxRollsBack|TestLease)' ./store

# Smoke runs, in an empty environment as in the container, with the
# database in a scratch folder. Each must exit 0 and print something.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
bin=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")
smoke() {
  local name=$1; shift
  local stdout=$scratch/$name.out stderr=$scratch/$name.err
  if ! (cd "$scratch" && env -i HOME="$scratch" FITBOT_DB="$scratch/fitbot.db" "$bin" "$@" >"$stdout" 2>"$stderr"); then
    cat "$stdout" "$stderr" >&2
    die "smoke run failed: fitbot $*"
  fi
  [ -s "$stdout" ] || { cat "$stderr" >&2; die "smoke run printed nothing: fitbot $*"; }
  echo "== fitbot $*"
  sed -n '1,12p' "$stdout"
}
smoke version version
grep -qx "fitbot $version" "$scratch/version.out" ||
  die "fitbot version printed \"$(cat "$scratch/version.out")\", want \"fitbot $version\""
smoke fit fit 13B lora 4090
echo "== ok: $out ($(du -h "$out" | cut -f1), static, $version)"
