#!/bin/sh
# Wall-time comparison of `rijn enc` with `openssl enc` (and cp), the
# table of README.md "Faster than openssl": hyperfine, interleaved rounds,
# the median of the per-round medians, ratios taken round by round.
#
#   bench/enc-timing.sh [-b build-dir] [-d dir] [-r rounds] [-n runs] [part...]
#
# parts (default: all):
#   file    400 MiB random file -> file, output replaced (the previous
#           run's) and fresh (removed by --prepare); cp alongside
#   pipe    cat f | enc > /dev/null
#   base64  100 MiB file, -a encrypt and -d -a decrypt, file -> file
#   pbkdf2  -pbkdf2 -iter 300000, 1 KiB file, md sha1/sha256/sha512/md5,
#           AES-128 and AES-256
# dir: where the data lives (default /dev/shm, tmpfs); rounds: 3; runs per
# round: 10 (pbkdf2: 5). Needs hyperfine, openssl, python3.
set -eu

build=build
dir=/dev/shm
rounds=3
runs=10
while [ $# -gt 0 ]; do
    case $1 in
    -b) build=$2; shift 2 ;;
    -d) dir=$2; shift 2 ;;
    -r) rounds=$2; shift 2 ;;
    -n) runs=$2; shift 2 ;;
    -h | --help) sed -n '2,17p' "$0"; exit 0 ;;
    -*) echo "enc-timing.sh: unknown option $1" >&2; exit 1 ;;
    *) break ;;
    esac
