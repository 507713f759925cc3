#!/bin/sh
# `rijn open` against a hostile neighbour: a process that can write the
# sealed file toggles one byte of it (tests/seal/toggle.c) while `rijn
# open` reads it. The file then holds, at any moment, either the sealed
# bytes or the same with one bit flipped, which cannot authenticate; so an
# `open` may exit 0 only with exactly the original plaintext, and any
# other run must fail with exit status 4 and leave no output file and no
# temporary file. A reader that decrypts from memory the neighbour can
# write (a MAP_SHARED mapping of the input) reads a byte once for GHASH
# and once for the XOR, and now and then releases a flipped plaintext
# under a valid tag: that is what this test catches.
#
#   sh tests/seal/test_race.sh path/to/rijn path/to/seal_toggle RUNS [-w]
#
# RUNS opens for each byte toggled (one in chunk 1, one in chunk 100 of
# another 1 MiB slot, one in the final chunk) and each thread count
# (--threads 1 and the default); -w: the neighbour writes with pwrite(2)
# instead of through its own shared mapping. RIJN_IMPL (and
# RIJN_GHASH_IMPL) in the environment choose the backends: a slow one
# (ct64) keeps a chunk in the decrypt longer, and makes a reader that
# reads shared memory fail far more often (at 40 runs per case, with the
# machine busy, the binary that mapped its input released other bytes in
# 7 of 240 runs with ct64 and in 0 of 240 with the default backends). Prints one line per case and
# exits 0 only if no run released other bytes or left a file; 1 otherwise.
# Every case must also see rejections (else the neighbour did not reach
# the reader, and the test proved nothing), which at >= 20 runs a working
# neighbour gives with near certainty.
set -u

RIJN=${1:?usage: test_race.sh path/to/rijn path/to/seal_toggle RUNS [-w]}
TOGGLE=${2:?usage: test_race.sh path/to/rijn path/to/seal_toggle RUNS [-w]}
RUNS=${3:?usage: test_race.sh path/to/rijn path/to/seal_toggle RUNS [-w]}
WOPT=${4:-}
case $RIJN in /*) ;; *) RIJN=$(pwd)/$RIJN ;; esac
case $TOGGLE in /*) ;; *) TOGGLE=$(pwd)/$TOGGLE ;; esac

T=$(mktemp -d "${TMPDIR:-/tmp}/rijn-race.XXXXXX") || exit 1
tpid=
cleanup() {
    [ -n "$tpid" ] && kill "$tpid" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
mkdir "$T/out"

H=66     # rijn header (10) + salt (24) + commitment (32)
C=16400  # a full chunk of ciphertext
# 192 full chunks (three slots of 64) and a final chunk of 1000 bytes
head -c $((3 * 1048576 + 1000)) /dev/urandom >"$T/p"
head -c 32 /dev/urandom >"$T/key"
"$RIJN" seal --key-file "$T/key" -in "$T/p" -out "$T/s" ||
    { echo "FAIL: seal"; exit 1; }
cp "$T/s" "$T/s.orig"

echo "backends: RIJN_IMPL=${RIJN_IMPL:-default} RIJN_GHASH_IMPL=${RIJN_GHASH_IMPL:-default}; neighbour: ${WOPT:+pwrite}${WOPT:-shared mapping}"
failed=0
for where in "1 $((H + C + 5000))" "100 $((H + 100 * C + 8000))" \
             "192 $((H + 192 * C + 500))"; do
    set -- $where
    chunk=$1 off=$2
    rm -f "$T/ready"
    "$TOGGLE" $WOPT "$T/ready" "$T/s" "$off" &
    tpid=$!
    n=0
    while [ ! -e "$T/ready" ] && [ $n -lt 500 ]; do
        sleep 0.01
        n=$((n + 1))
    done
    [ -e "$T/ready" ] || { echo "FAIL: the toggler did not start"; exit 1; }
    for th in 1 default; do
        topt=
        [ $th = 1 ] && topt="--threads 1"
        same=0 rejected=0 bad=0 left=0 other=0 i=0
        while [ $i -lt "$RUNS" ]; do
            "$RIJN" open --key-file "$T/key" $topt -in "$T/s" \
                -out "$T/out/o" 2>"$T/err"
            rc=$?
            if [ $rc -eq 0 ]; then
                if cmp -s "$T/p" "$T/out/o"; then
                    same=$((same + 1))
                else
                    bad=$((bad + 1))
                    cp "$T/out/o" "$T/bad.$chunk.$th" 2>/dev/null
                fi
                rm -f "$T/out/o"
            elif [ $rc -eq 4 ]; then
                rejected=$((rejected + 1))
            else
                other=$((other + 1))
                echo "  exit $rc: $(head -c 200 "$T/err")"
            fi
            if [ -n "$(ls -A "$T/out")" ]; then
                left=$((left + 1))
                echo "  left behind after exit $rc: $(ls -A "$T/out")"
                rm -f "$T/out/o" "$T/out/".o.rijn-*
            fi
            i=$((i + 1))
        done
        status=ok
        if [ $bad -gt 0 ] || [ $left -gt 0 ] || [ $other -gt 0 ]; then
            status=FAIL
        elif [ $rejected -eq 0 ]; then
            status="FAIL (no run was rejected: the toggler never reached the reader)"
        fi
        [ "$status" = ok ] || failed=1
        echo "$status: byte toggled in chunk $chunk, --threads $th: $RUNS runs: $same opened with the original plaintext, $rejected rejected (exit 4), $bad opened with OTHER bytes, $other other exits, $left left files behind"
    done
    kill "$tpid"
    wait "$tpid" || { echo "FAIL: the toggler failed"; failed=1; }
    tpid=
    cmp -s "$T/s" "$T/s.orig" || { echo "FAIL: the toggler did not restore the file"; exit 1; }
done
exit $failed
