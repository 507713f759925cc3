#!/usr/bin/env bash
# The main job: build rijn, encrypt a sample file with the fastest backend
# (checked against openssl enc when it is installed), then print the
# benchmark table against OpenSSL. Arguments go to `rijn speed` (default:
# --quick; give e.g. --cpu-time for the full run).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${RIJN_BUILD_DIR:-$root/build}

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DRIJN_BUILD_TESTS=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null
rijn=$build/tools/rijn
"$rijn" --version

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
key=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
iv=f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff
head -c $((64 << 20)) /dev/urandom >"$tmp/sample"

echo
echo "== rijn enc -aes-256-ctr on a 64 MiB file"
t0=$(date +%s.%N)
"$rijn" enc -aes-256-ctr -K "$key" -iv "$iv" -in "$tmp/sample" -out "$tmp/sample.enc"
t1=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" 'BEGIN { printf "encrypted in %.3f s\n", b - a }'
"$rijn" enc -d -aes-256-ctr -K "$key" -iv "$iv" -in "$tmp/sample.enc" -out "$tmp/sample.dec"
cmp "$tmp/sample" "$tmp/sample.dec" && echo "decrypts back: ok"
if command -v openssl >/dev/null; then
  openssl enc -aes-256-ctr -K "$key" -iv "$iv" -in "$tmp/sample" -out "$tmp/sample.ossl"
  cmp "$tmp/sample.enc" "$tmp/sample.ossl" && echo "identical to openssl enc -aes-256-ctr: ok"
fi

echo
echo "== rijn impl"
"$rijn" impl
echo
[ $# -gt 0 ] || set -- --quick
echo "== rijn speed $*"
"$rijn" speed "$@"
