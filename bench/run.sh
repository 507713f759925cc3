#!/bin/sh
# Full benchmark run: machine description, `rijn speed` (JSON, Markdown
# report, plot) in one output directory.
#
#   bench/run.sh [-b build-dir] [-o out-dir] [-- rijn speed options...]
#
# Defaults: build-dir ./build, out-dir ./bench-results/<UTC time>-<host>.
# Example: bench/run.sh -b /tmp/build -- --quick --impl ct64 --threads 2
set -eu

here=$(cd "$(dirname "$0")" && pwd)
build=build
out=
while [ $# -gt 0 ]; do
    case $1 in
    -b) build=$2; shift 2 ;;
    -o) out=$2; shift 2 ;;
    --) shift; break ;;
    -h | --help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown option $1 (options after -- go to rijn speed)" >&2
       exit 1 ;;
    esac
done
rijn=$build/tools/rijn
[ -x "$rijn" ] || { echo "run.sh: $rijn not found (build first)" >&2; exit 1; }
[ -n "$out" ] || out=bench-results/$(date -u +%Y%m%dT%H%M%SZ)-$(uname -n)
mkdir -p "$out"

{
    echo "date: $(date -u)"
    echo "host: $(uname -a)"
    grep -m1 'model name' /proc/cpuinfo 2>/dev/null || :
    echo "load: $(cat /proc/loadavg 2>/dev/null || uptime)"
    "$rijn" --version
    echo
    "$rijn" impl || :
    echo
    command -v openssl >/dev/null && openssl version || echo "openssl: absent"
    echo "speed options: $*"
} >"$out/env.txt" 2>&1

# One run gives the JSON and the plot; the report is rendered from the JSON.
status=0
"$rijn" speed --json --plot "$out/speed.png" "$@" >"$out/speed.json" \
    2>"$out/speed.stderr" || status=$?
if command -v python3 >/dev/null 2>&1; then
    python3 "$here/report.py" "$out/speed.json" >"$out/speed.md"
fi
cat "$out/speed.stderr" >&2
echo "results in $out: env.txt speed.json speed.md speed.png speed.dat speed.gp"
exit $status
