#!/usr/bin/env bash
# provider.tls_bulk: runs tls_bulk (tls_bulk.c: N bytes over TLS between two
# threads, every byte compared) with the rijn provider configuration and
# without it. Checks the data arrived intact (tls_bulk's exit status), that
# the rijn runs' trace (RIJN_PROVIDER_TRACE) counts the bytes on both ends
# (sender's enc, receiver's dec: one process) and names rijn as the
# provider of the record cipher, and that the run without leaves no trace.
# A correctness test: the speed it prints is not judged (see
# scripts/provider-speed.sh for that).
#
#   usage: tls_bulk.sh [--run RUNNER] RIJN_SO TLS_BULK [MIB]   (MIB: default 64)
#
# RUNNER runs tls_bulk (a cross build's qemu wrapper, rijn-qemu-dynamic,
# which exits 77 with "skip: ..." when the target's libcrypto does not load).
# Exit status 0 pass, 1 fail, 77 skipped (that, or RIJN_PROGRAMS_SKIP, set
# by CMake when tls_bulk was not built).
set -u

[ -z "${RIJN_PROGRAMS_SKIP:-}" ] || { echo "skip: $RIJN_PROGRAMS_SKIP"; exit 77; }
here=$(cd "$(dirname "$0")" && pwd)
runner=()
if [ "${1:-}" = --run ]; then
    runner=("$2")
    shift 2
fi
module=${1:-}
bulk=${2:-}
mib=${3:-64}
if [ ! -f "$module" ] || [ ! -x "$bulk" ]; then
    echo "usage: tls_bulk.sh RIJN_SO TLS_BULK [MIB] (module '$module', tls_bulk '$bulk')" >&2
    exit 2
fi
module=$(cd "$(dirname "$module")" && pwd)/$(basename "$module")
unset RIJN_PROVIDER_TRACE OPENSSL_MODULES
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rijn-tls-bulk.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# the configuration users get (provider/rijn.cnf), with this module
sed "s|^module = .*|module = $module|" "$here/../../provider/rijn.cnf" >"$tmp/rijn.cnf"

# run NAME ALG BYTES PROVIDER [TLS_BULK_OPTS...]: one run, its checks.
run() {
    local name=$1 alg=$2 n=$3 prov=$4 out got d
    shift 4
    out=$(RIJN_PROVIDER_TRACE=$tmp/$name.trace timeout 300 "${runner[@]}" "$bulk" "$@" "$n" 2>&1)
    local st=$?
    echo "$out"
    if [ $st = 77 ] && [[ $out == skip:* ]]; then exit 77; fi
    [ $st = 0 ] || { fail "$name: tls_bulk exited with $st"; return; }
    [[ $out == *" provider=$prov "* ]] || fail "$name: the record cipher's provider is not $prov"
    if [ "$prov" != rijn ]; then
        [ ! -s "$tmp/$name.trace" ] || { fail "$name: trace lines without the module:"; cat "$tmp/$name.trace"; }
        return
    fi
    for d in enc dec; do
        got=$(awk -v a="$alg" -v d="$d" '$1 == "rijn.so" && $3 == a && $4 == d { s += $5 }
            END { printf "%.0f\n", s }' "$tmp/$name.trace" 2>/dev/null)
        got=${got:-0}
        if [ "$got" -lt "$n" ] || [ "$got" -gt $((n + 65536)) ]; then
            fail "$name: trace counts ${got} bytes of $alg $d, expected $n..$((n + 65536)); trace:"
            cat "$tmp/$name.trace" 2>/dev/null
        fi
    done
    [ -s "$tmp/$name.trace" ] && echo "  trace: $(tr '\n' ';' <"$tmp/$name.trace")"
}

n=$((mib << 20))
small=$(((mib < 16 ? mib : 16) << 20))
run tls13-256 AES-256-GCM "$n" rijn --config "$tmp/rijn.cnf"
run tls13-128-tcp AES-128-GCM "$small" rijn --config "$tmp/rijn.cnf" --tcp --suite TLS_AES_128_GCM_SHA256
run tls12-256 AES-256-GCM "$small" rijn --config "$tmp/rijn.cnf" --tls1.2
run tls12-128 AES-128-GCM "$small" rijn --config "$tmp/rijn.cnf" --tls1.2 --suite ECDHE-ECDSA-AES128-GCM-SHA256
run default AES-256-GCM "$small" default
run odd-size AES-256-GCM $((small + 12345)) rijn --config "$tmp/rijn.cnf"

if [ "$fails" -gt 0 ]; then
    echo "$fails check(s) failed"
    exit 1
fi
echo "all tls_bulk checks passed"
