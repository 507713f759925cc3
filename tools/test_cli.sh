#!/bin/sh
# CLI tests for the `rijn` tool.
#
#   sh tools/test_cli.sh path/to/rijn [group...]
#
# Groups: usage enc vectors openssl errors speed (default: all).
# Exit status: 0 pass, 1 fail, 77 skipped (only when every group asked for
# was skipped, e.g. `openssl` without /usr/bin/openssl).
set -u

RIJN=${1:?usage: test_cli.sh path/to/rijn [group...]}
shift
case $RIJN in /*) ;; *) RIJN=$(pwd)/$RIJN ;; esac
[ -x "$RIJN" ] || { echo "FAIL: $RIJN is not executable" >&2; exit 1; }
OPENSSL=/usr/bin/openssl

T=$(mktemp -d "${TMPDIR:-/tmp}/rijn-cli.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
trap 'exit 1' INT TERM HUP

failures=0
fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}
pass() {
    echo "ok: $*"
}

# Hex string -> binary file (portable: no xxd needed).
hex2bin() {
    hex=$1
    : >"$2"
    while [ -n "$hex" ]; do
        byte=${hex%"${hex#??}"}
        hex=${hex#??}
        # shellcheck disable=SC2059
        printf "\\$(printf %03o "0x$byte")" >>"$2"
    done
}
bin2hex() {
    od -An -tx1 -v "$1" | tr -d ' \n'
}
# Deterministic pseudo-random file of $2 bytes.
mkdata() {
    head -c "$2" /dev/urandom >"$1"
}

K128=2b7e151628aed2a6abf7158809cf4f3c
K192=8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b
K256=603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4
IVF5=f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff

# expect_fail NAME OUTFILE -- command...
# The command must exit 1, print a message on stderr, and leave OUTFILE
# (if not "-") byte-identical to before, with no temporary file beside it.
expect_fail() {
    name=$1
    outfile=$2
    shift 3
    if [ "$outfile" != - ] && [ -e "$outfile" ]; then
        cp "$outfile" "$T/before" 2>/dev/null || : >"$T/before"
    fi
    before_ls=$(ls -A "$T/out" 2>/dev/null)
    "$@" >"$T/stdout" 2>"$T/stderr" </dev/null
    rc=$?
    if [ $rc -ne 1 ]; then
        fail "$name: exit status $rc, expected 1"
        return
    fi
    if [ ! -s "$T/stderr" ]; then
        fail "$name: no error message"
        return
    fi
    if [ "$outfile" != - ] && [ -e "$T/before" ] &&
       ! cmp -s "$outfile" "$T/before"; then
        fail "$name: the output file was modified"
        return
    fi
    if [ "$(ls -A "$T/out" 2>/dev/null)" != "$before_ls" ]; then
        fail "$name: files left behind in the output directory"
        return
    fi
    rm -f "$T/before"
    pass "$name ($(head -n1 "$T/stderr"))"
}

# ---------------------------------------------------------------------------
group_usage() {
    "$RIJN" --help >"$T/o" 2>&1 && grep -q usage "$T/o" &&
        pass "--help" || fail "--help"
    "$RIJN" --version >"$T/o" 2>&1 && grep -q "default backend" "$T/o" &&
        grep -q "cpu features" "$T/o" && pass "--version" || fail "--version"
    for c in enc speed impl aes-128-ctr; do
        "$RIJN" $c --help >"$T/o" 2>&1 && grep -q "usage: rijn" "$T/o" &&
            pass "$c --help" || fail "$c --help"
    done
    "$RIJN" impl >"$T/o" 2>&1 && grep -q "^  ref " "$T/o" &&
        grep -q "<- default" "$T/o" && pass "impl" || fail "impl"
    expect_fail "unknown command" - -- "$RIJN" frobnicate
    expect_fail "no command" - -- "$RIJN"
    expect_fail "enc unknown option" - -- "$RIJN" enc -aes-128-ctr -bogus
    expect_fail "speed unknown option" - -- "$RIJN" speed --bogus
    expect_fail "speed unknown backend" - -- "$RIJN" speed --impl nope
    expect_fail "impl with RIJN_IMPL=nope" - -- env RIJN_IMPL=nope "$RIJN" impl
    grep -q nope "$T/stderr" || fail "RIJN_IMPL message does not name it"
}

# ---------------------------------------------------------------------------
group_enc() {
    iv=000102030405060708090a0b0c0dfffe
    backends=$("$RIJN" impl | awk '$2 == "yes" && NF >= 4 {print $1}')
    [ -n "$backends" ] || fail "no available backend listed by rijn impl"
    for bits in 128 192 256; do
        eval key=\$K$bits
        for n in 0 1 15 16 17 4096 1048593; do
            mkdata "$T/p" $n
            "$RIJN" enc -aes-$bits-ctr -e -K $key -iv $iv -in "$T/p" \
                -out "$T/c" || { fail "enc $bits $n"; continue; }
            "$RIJN" aes-$bits-ctr -d -K $key -iv $iv <"$T/c" >"$T/d" ||
                { fail "dec $bits $n"; continue; }
            cmp -s "$T/p" "$T/d" || fail "round trip aes-$bits-ctr $n bytes"
            [ $n -eq 0 ] || ! cmp -s "$T/p" "$T/c" ||
                fail "ciphertext equals plaintext ($bits, $n)"
            for b in $backends; do
                "$RIJN" enc -aes-$bits-ctr -impl $b -K $key -iv $iv \
                    -in "$T/p" -out "$T/cb" && cmp -s "$T/c" "$T/cb" ||
                    fail "backend $b differs (aes-$bits-ctr, $n bytes)"
            done
        done
        pass "round trips aes-$bits-ctr, backends: $(echo $backends)"
    done
    # replacing an existing output keeps its permissions
    mkdata "$T/p" 1000
    echo old >"$T/existing"
    chmod 640 "$T/existing"
    "$RIJN" enc -aes-128-ctr -K $K128 -iv $iv -in "$T/p" -out "$T/existing" &&
        [ "$(wc -c <"$T/existing")" -eq 1000 ] &&
        [ "$(ls -l "$T/existing" | cut -c1-10)" = "-rw-r-----" ] &&
        pass "existing output replaced, mode kept" ||
        fail "existing output replaced, mode kept"
    # output through a symbolic link replaces the target, keeps the link
    ln -s existing "$T/link"
    echo old >"$T/existing"
    "$RIJN" enc -aes-128-ctr -K $K128 -iv $iv -in "$T/p" -out "$T/ref" &&
    "$RIJN" enc -aes-128-ctr -K $K128 -iv $iv -in "$T/p" -out "$T/link" &&
        [ -L "$T/link" ] && cmp -s "$T/ref" "$T/existing" &&
        pass "output through a symlink" || fail "output through a symlink"
    # --K style and -iv in upper case
    "$RIJN" enc --aes-128-ctr --K $(echo $K128 | tr a-f A-F) \
        --iv $(echo $iv | tr a-f A-F) -in "$T/p" -out "$T/c2" &&
        "$RIJN" enc -aes-128-ctr -K $K128 -iv $iv -in "$T/p" -out "$T/c3" &&
        cmp -s "$T/c2" "$T/c3" && pass "--options, upper-case hex" ||
        fail "--options, upper-case hex"
}

# ---------------------------------------------------------------------------
group_vectors() {
    # NIST SP 800-38A F.5.1, F.5.3, F.5.5 (encrypt) and their decryption.
    P=6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710
    C128=874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff5ae4df3edbd5d35e5b4f09020db03eab1e031dda2fbe03d1792170a0f3009cee
    C192=1abc932417521ca24f2b0459fe7e6e0b090339ec0aa6faefd5ccc2c6f4ce8e941e36b26bd1ebc670d1bd1d665620abf74f78a7f6d29809585a97daec58c6b050
    C256=601ec313775789a5b7a7f504bbf3d228f443e3ca4d62b59aca84e990cacaf5c52b0930daa23de94ce87017ba2d84988ddfc9c58db67aada613c2dd08457941a6
    hex2bin $P "$T/p"
    for bits in 128 192 256; do
        eval key=\$K$bits want=\$C$bits
        "$RIJN" enc -aes-$bits-ctr -K $key -iv $IVF5 -in "$T/p" -out "$T/c" &&
            [ "$(bin2hex "$T/c")" = "$want" ] &&
            pass "SP 800-38A CTR-AES$bits.Encrypt" ||
            fail "SP 800-38A CTR-AES$bits.Encrypt: got $(bin2hex "$T/c")"
        "$RIJN" enc -aes-$bits-ctr -d -K $key -iv $IVF5 <"$T/c" >"$T/d" &&
            [ "$(bin2hex "$T/d")" = "$P" ] &&
            pass "SP 800-38A CTR-AES$bits.Decrypt" ||
            fail "SP 800-38A CTR-AES$bits.Decrypt"
    done
    # partial final block: the first 20 bytes
    head -c 20 "$T/p" >"$T/p20"
    "$RIJN" enc -aes-128-ctr -K $K128 -iv $IVF5 -in "$T/p20" -out "$T/c20" &&
        [ "$(bin2hex "$T/c20")" = "$(echo $C128 | cut -c1-40)" ] &&
        pass "SP 800-38A F.5.1, 20-byte prefix" ||
        fail "SP 800-38A F.5.1, 20-byte prefix"
}

# ---------------------------------------------------------------------------
group_openssl() {
    if [ ! -x "$OPENSSL" ]; then
        echo "skip: $OPENSSL not found"
        return 77
    fi
    for bits in 128 192 256; do
        eval key=\$K$bits
        for iv in $IVF5 00000000000000000000000000000000 \
                  0000000000000000fffffffffffffffe \
                  ffffffffffffffffffffffffffffffff \
                  00112233445566778899aabbfffffffd; do
            for n in 0 1 31 4097 1048581; do
                mkdata "$T/p" $n
                "$RIJN" enc -aes-$bits-ctr -K $key -iv $iv -in "$T/p" \
                    -out "$T/r" || { fail "rijn $bits $iv $n"; continue; }
                "$OPENSSL" enc -aes-$bits-ctr -K $key -iv $iv -in "$T/p" \
                    -out "$T/o" || { fail "openssl $bits $iv $n"; continue; }
                cmp -s "$T/r" "$T/o" ||
                    fail "differs from openssl: aes-$bits-ctr iv=$iv $n bytes"
            done
        done
        pass "byte-identical to openssl enc -aes-$bits-ctr (5 IVs incl. wraps, 5 sizes)"
    done
    mkdata "$T/p" 70000
    "$RIJN" aes-256-ctr -K $K256 -iv $IVF5 <"$T/p" >"$T/r" &&
        "$OPENSSL" enc -aes-256-ctr -K $K256 -iv $IVF5 <"$T/p" >"$T/o" &&
        cmp -s "$T/r" "$T/o" && pass "stdin/stdout identical to openssl" ||
        fail "stdin/stdout identical to openssl"
}

# ---------------------------------------------------------------------------
group_errors() {
    mkdir -p "$T/out"
    mkdata "$T/in" 5000
    O=$T/out/existing
    printf 'precious\n' >"$O"
    E="$RIJN enc -aes-128-ctr"
    expect_fail "bad key hex (non-hex)" "$O" -- \
        $E -K 2b7e151628aed2a6abf7158809cf4fXX -iv $IVF5 -in "$T/in" -out "$O"
    expect_fail "bad key hex (too short)" "$O" -- \
        $E -K 2b7e1516 -iv $IVF5 -in "$T/in" -out "$O"
    expect_fail "bad key hex (too long for 128)" "$O" -- \
        $E -K $K256 -iv $IVF5 -in "$T/in" -out "$O"
    expect_fail "bad iv hex" "$O" -- \
        $E -K $K128 -iv f0f1 -in "$T/in" -out "$O"
    expect_fail "missing -iv" "$O" -- $E -K $K128 -in "$T/in" -out "$O"
    expect_fail "missing -K" "$O" -- $E -iv $IVF5 -in "$T/in" -out "$O"
    expect_fail "-K without value" "$O" -- $E -iv $IVF5 -in "$T/in" -out "$O" -K
    expect_fail "missing cipher" "$O" -- \
        "$RIJN" enc -K $K128 -iv $IVF5 -in "$T/in" -out "$O"
    expect_fail "unknown -impl" "$O" -- \
        $E -impl nope -K $K128 -iv $IVF5 -in "$T/in" -out "$O"
    expect_fail "RIJN_IMPL=nope" "$O" -- env RIJN_IMPL=nope \
        $E -K $K128 -iv $IVF5 -in "$T/in" -out "$O"
    expect_fail "missing input file" "$O" -- \
        $E -K $K128 -iv $IVF5 -in "$T/nonexistent" -out "$O"
    expect_fail "input is a directory" "$O" -- \
        $E -K $K128 -iv $IVF5 -in "$T" -out "$O"
    expect_fail "same file in and out" "$O" -- \
        $E -K $K128 -iv $IVF5 -in "$O" -out "$O"
    grep -q "same file" "$T/stderr" || fail "same-file message unclear"
    ln "$O" "$T/out/hardlink"
    expect_fail "same file via hard link" "$O" -- \
        $E -K $K128 -iv $IVF5 -in "$T/out/hardlink" -out "$O"
    rm -f "$T/out/hardlink"
    ln -s "$O" "$T/symlink"
    expect_fail "same file via symlink" "$O" -- \
        $E -K $K128 -iv $IVF5 -in "$T/symlink" -out "$O"
    expect_fail "same file via stdin" "$O" -- \
        sh -c "exec $E -K $K128 -iv $IVF5 -out '$O' <'$O'"
    expect_fail "output directory missing" - -- \
        $E -K $K128 -iv $IVF5 -in "$T/in" -out "$T/nodir/x"
    expect_fail "output is a directory" - -- \
        $E -K $K128 -iv $IVF5 -in "$T/in" -out "$T/out"
    if [ -w /dev/full ]; then
        expect_fail "/dev/full as output" - -- \
            $E -K $K128 -iv $IVF5 -in "$T/in" -out /dev/full
        grep -q "No space" "$T/stderr" || fail "/dev/full: no ENOSPC message"
        expect_fail "/dev/full as stdout" - -- \
            sh -c "exec $E -K $K128 -iv $IVF5 -in '$T/in' >/dev/full"
    else
        echo "skip: /dev/full not writable"
    fi
    # EPIPE: the reader goes away early
    mkdata "$T/big" 4194304
    ( "$RIJN" enc -aes-128-ctr -K $K128 -iv $IVF5 -in "$T/big" \
        2>"$T/stderr"; echo $? >"$T/rc" ) | head -c 10 >/dev/null
    [ "$(cat "$T/rc")" = 1 ] && grep -q "Broken pipe" "$T/stderr" &&
        pass "EPIPE reported ($(cat "$T/stderr"))" ||
        fail "EPIPE: status $(cat "$T/rc"), message '$(cat "$T/stderr")'"
    # killed mid-run (input is a FIFO that never ends): the temporary file
    # is removed and the old output stays
    if mkfifo "$T/fifo" 2>/dev/null; then
        sleep 10 >"$T/fifo" &
        writer=$!
        "$RIJN" enc -aes-128-ctr -K $K128 -iv $IVF5 -in "$T/fifo" -out "$O" \
            2>/dev/null &
        pid=$!
        sleep 1
        leftover=$(ls -A "$T/out")
        kill -TERM $pid
        wait $pid
        rc=$?
        kill $writer 2>/dev/null
        wait $writer 2>/dev/null
        [ $rc -ne 0 ] && [ "$(cat "$O")" = precious ] &&
            [ "$(ls -A "$T/out")" = existing ] &&
            [ "$leftover" != existing ] &&
            pass "SIGTERM mid-run: temporary file removed, output untouched" ||
            fail "SIGTERM mid-run (status $rc, files: $(ls -A "$T/out"))"
    fi
    [ "$(cat "$O")" = precious ] || fail "the output file was modified"
    [ "$(ls -A "$T/out")" = existing ] ||
        fail "files left in the output directory: $(ls -A "$T/out")"
}

# ---------------------------------------------------------------------------
group_speed() {
    "$RIJN" speed --quick --impl ct64 --bits 128 --json >"$T/speed.json" ||
        { fail "rijn speed --quick --json failed"; return; }
    if command -v python3 >/dev/null 2>&1; then
        python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "ok", d["status"]
assert d["clock"]["core_ghz"] > 0
r = d["results"]
assert len(r) >= 16 and all(x["impl"] == "ct64" and x["bits"] == 128 for x in r)
assert all(x["rijn"]["value"] > 0 for x in r)
' "$T/speed.json" && pass "speed --quick --json parses" ||
            fail "speed --json does not parse"
    else
        grep -q '"status": "ok"' "$T/speed.json" &&
            pass "speed --quick --json (python3 absent: not parsed)" ||
            fail "speed --json status"
    fi
}

# ---------------------------------------------------------------------------
[ $# -gt 0 ] || set -- usage enc vectors openssl errors speed
ran=0
for g in "$@"; do
    case $g in
    usage | enc | vectors | openssl | errors | speed) ;;
    *) echo "unknown group $g" >&2; exit 1 ;;
    esac
    echo "== $g"
    "group_$g"
    [ $? -eq 77 ] || ran=1
done
if [ $failures -ne 0 ]; then
    echo "$failures failure(s)" >&2
    exit 1
fi
[ $ran -eq 1 ] || exit 77
exit 0