done
[ $# -gt 0 ] || set -- file pipe base64 pbkdf2
rijn=$(cd "$build/tools" && pwd)/rijn
[ -x "$rijn" ] || { echo "enc-timing.sh: $rijn not found (build first)" >&2; exit 1; }
for t in hyperfine openssl python3; do
    command -v $t >/dev/null || { echo "enc-timing.sh: needs $t" >&2; exit 1; }
done
K=2b7e151628aed2a6abf7158809cf4f3c
K256=603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4
IV=f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff
json=$(mktemp -d)
trap 'rm -rf "$json"; rm -f "$dir"/out.cp "$dir"/out.o "$dir"/out.r "$dir"/b64.o "$dir"/b64.r "$dir"/dec.o "$dir"/dec.r' EXIT
cd "$dir"

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# rijn: $("$rijn" --version | head -n 1), backend $("$rijn" --version | sed -n 's/default backend: //p')"
echo "# openssl: $(openssl version)"
echo "# data in $dir ($(df -T "$dir" | awk 'NR == 2 {print $2}')); $rounds rounds x $runs runs"

# bench NAME PREPARE RUNS CMD... : $rounds hyperfine rounds into
# $json/NAME.<round>.json (-N: no shell; commands run in turn per round)
bench() {
    b_name=$1 b_prep=$2 b_runs=$3
    shift 3
    r=1
    while [ $r -le $rounds ]; do
        hyperfine -N --warmup 2 -r "$b_runs" --prepare "$b_prep" \
            --export-json "$json/$b_name.$r.json" "$@" >/dev/null 2>&1 ||
            { echo "enc-timing.sh: hyperfine failed for $b_name" >&2; exit 1; }
        r=$((r + 1))
    done
}
bench_shell() { # the same through a shell (pipes)
    b_name=$1
    shift
    r=1
    while [ $r -le $rounds ]; do
        hyperfine --warmup 2 -r "$runs" --export-json "$json/$b_name.$r.json" \
            "$@" >/dev/null 2>&1 ||
            { echo "enc-timing.sh: hyperfine failed for $b_name" >&2; exit 1; }
        r=$((r + 1))
    done
}
# report NAME LABEL...: one row per command: median of the round medians,
# mean user+sys, and the ratio to the first command (openssl) and to cp
# when given, each the median of the per-round ratios
report() {
    python3 - "$json" "$@" <<'PY'
import glob, json, statistics as st, sys
d, name, labels = sys.argv[1], sys.argv[2], sys.argv[3:]
rounds = [json.load(open(f))["results"] for f in sorted(glob.glob(f"{d}/{name}.*.json"))]
base = labels.index("openssl") if "openssl" in labels else 0
cp = labels.index("cp") if "cp" in labels else None
for i, lab in enumerate(labels):
    med = st.median(r[i]["median"] for r in rounds)
    cpu = st.median(r[i]["user"] + r[i]["system"] for r in rounds)
    vs_o = st.median(r[i]["median"] / r[base]["median"] for r in rounds)
    per = " ".join("%.3f" % (r[i]["median"] / r[base]["median"]) for r in rounds)
    line = f"| {name} | {lab} | {med*1e3:.0f} ms | {cpu*1e3:.0f} ms | {vs_o:.2f} ({per})"
    if cp is not None:
        line += f" | {st.median(r[i]['median'] / r[cp]['median'] for r in rounds):.2f}"
    else:
        line += " |"
    print(line + " |")
PY
}

echo "| case | command | wall (median) | user+sys | vs openssl (per round) | vs cp |"
echo "|---|---|---|---|---|---|"
for part in "$@"; do
    case $part in
    file | pipe)
        [ -s f400 ] && [ "$(stat -c %s f400)" = 419430400 ] ||
            head -c 419430400 /dev/urandom >f400
        if [ $part = file ]; then
            for prep in replaced fresh; do
                p=true
                [ $prep = fresh ] && p="rm -f out.cp out.o out.r"
                bench "file-$prep" "$p" "$runs" "cp f400 out.cp" \
                    "openssl enc -aes-128-ctr -K $K -iv $IV -in f400 -out out.o" \
                    "$rijn enc -aes-128-ctr -K $K -iv $IV -in f400 -out out.r"
                report "file-$prep" cp openssl rijn
            done
            openssl enc -aes-128-ctr -K $K -iv $IV -in f400 -out out.o
            "$rijn" enc -aes-128-ctr -K $K -iv $IV -in f400 -out out.r
            cmp -s out.o out.r || { echo "output differs" >&2; exit 1; }
        else
            bench_shell pipe \
                "cat f400 | openssl enc -aes-128-ctr -K $K -iv $IV > /dev/null" \
                "cat f400 | $rijn enc -aes-128-ctr -K $K -iv $IV > /dev/null"
            report pipe openssl rijn
        fi ;;
    base64)
        [ -s f100 ] && [ "$(stat -c %s f100)" = 104857600 ] ||
            head -c 104857600 /dev/urandom >f100
        openssl enc -aes-128-ctr -a -K $K -iv $IV -in f100 -out b64.o
        bench base64-enc true "$runs" \
            "openssl enc -aes-128-ctr -a -K $K -iv $IV -in f100 -out b64.o" \
            "$rijn enc -aes-128-ctr -a -K $K -iv $IV -in f100 -out b64.r"
        cmp -s b64.o b64.r || { echo "base64 output differs" >&2; exit 1; }
        report base64-enc openssl rijn
        bench base64-dec true "$runs" \
            "openssl enc -d -aes-128-ctr -a -K $K -iv $IV -in b64.o -out dec.o" \
            "$rijn enc -d -aes-128-ctr -a -K $K -iv $IV -in b64.o -out dec.r"
        cmp -s dec.o f100 && cmp -s dec.r f100 ||
            { echo "base64 decryption differs" >&2; exit 1; }
        report base64-dec openssl rijn ;;
    pbkdf2)
        head -c 1024 /dev/urandom >f1k
        for md in sha1 sha256 sha512 md5; do
            for bits in 128 256; do
                a="-aes-$bits-ctr -pass pass:secret -pbkdf2 -iter 300000 -md $md -S 0102030405060708 -in f1k"
                bench "pbkdf2-$md-$bits" true 5 "openssl enc $a -out out.o" \
                    "$rijn enc $a -out out.r"
                cmp -s out.o out.r || { echo "pbkdf2 output differs" >&2; exit 1; }
                report "pbkdf2-$md-$bits" openssl rijn
            done
        done
        rm -f f1k ;;
    *) echo "enc-timing.sh: unknown part $part" >&2; exit 1 ;;
    esac
done
