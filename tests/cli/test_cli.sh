#!/bin/sh
# CLI tests for the `rijn` tool.
#
#   sh tests/cli/test_cli.sh path/to/rijn [group...]
#
# Groups: usage enc vectors golden openssl errors engine inplace base64
# progress speed (default: all).
# Exit status: 0 pass, 1 fail, 77 skipped (only when every group asked for
# was skipped, e.g. `openssl` without /usr/bin/openssl).
set -u

RIJN=${1:?usage: test_cli.sh path/to/rijn [group...]}
shift
case $RIJN in /*) ;; *) RIJN=$(pwd)/$RIJN ;; esac
[ -x "$RIJN" ] || { echo "FAIL: $RIJN is not executable" >&2; exit 1; }
OPENSSL=/usr/bin/openssl
HERE=$(cd "$(dirname "$0")" && pwd)

T=$(mktemp -d "${TMPDIR:-/tmp}/rijn-cli.XXXXXX") || exit 1
trap 'umount "$T/small" 2>/dev/null; rm -rf "$T"' EXIT
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
    # the GHASH engines, and the one the default backend pairs with
    def=$(sed -n 's/^default: \([^ ]*\) .*/\1/p' "$T/o")
    eng=$(sed -n "s/^gcm default: $def with \([^ ]*\) .*/\1/p" "$T/o")
    if grep -q "^GHASH engines (AES-GCM) compiled in: [1-9]" "$T/o" &&
       [ -n "$eng" ] &&
       grep -Eq "^  $eng +yes .*<- for (.*, )?$def \(default\)" "$T/o"; then
        pass "impl: GHASH engines, $def pairs with $eng"
    else
        fail "impl: no GHASH engine table or pairing: $(tail -n 12 "$T/o")"
    fi
    expect_fail "impl with RIJN_GHASH_IMPL=nope" - -- \
        env RIJN_GHASH_IMPL=nope "$RIJN" impl
    grep -q "RIJN_GHASH_IMPL=nope" "$T/stderr" ||
        fail "RIJN_GHASH_IMPL message does not name it"
    expect_fail "speed --ghash without --gcm" - -- "$RIJN" speed --ghash ref
    expect_fail "speed --gcm unknown GHASH engine" - -- \
        "$RIJN" speed --gcm --ghash nope
    expect_fail "speed --gcm with --mac" - -- "$RIJN" speed --gcm --mac
    expect_fail "unknown command" - -- "$RIJN" frobnicate
    expect_fail "no command" - -- "$RIJN"
    expect_fail "enc unknown option" - -- "$RIJN" enc -aes-128-ctr -bogus
    expect_fail "speed unknown option" - -- "$RIJN" speed --bogus
    expect_fail "speed unknown backend" - -- "$RIJN" speed --impl nope
    expect_fail "impl with RIJN_IMPL=nope" - -- env RIJN_IMPL=nope "$RIJN" impl
    grep -q nope "$T/stderr" || fail "RIJN_IMPL message does not name it"
    # the variable-time ref only with the opt-in
    expect_fail "RIJN_IMPL=ref without RIJN_ALLOW_VARIABLE_TIME" - -- \
        env RIJN_IMPL=ref "$RIJN" impl
    grep -q RIJN_ALLOW_VARIABLE_TIME "$T/stderr" ||
        fail "RIJN_IMPL=ref message does not name RIJN_ALLOW_VARIABLE_TIME"
    RIJN_IMPL=ref RIJN_ALLOW_VARIABLE_TIME=1 "$RIJN" impl >"$T/o" 2>&1 &&
        grep -q "^default: ref" "$T/o" && pass "RIJN_IMPL=ref with the opt-in" ||
        fail "RIJN_IMPL=ref with RIJN_ALLOW_VARIABLE_TIME=1"
}

# ---------------------------------------------------------------------------
group_enc() {
    iv=000102030405060708090a0b0c0dfffe
    # the AES table of `rijn impl` only (other tables may follow)
    backends=$("$RIJN" impl | awk '/^AES backends/ {a = 1; next}
        a && /^[^ ]/ {a = 0} a && $2 == "yes" {print $1}')
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

# Random number in [0, $1).
rnd() {
    echo $(( $(od -An -N4 -tu4 /dev/urandom | tr -d ' ') % $1 ))
}
rndhex() {
    od -An -N"$1" -tx1 /dev/urandom | tr -d ' \n'
}

# Random differential runs against openssl: key sizes, IVs near counter
# wraps, sizes 0 to 4 MiB, -threads 1..4, file/pipe/base64, passwords.
group_openssl_random() {
    runs=${RIJN_CLI_RUNS:-24}
    bad=0
    i=0
    while [ $i -lt $runs ]; do
        i=$((i + 1))
        bits=$(echo 128 192 256 | cut -d' ' -f$(( $(rnd 3) + 1 )))
        key=$(rndhex $((bits / 8)))
        case $(rnd 5) in
        0) iv=ffffffffffffffffffffffffffffffff ;;
        1) iv=$(rndhex 8)fffffffffffffff$(echo 0 8 c e f | cut -d' ' -f$(( $(rnd 5) + 1 ))) ;;
        2) iv=$(rndhex 12)ffffff$(rndhex 1) ;;
        3) iv=00000000000000000000000000000000 ;;
        *) iv=$(rndhex 16) ;;
        esac
        case $(rnd 4) in
        0) n=$(echo 0 1 15 16 17 4095 65537 | cut -d' ' -f$(( $(rnd 7) + 1 ))) ;;
        1) n=$(rnd 5000) ;;
        *) n=$(rnd 4194304) ;;
        esac
        th=$(( $(rnd 4) + 1 ))
        mode=$(echo file pipe a aA dec | cut -d' ' -f$(( $(rnd 5) + 1 )))
        mkdata "$T/p" $n
        desc="aes-$bits-ctr iv=$iv n=$n threads=$th mode=$mode"
        case $mode in
        file)
            "$RIJN" enc -aes-$bits-ctr -threads $th -K $key -iv $iv \
                -in "$T/p" -out "$T/r" 2>"$T/e"
            "$OPENSSL" enc -aes-$bits-ctr -K $key -iv $iv -in "$T/p" \
                -out "$T/o" 2>/dev/null ;;
        pipe)
            cat "$T/p" | "$RIJN" enc -aes-$bits-ctr -threads $th -K $key \
                -iv $iv >"$T/r" 2>"$T/e"
            "$OPENSSL" enc -aes-$bits-ctr -K $key -iv $iv <"$T/p" \
                >"$T/o" 2>/dev/null ;;
        a | aA)
            A=""
            [ $mode = aA ] && A=-A
            "$RIJN" enc -aes-$bits-ctr -a $A -threads $th -K $key -iv $iv \
                -in "$T/p" -out "$T/r" 2>"$T/e"
            "$OPENSSL" enc -aes-$bits-ctr -a $A -K $key -iv $iv \
                -in "$T/p" -out "$T/o" 2>/dev/null
            if [ $mode = a ]; then
                "$RIJN" enc -d -aes-$bits-ctr -a -K $key -iv $iv \
                    -in "$T/o" -out "$T/d" 2>>"$T/e" && cmp -s "$T/d" "$T/p" ||
                    { fail "base64 decrypt of openssl's output: $desc"; bad=1; }
            fi ;;
        dec)
            "$OPENSSL" enc -aes-$bits-ctr -K $key -iv $iv -in "$T/p" \
                -out "$T/c" 2>/dev/null
            "$RIJN" enc -d -aes-$bits-ctr -threads $th -K $key -iv $iv \
                -in "$T/c" -out "$T/r" 2>"$T/e"
            cp "$T/p" "$T/o" ;;
        esac
        if ! cmp -s "$T/r" "$T/o"; then
            fail "differs from openssl: $desc ($(head -c 200 "$T/e"))"
            bad=1
        fi
    done
    [ $bad -eq 0 ] && pass "$runs random runs identical to openssl (key sizes, IVs near wraps, sizes to 4 MiB, threads 1-4, file/pipe/base64/decrypt)"

    # Passwords: same salt -> same bytes; random salts -> each decrypts
    # the other's output.
    bad=0
    i=0
    while [ $i -lt 12 ]; do
        i=$((i + 1))
        bits=$(echo 128 192 256 | cut -d' ' -f$(( $(rnd 3) + 1 )))
        pw=pw$(rndhex $(( $(rnd 20) + 1 )))
        md=$(echo md5 sha1 sha256 sha512 sha384 sha224 | cut -d' ' -f$(( $(rnd 6) + 1 )))
        case $(rnd 3) in
        0) kdf="" ;;
        1) kdf=-pbkdf2 ;;
        *) kdf="-iter $(( $(rnd 3000) + 1 ))" ;;
        esac
        A=""
        [ $(rnd 3) -eq 0 ] && A=-a
        if [ $(rnd 3) -eq 0 ]; then n=$(rnd 3000000); else n=$(rnd 300000); fi
        th=$(( $(rnd 4) + 1 ))
        salt=$(rndhex 8)
        mkdata "$T/p" $n
        desc="aes-$bits-ctr md=$md kdf='$kdf' $A n=$n threads=$th"
        "$RIJN" enc -aes-$bits-ctr -pass pass:$pw -md $md $kdf $A -S $salt \
            -in "$T/p" -out "$T/r" 2>"$T/e"
        "$OPENSSL" enc -aes-$bits-ctr -pass pass:$pw -md $md $kdf $A -S $salt \
            -in "$T/p" -out "$T/o" 2>/dev/null
        cmp -s "$T/r" "$T/o" ||
            { fail "password mode differs: $desc -S $salt"; bad=1; }
        "$RIJN" enc -aes-$bits-ctr -threads $th -k $pw -md $md $kdf $A \
            -in "$T/p" -out "$T/r" 2>"$T/e"
        "$OPENSSL" enc -d -aes-$bits-ctr -k $pw -md $md $kdf $A \
            -in "$T/r" -out "$T/d" 2>/dev/null && cmp -s "$T/d" "$T/p" ||
            { fail "openssl cannot decrypt rijn's salted output: $desc"; bad=1; }
        "$OPENSSL" enc -aes-$bits-ctr -k $pw -md $md $kdf $A \
            -in "$T/p" -out "$T/o" 2>/dev/null
        "$RIJN" enc -d -aes-$bits-ctr -threads $th -k $pw -md $md $kdf $A \
            -in "$T/o" -out "$T/d" 2>"$T/e" && cmp -s "$T/d" "$T/p" ||
            { fail "rijn cannot decrypt openssl's salted output: $desc"; bad=1; }
    done
    [ $bad -eq 0 ] && pass "12 random password runs (md, -pbkdf2/-iter/EVP_BytesToKey, -S and random salts, base64) interoperate with openssl"
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
    group_openssl_random
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
    expect_fail "bad key hex (non-hex, short)" "$O" -- \
        $E -K 0g -iv $IVF5 -in "$T/in" -out "$O"
    grep -q "invalid hex key value" "$T/stderr" || fail "key message"
    expect_fail "bad iv hex (non-hex)" "$O" -- \
        $E -K $K128 -iv f0f1x -in "$T/in" -out "$O"
    grep -q "invalid hex iv value" "$T/stderr" || fail "iv message"
    expect_fail "bad salt hex" "$O" -- \
        $E -k pw -S 01zz -in "$T/in" -out "$O"
    expect_fail "-pass env: unset" "$O" -- \
        $E -pass env:RIJN_NO_SUCH_VAR -in "$T/in" -out "$O"
    expect_fail "-pass file: missing" "$O" -- \
        $E -pass file:"$T/nonexistent" -in "$T/in" -out "$O"
    expect_fail "-pass without a source type" "$O" -- \
        $E -pass secret -in "$T/in" -out "$O"
    expect_fail "-kfile missing" "$O" -- \
        $E -kfile "$T/nonexistent" -in "$T/in" -out "$O"
    expect_fail "no key, no password, no terminal" "$O" -- \
        setsid $E -in "$T/in" -out "$O"
    expect_fail "decrypt: bad magic number" "$O" -- \
        $E -d -k pw -in "$T/in" -out "$O"
    grep -q "bad magic number" "$T/stderr" || fail "bad magic message"
    printf 'Salted__abc' >"$T/short"
    expect_fail "decrypt: truncated header" "$O" -- \
        $E -d -k pw -in "$T/short" -out "$O"
    printf 'QUJD\nQU*D\n' >"$T/bad64"
    expect_fail "decrypt: invalid base64" "$O" -- \
        $E -d -a -K $K128 -iv $IVF5 -in "$T/bad64" -out "$O"
    printf 'QUJDQQ\n' >"$T/bad64"
    expect_fail "decrypt: truncated base64" "$O" -- \
        $E -d -a -K $K128 -iv $IVF5 -in "$T/bad64" -out "$O"
    expect_fail "-bufsize 0" "$O" -- \
        $E -bufsize 0 -K $K128 -iv $IVF5 -in "$T/in" -out "$O"
    expect_fail "-bufsize bad" "$O" -- \
        $E -bufsize 1m -K $K128 -iv $IVF5 -in "$T/in" -out "$O"
    expect_fail "-iter 0" "$O" -- $E -k pw -iter 0 -in "$T/in" -out "$O"
    expect_fail "-md unknown" "$O" -- $E -k pw -md nosuch -in "$T/in" -out "$O"
    expect_fail "-threads 0" "$O" -- \
        $E -threads 0 -K $K128 -iv $IVF5 -in "$T/in" -out "$O"
    expect_fail "unsupported cipher" "$O" -- \
        "$RIJN" enc -aes-128-cbc -K $K128 -iv $IVF5 -in "$T/in" -out "$O"
    expect_fail "openssl option rijn refuses (-engine)" "$O" -- \
        $E -engine x -K $K128 -iv $IVF5 -in "$T/in" -out "$O"
    if [ -r /proc/self/mem ]; then
        expect_fail "read error (EIO from /proc/self/mem)" "$O" -- \
            $E -K $K128 -iv $IVF5 -in /proc/self/mem -out "$O"
    fi
    # unreadable input (as root: as nobody, to whom root's mode-000 file
    # is unreadable)
    cp "$T/in" "$T/unreadable" && chmod 000 "$T/unreadable"
    AS=
    if [ "$(id -u)" = 0 ]; then
        AS="setpriv --reuid=65534 --regid=65534 --clear-groups"
        chmod 755 "$T"
        command -v setpriv >/dev/null 2>&1 &&
            $AS "$RIJN" --version >/dev/null 2>&1 || AS=none
    fi
    if [ "$AS" = none ]; then
        echo "skip: unreadable input (root, and nobody cannot run $RIJN)"
    else
        expect_fail "unreadable input" "$O" -- \
            $AS $E -K $K128 -iv $IVF5 -in "$T/unreadable" -out "$O"
        grep -q "Permission denied" "$T/stderr" ||
            fail "unreadable input: no EACCES message: $(cat "$T/stderr")"
    fi
    chmod 700 "$T"
    # file size limit: write fails (EFBIG) in the middle, in both engines.
    # SIGXFSZ at its default (it would kill the process and leave the
    # temporary file): rijn ignores it itself, so the write fails instead.
    mkdata "$T/in3m" 3145728
    XD=
    env --default-signal=XFSZ true 2>/dev/null && XD="env --default-signal=XFSZ"
    for th in 1 2; do
        expect_fail "write error mid-file (ulimit -f, -threads $th)" "$O" -- \
            $XD sh -c "ulimit -f 1024; exec $E -threads $th -K $K128 -iv $IVF5 -in '$T/in3m' -out '$O'"
    done
    expect_fail "write error mid-stream (ulimit -f, pipe input)" "$O" -- \
        $XD sh -c "ulimit -f 1024; cat '$T/in3m' | $E -K $K128 -iv $IVF5 -out '$O'"
    expect_fail "write error mid-file (base64)" "$O" -- \
        $XD sh -c "ulimit -f 1024; exec $E -a -K $K128 -iv $IVF5 -in '$T/in3m' -out '$O'"
    # the input file shrinks while it is being read (mapped: SIGBUS; or
    # pread: early end); best effort: skipped if rijn is done before
    if command -v truncate >/dev/null 2>&1; then
        for io in mapin pwrite; do
            mkdata "$T/shrink" 67108864
            ( RIJN_ENC_IO=$io "$RIJN" enc -aes-128-ctr -impl ref -threads 1 \
                -K $K128 -iv $IVF5 -in "$T/shrink" -out "$O" 2>"$T/stderr"
              echo $? >"$T/rc" ) &
            bg=$!
            sleep 0.3
            truncate -s 100000 "$T/shrink"
            wait $bg
            rc=$(cat "$T/rc")
            if [ "$rc" = 0 ]; then
                echo "skip: input shrinking ($io): rijn finished first"
                printf 'precious\n' >"$O"
            elif [ "$rc" = 1 ] && [ "$(cat "$O")" = precious ] &&
                 [ "$(ls -A "$T/out")" = existing ] &&
                 grep -q shrank "$T/stderr"; then
                pass "input shrinks mid-run ($io): $(cat "$T/stderr")"
            else
                fail "input shrinks mid-run ($io): status $rc, $(cat "$T/stderr")"
            fi
        done
        rm -f "$T/shrink"
    fi
    # -P prints and exits: the output is neither created nor touched
    "$RIJN" enc -aes-128-ctr -P -k pw -in "$T/in" -out "$T/out/new" \
        >/dev/null 2>&1 && [ ! -e "$T/out/new" ] &&
        "$RIJN" enc -aes-128-ctr -P -K $K128 -iv $IVF5 -in "$T/in" -out "$O" \
        >/dev/null 2>&1 && [ "$(cat "$O")" = precious ] &&
        pass "-P touches no output" || fail "-P touches no output"
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
    # is removed and the old output stays. That the run was mid-write is
    # seen in /proc: rijn has a file of the output directory open (the
    # unnamed O_TMPFILE file, "#NNN (deleted)", or with RIJN_NO_TMPFILE=1
    # the named .existing.rijn-XXXXXX). A background job starts with
    # SIGINT ignored (and rijn keeps an ignored signal ignored), so the
    # three start at their defaults (env --default-signal, coreutils 8.31).
    sigs=TERM
    dflt=""
    if env --default-signal=INT true 2>/dev/null; then
        sigs="TERM INT HUP"
        dflt="env --default-signal=HUP,INT,TERM"
    fi
    if mkfifo "$T/fifo" 2>/dev/null; then
        for sig in $sigs; do
          for tmpf in unnamed named; do
            nt=
            [ $tmpf = named ] && nt=1
            sleep 10 >"$T/fifo" &
            writer=$!
            RIJN_NO_TMPFILE=$nt $dflt "$RIJN" enc -aes-128-ctr -K $K128 \
                -iv $IVF5 -in "$T/fifo" -out "$O" 2>/dev/null &
            pid=$!
            sleep 1
            open_out=$(ls -l /proc/$pid/fd 2>/dev/null | grep -c " $T/out/")
            named_tmp=$(ls -A "$T/out" | grep -c '^\.existing\.rijn-')
            kill -$sig $pid
            wait $pid
            rc=$?
            kill $writer 2>/dev/null
            wait $writer 2>/dev/null
            want_named=0
            [ $tmpf = named ] && want_named=1
            [ $rc -ne 0 ] && [ "$(cat "$O")" = precious ] &&
                [ "$(ls -A "$T/out")" = existing ] &&
                [ "$open_out" = 1 ] && [ "$named_tmp" = $want_named ] &&
                pass "SIG$sig mid-run ($tmpf temporary file): removed, output untouched" ||
                fail "SIG$sig mid-run ($tmpf temporary file: status $rc, $open_out open, $named_tmp named, files: $(ls -A "$T/out"))"
          done
        done
        # nohup: an ignored SIGHUP stays ignored, the run completes
        head -c 3000 "$T/in" >"$T/in3k"
        "$RIJN" enc -aes-128-ctr -K $K128 -iv $IVF5 -in "$T/in3k" -out "$T/ref3k"
        { cat "$T/in3k"; sleep 2; } >"$T/fifo" &
        writer=$!
        sh -c "trap '' HUP; exec \"\$@\"" sh "$RIJN" enc -aes-128-ctr -K $K128 \
            -iv $IVF5 -in "$T/fifo" -out "$T/out/hup" 2>"$T/stderr" &
        pid=$!
        sleep 1
        kill -HUP $pid
        wait $pid
        rc=$?
        wait $writer 2>/dev/null
        [ $rc = 0 ] && cmp -s "$T/out/hup" "$T/ref3k" &&
            pass "SIGHUP ignored by the parent (nohup): the run completes" ||
            fail "SIGHUP ignored by the parent: status $rc, $(cat "$T/stderr")"
        rm -f "$T/out/hup"
    fi
    [ "$(cat "$O")" = precious ] || fail "the output file was modified"
    [ "$(ls -A "$T/out")" = existing ] ||
        fail "files left in the output directory: $(ls -A "$T/out")"
}

# ---------------------------------------------------------------------------
# Golden files recorded from openssl (record_golden.sh, beside this file): no
# openssl needed here, so this runs in cross builds under qemu as well.
group_golden() {
    G=$HERE/golden
    cases=$HERE/golden_cases.txt
    [ -f "$cases" ] || { fail "golden: $cases missing"; return; }
    . "$HERE/golden_run.sh"   # each case is run as record_golden.sh ran it
    n=0
    bad=0
    while IFS='|' read -r name check stdin words; do
        case $name in '' | '#'*) continue ;; esac
        golden_run "$RIJN" "$stdin" "$words" "$T/g.out" "$T/g.err"
        rc=$golden_rc
        want_rc=$(cat "$G/$name.rc")
        n=$((n + 1))
        why=""
        [ "$rc" = "$want_rc" ] || why="exit status $rc, openssl $want_rc"
        case $check in
        all | salt0 | noerr)
            cmp -s "$T/g.out" "$G/$name.out" || why="$why stdout differs"
            cmp -s "$T/g.err" "$G/$name.err" ||
                why="$why stderr differs: $(head -c 300 "$T/g.err" | tr '\n' '/')"
            ;;
        out)
            cmp -s "$T/g.out" "$G/$name.out" || why="$why stdout differs" ;;
        rc)
            if [ "$want_rc" = 1 ]; then
                [ ! -s "$T/g.out" ] || why="$why output on failure"
                [ -s "$T/g.err" ] || why="$why no message"
            fi ;;
        esac
        if [ -n "$why" ]; then
            fail "golden $name:$why"
            bad=$((bad + 1))
        fi
    done <"$cases"
    [ $n -gt 100 ] || fail "golden: only $n cases read"
    [ $bad -ne 0 ] || pass "golden: $n cases identical to openssl $(cut -d' ' -f2 "$G/VERSION")"
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
    # Under RIJN_CPU_MASK the peers run as on the CPU the mask describes
    # (tools/common/peers.c): with AES-NI masked, OpenSSL's and libgcrypt's
    # AES-CTR fall back to vector-permute or table code (15x and 50x
    # slower on Zen 3), so each peer's long row must be 3x slower than in
    # the unmasked run above; and the JSON says how they were masked. On
    # x86-64 with AES-NI, where a peer ran at hardware speed (under 2 c/B)
    # unmasked: not under emulation or on other CPUs.
    if command -v python3 >/dev/null 2>&1 &&
        "$RIJN" impl | grep -Eq '^cpu features:.*(^|[ ,])aesni(,|$)'; then
        env -u OPENSSL_ia32cap RIJN_CPU_MASK=aesni,vaes "$RIJN" speed --quick --impl ct64 \
            --bits 128 --json >"$T/speed_mask.json" ||
            { fail "RIJN_CPU_MASK=aesni,vaes rijn speed --json failed"; return; }
        out=$(python3 -c '
import json, sys
a = json.load(open(sys.argv[1]))
b = json.load(open(sys.argv[2]))
assert a["peers"]["cpu_mask"] is None, a["peers"]
long = lambda d: [x for x in d["results"] if x["measure"] == "long"][0]
la, lb = long(a), long(b)
m = b["peers"]["cpu_mask"]
checked = []
for peer, mark in (("openssl", "OPENSSL_ia32cap=~0x2"),
                   ("gcrypt", "intel-aesni")):
    if a["peers"][peer] is None:
        continue
    assert m is not None and mark in m, (peer, m)
    fa, fb = la[peer]["value"], lb[peer]["value"]
    if fa < 2.0:
        assert fb > 3 * fa, (peer, "unmasked", fa, "masked", fb, m)
        checked.append("%s %.2f -> %.2f c/B" % (peer, fa, fb))
print(", ".join(checked) if checked else "no peer at hardware speed")
' "$T/speed.json" "$T/speed_mask.json" 2>&1) &&
            pass "speed: RIJN_CPU_MASK=aesni,vaes reaches the peers ($out)" ||
            fail "speed: the peers under RIJN_CPU_MASK: $out"
    fi
    # AES-GCM: the default backend with the engine it pairs with, every
    # row of the --gcm table (16 B to 16 KiB, long, Imix, open, key
    # setup) with its columns; then --json (with two threads)
    b=$("$RIJN" impl | sed -n 's/^default: \([^ ]*\) .*/\1/p')
    e=$("$RIJN" impl | sed -n "s/^gcm default: $b with \([^ ]*\) .*/\1/p")
    "$RIJN" speed --gcm --quick --bits 128 --impl "$b" >"$T/gcm.txt" ||
        { fail "rijn speed --gcm --quick failed"; return; }
    num='[0-9]+\.[0-9]+'
    bad=
    grep -Eq "^backend +ghash +bits +measure +rijn c/B +GB/s +openssl c/B +ratio +gcrypt c/B +ratio +of limit +GCM lim$" \
        "$T/gcm.txt" || bad="header"
    for m in "16 B" "64 B" "256 B" "576 B" "1420 B" "1500 B" "4 KiB" \
             "8 KiB" "16 KiB" long Imix "1420 B open" "long open" \
             "16 B stream" "1420 B stream" "key setup \[cyc\]"; do
        grep -Eq "^$b +$e +128 $m +$num +($num|-) +($num +${num}x|- +-) +($num +${num}x|- +-) +($num|-) +($num|-)$" \
            "$T/gcm.txt" || bad="$bad, row '$m'"
    done
    [ "$(grep -c "^$b " "$T/gcm.txt")" -eq 16 ] || bad="$bad, row count"
    [ -z "$bad" ] && pass "speed --gcm --quick: $b with $e, 16 rows" ||
        fail "speed --gcm: $bad: $(cat "$T/gcm.txt")"
    "$RIJN" speed --gcm --quick --bits 128 --impl "$b" --long-kib 64 \
        --threads 2 --json >"$T/gcm.json" ||
        { fail "rijn speed --gcm --quick --json failed"; return; }
    if command -v python3 >/dev/null 2>&1; then
        python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "ok" and d["mode"] == "aes-gcm", d["status"]
assert d["gcm"] == {"iv_bytes": 12, "aad_bytes": 0, "tag_bytes": 16,
                    "iv_per_message": True}
r = d["results"]
assert [x["measure"] for x in r] == ["msg16", "msg64", "msg256", "msg576",
    "msg1420", "msg1500", "msg4096", "msg8192", "msg16384", "long", "imix",
    "open1420", "open_long", "stream16", "stream1420", "keysetup"], r
assert all(x["impl"] == sys.argv[2] and x["ghash"] == sys.argv[3] and
           x["bits"] == 128 and x["rijn"]["value"] > 0 for x in r)
# the GCM limit is at most the AES limit: a row reaches at least as large
# a fraction of it, within the 5% that the two separate timings allow
# (null where either is not measured)
for x in r:
    assert "gcm_limit_fraction" in x, x
    g, a = x["gcm_limit_fraction"], x["limit_fraction"]
    assert x["measure"] != "keysetup" or g is None, x
    assert g is None or a is None or g * 1.05 >= a, x
t = d["threads"]
assert t and all(x["threads"] == 2 and x["gbps_n"] > 0 and x["scaling"] > 0
                 for x in t)
' "$T/gcm.json" "$b" "$e" && pass "speed --gcm --json --threads 2 parses" ||
            fail "speed --gcm --json does not parse"
    else
        grep -q '"status": "ok"' "$T/gcm.json" &&
            pass "speed --gcm --json (python3 absent: not parsed)" ||
            fail "speed --gcm --json status"
    fi
    # Poly1305-AES, timed on the clock asked for (--cpu-time)
    "$RIJN" speed --mac --quick --cpu-time --json >"$T/mac.json" ||
        { fail "rijn speed --mac --quick --cpu-time --json failed"; return; }
    grep -q '"timer": "CLOCK_THREAD_CPUTIME_ID"' "$T/mac.json" &&
        grep -q '"cycles_per_byte"' "$T/mac.json" &&
        pass "speed --mac --cpu-time --json: thread CPU time" ||
        fail "speed --mac --cpu-time --json: $(head -c 200 "$T/mac.json")"
}

# ---------------------------------------------------------------------------
# The file engine (regular file in, our temporary file out): every I/O mode
# (RIJN_ENC_IO), thread count and writer-queue size gives the bytes of the
# stream engine (pipe input), with and without a Salted__ header on either
# side; its mapped-output path is really taken; a full file system fails
# cleanly, in whichever path the space runs out. The stream engine gives
# the same bytes wherever its AES runs (RIJN_ENC_AES).
group_engine() {
    n=6303561 # 24 chunks of 256 KiB and a partial one
    mkdata "$T/p" $n
    bad=0
    runs=0
    for kdf in raw pbkdf2; do
        if [ $kdf = raw ]; then
            set -- -K $K256 -iv $IVF5
        else
            set -- -k secret -pbkdf2 -S 0102030405060708
        fi
        cat "$T/p" | "$RIJN" enc -aes-256-ctr "$@" >"$T/ref" ||
            fail "engine: stream engine reference ($kdf)"
        for io in "" pwrite mapin mapout mapboth; do
            for th in 1 2 3; do
                for sl in "" 1; do
                    runs=$((runs + 1))
                    RIJN_ENC_IO=$io RIJN_ENC_SLOTS=$sl "$RIJN" enc \
                        -aes-256-ctr -threads $th "$@" -in "$T/p" \
                        -out "$T/r" 2>"$T/e" && cmp -s "$T/r" "$T/ref" ||
                        { fail "engine: io=$io threads=$th slots=$sl $kdf"; bad=1; }
                done
            done
            # decryption: the data starts after the header in the input
            runs=$((runs + 1))
            RIJN_ENC_IO=$io RIJN_ENC_SLOTS=1 "$RIJN" enc -d -aes-256-ctr \
                -threads 2 "$@" -in "$T/ref" -out "$T/d" 2>"$T/e" &&
                cmp -s "$T/d" "$T/p" ||
                { fail "engine: decrypt io=$io $kdf"; bad=1; }
        done
    done
    [ $bad -eq 0 ] && pass "file engine: $runs runs (I/O modes, threads 1-3, queue sizes, headers) identical to the stream engine"

    # The stream engine encrypts in its reading thread or in workers, or
    # switches from one to the other part-way: the same bytes either way.
    # The reference: file engine, one thread, pwrite only.
    RIJN_ENC_IO=pwrite "$RIJN" enc -aes-256-ctr -threads 1 -K $K256 \
        -iv $IVF5 -in "$T/p" -out "$T/ref" || fail "engine: file reference"
    bad=0
    runs=0
    for aes in reader workers ""; do
        for th in 1 2 3; do
            runs=$((runs + 1))
            cat "$T/p" | RIJN_ENC_AES=$aes RIJN_ENC_STATS=1 "$RIJN" enc \
                -aes-256-ctr -threads $th -K $K256 -iv $IVF5 >"$T/r" \
                2>"$T/e" && cmp -s "$T/r" "$T/ref" ||
                { fail "engine: stream aes=$aes threads=$th"; bad=1; }
            case "$aes:$(cat "$T/e")" in
            reader:*" 0 worker threads") ;;
            workers:*": 0 of "*" $th worker thread"*) ;;
            :*) ;;
            *) fail "engine: stream aes=$aes threads=$th: $(cat "$T/e")"
               bad=1 ;;
            esac
        done
    done
    # ref is far slower than reading a pipe: the workers take over
    cat "$T/p" | RIJN_IMPL=ref RIJN_ALLOW_VARIABLE_TIME=1 RIJN_ENC_STATS=1 "$RIJN" enc -aes-256-ctr \
        -threads 2 -K $K256 -iv $IVF5 >"$T/r" 2>"$T/e" &&
        cmp -s "$T/r" "$T/ref" && grep -q ' 2 worker threads' "$T/e" ||
        { fail "engine: stream engine hands a slow backend to workers: $(cat "$T/e")"; bad=1; }
    [ $bad -eq 0 ] && pass "stream engine: $runs runs (AES in the reader, in workers, adaptive; threads 1-3) identical to the file engine; a slow backend goes to workers ($(cat "$T/e"))"
    RIJN_ENC_STATS=1 RIJN_ENC_SLOTS=1 "$RIJN" enc -aes-256-ctr -threads 2 \
        -K $K256 -iv $IVF5 -in "$T/p" -out "$T/r" 2>"$T/e"
    grep -Eq ' [1-9][0-9]* mapped' "$T/e" &&
        pass "file engine: mapped path taken ($(cat "$T/e"))" ||
        fail "file engine: mapped path not taken: $(cat "$T/e")"

    # with a slow backend the writer thread encrypts chunks too
    RIJN_IMPL=ref RIJN_ALLOW_VARIABLE_TIME=1 RIJN_ENC_STATS=1 "$RIJN" enc -aes-256-ctr -threads 2 \
        -K $K256 -iv $IVF5 -in "$T/p" -out "$T/r" 2>"$T/e"
    w=$(sed -n 's/.*(\([0-9][0-9]*\) of them read and encrypted by the writer).*/\1/p' "$T/e")
    cmp -s "$T/r" "$T/ref" && [ "${w:-0}" -ge 6 ] &&
        pass "file engine: slow backend, the writer encrypts too ($(cat "$T/e"))" ||
        fail "file engine: slow backend: $(cat "$T/e")"

    # ENOSPC on a 2 MiB tmpfs (root only; skipped where mount is refused)
    mkdir -p "$T/small"
    if [ "$(id -u)" = 0 ] &&
        mount -t tmpfs -o size=2m tmpfs "$T/small" 2>/dev/null; then
        echo precious >"$T/small/out"
        redone=0
        for th in 1 2 3; do
            for sl in "" 1; do
                RIJN_ENC_STATS=1 RIJN_ENC_SLOTS=$sl "$RIJN" enc \
                    -aes-256-ctr -threads $th -K $K256 -iv $IVF5 \
                    -in "$T/p" -out "$T/small/out" 2>"$T/e"
                rc=$?
                r=$(sed -n 's/.* \([0-9][0-9]*\) redone.*/\1/p' "$T/e")
                redone=$((redone + ${r:-0}))
                if [ $rc = 1 ] && grep -q "No space left" "$T/e" &&
                    [ "$(ls -A "$T/small")" = out ] &&
                    [ "$(cat "$T/small/out")" = precious ]; then
                    pass "full file system (threads $th, slots ${sl:-default}): $(head -n 1 "$T/e")"
                else
                    fail "full file system (threads $th, slots ${sl:-default}): status $rc, $(cat "$T/e"), files: $(ls -A "$T/small")"
                fi
            done
        done
        # with one queue slot the producers map chunks early, and those
        # beyond the 2 MiB fail in pread() (EFAULT) and are redone; how
        # early depends on the scheduling (under qemu a run can end before
        # any producer got that far), so the case is tried again, up to 20
        # times, until one run shows it
        tries=0
        while [ $redone -eq 0 ] && [ $tries -lt 20 ]; do
            tries=$((tries + 1))
            RIJN_ENC_STATS=1 RIJN_ENC_SLOTS=1 "$RIJN" enc -aes-256-ctr \
                -threads 3 -K $K256 -iv $IVF5 -in "$T/p" \
                -out "$T/small/out" 2>"$T/e"
            r=$(sed -n 's/.* \([0-9][0-9]*\) redone.*/\1/p' "$T/e")
            redone=$((redone + ${r:-0}))
        done
        [ $redone -gt 0 ] &&
            pass "full file system: $redone mapped chunks failed and were redone with pwrite" ||
            fail "full file system: no mapped chunk was redone (the EFAULT path never ran)"
        umount "$T/small"
    else
        echo "skip: full file system test (needs root and mount -t tmpfs)"
    fi
}

# ---------------------------------------------------------------------------
# A regular output that a rename would not replace faithfully is written in
# place, as openssl does: other hard links (they must see the new bytes),
# no right to create a file in its directory, an owner a new file could not
# get. Arguments are still checked first; a failure mid-way says the file
# is incomplete.
group_inplace() {
    D=$T/ip
    mkdir -p "$D"
    mkdata "$T/ipin" 3145728
    "$RIJN" enc -aes-128-ctr -K $K128 -iv $IVF5 -in "$T/ipin" \
        -out "$T/ipref" || fail "inplace: reference"

    printf 'old\n' >"$D/a"
    ln "$D/a" "$D/b"
    "$RIJN" enc -aes-128-ctr -K $K128 -iv $IVF5 -in "$T/ipin" -out "$D/a" \
        2>"$T/e"
    rc=$?
    [ $rc = 0 ] && cmp -s "$D/a" "$T/ipref" && cmp -s "$D/b" "$T/ipref" &&
        [ "$(ls -A "$D")" = "$(printf 'a\nb')" ] && [ ! -s "$T/e" ] &&
        pass "hard-linked output written in place: both names see the new bytes" ||
        fail "hard-linked output: status $rc, $(cat "$T/e"), files: $(ls -A "$D")"

    printf 'old\n' >"$D/a"
    O=$D/a
    mkdir -p "$T/out"
    expect_fail "hard-linked output, bad key: not truncated" "$O" -- \
        "$RIJN" enc -aes-128-ctr -K 2bXX -iv $IVF5 -in "$T/ipin" -out "$O"
    XD=
    env --default-signal=XFSZ true 2>/dev/null && XD="env --default-signal=XFSZ"
    $XD sh -c "ulimit -f 1024; exec \"$RIJN\" enc -aes-128-ctr -K $K128 -iv $IVF5 -in '$T/ipin' -out '$O'" 2>"$T/e"
    rc=$?
    [ $rc = 1 ] && grep -q "File too large" "$T/e" &&
        grep -q "written in place (it has other hard links) and is incomplete" "$T/e" &&
        pass "hard-linked output, write error: status 1, says it is incomplete ($(tail -n 1 "$T/e"))" ||
        fail "hard-linked output, write error: status $rc, $(cat "$T/e")"
    rm -f "$D/a" "$D/b"

    # Another user's view: as root, run the tool as nobody; else as us.
    if [ "$(id -u)" = 0 ]; then
        command -v setpriv >/dev/null 2>&1 || {
            echo "skip: in-place as another user (no setpriv)"; return; }
        AS="setpriv --reuid=65534 --regid=65534 --clear-groups"
        chmod 755 "$T" "$D"
        chmod 644 "$T/ipin"
        $AS "$RIJN" --version >/dev/null 2>&1 || {
            echo "skip: in-place as another user (nobody cannot run $RIJN)"
            return; }
    else
        AS=
    fi
    for dir in 555 1777 777; do
        [ -z "$AS" ] && [ $dir != 555 ] && continue
        rm -rf "$D/d"
        mkdir "$D/d"
        printf 'old\n' >"$D/d/f"
        chmod 666 "$D/d/f"
        chmod $dir "$D/d"
        owner=$(ls -ln "$D/d/f" | awk '{print $3}')
        $AS "$RIJN" enc -aes-128-ctr -K $K128 -iv $IVF5 -in "$T/ipin" \
            -out "$D/d/f" 2>"$T/e"
        rc=$?
        [ $rc = 0 ] && cmp -s "$D/d/f" "$T/ipref" &&
            [ "$(ls -A "$D/d")" = f ] &&
            [ "$(ls -ln "$D/d/f" | awk '{print $3}')" = "$owner" ] &&
            pass "writable file in a mode $dir directory${AS:+, another user's}: written in place, owner kept" ||
            fail "mode $dir directory: status $rc, $(cat "$T/e"), files: $(ls -A "$D/d")"
        chmod 755 "$D/d"
    done
}

# ---------------------------------------------------------------------------
# Base64 (-a, -A) against coreutils base64(1), which writes the same format
# as openssl (64-character lines and a final newline; -w 0: one line, no
# newline), so this needs no openssl and runs under qemu too. Sizes cross
# the 48-byte line, the 64 KiB buffers and the 1 MiB slots of the engines;
# the input comes from a file and from a pipe; decoding also takes other
# line widths, CR LF and whitespace.
group_base64() {
    command -v base64 >/dev/null 2>&1 || { echo "skip: no base64(1)"; return 77; }
    bad=0
    runs=0
    for n in 0 1 2 3 47 48 49 65535 65536 65537 1048575 1048576 1048577 \
             3145777 4194305; do
        mkdata "$T/p" $n
        RIJN_ENC_IO=pwrite "$RIJN" enc -aes-192-ctr -threads 1 -K $K192 \
            -iv $IVF5 -in "$T/p" -out "$T/c" || fail "base64: raw $n"
        base64 -w 64 "$T/c" >"$T/c64"
        base64 -w 0 "$T/c" >"$T/c0"
        for how in file pipe; do
            for A in "" -A; do
                runs=$((runs + 1))
                want=$T/c64
                [ -n "$A" ] && want=$T/c0
                if [ $how = file ]; then
                    "$RIJN" enc -aes-192-ctr -a $A -K $K192 -iv $IVF5 \
                        -in "$T/p" -out "$T/r" 2>"$T/e"
                else
                    cat "$T/p" | "$RIJN" enc -aes-192-ctr -a $A -K $K192 \
                        -iv $IVF5 >"$T/r" 2>"$T/e"
                fi
                cmp -s "$T/r" "$want" ||
                    { fail "base64: encode $n bytes, $how $A: $(head -c 200 "$T/e")"; bad=1; }
            done
        done
        # decode: 64 columns, one line (-A and without), 76 columns with
        # CR LF, and 1-column lines padded with blanks
        base64 -w 76 "$T/c" | sed 's/$/\r/' >"$T/c76"
        for src in c64 c0 c76; do
            for how in file pipe; do
                runs=$((runs + 1))
                A=""
                [ $src = c0 ] && [ $how = pipe ] && A=-A
                if [ $how = file ]; then
                    "$RIJN" enc -d -aes-192-ctr -a $A -K $K192 -iv $IVF5 \
                        -in "$T/$src" -out "$T/d" 2>"$T/e"
                else
                    cat "$T/$src" | "$RIJN" enc -d -aes-192-ctr -a $A \
                        -K $K192 -iv $IVF5 >"$T/d" 2>"$T/e"
                fi
                cmp -s "$T/d" "$T/p" ||
                    { fail "base64: decode $n bytes from $src, $how $A: $(head -c 200 "$T/e")"; bad=1; }
            done
        done
        if [ $n -le 65537 ]; then
            runs=$((runs + 1))
            base64 -w 1 "$T/c" | sed 's/^/ \t/' >"$T/c1"
            "$RIJN" enc -d -aes-192-ctr -a -K $K192 -iv $IVF5 -in "$T/c1" \
                -out "$T/d" 2>"$T/e" && cmp -s "$T/d" "$T/p" ||
                { fail "base64: decode $n bytes, 1-column lines with blanks"; bad=1; }
        fi
    done
    [ $bad -eq 0 ] && pass "base64: $runs runs (encode -a/-A, decode 64/76 columns, CR LF, one line, blanks; file and pipe; 0 to 4 MiB + 1) match base64(1)"
    # an invalid character far into a big input: error, offset, no output
    mkdata "$T/p" 3145777
    "$RIJN" enc -aes-192-ctr -a -K $K192 -iv $IVF5 -in "$T/p" -out "$T/c64"
    printf '@' | dd of="$T/c64" bs=1 seek=2500000 conv=notrunc 2>/dev/null
    mkdir -p "$T/out"
    printf 'precious\n' >"$T/out/existing"
    expect_fail "base64: invalid character at offset 2500000" "$T/out/existing" -- \
        "$RIJN" enc -d -aes-192-ctr -a -K $K192 -iv $IVF5 -in "$T/c64" \
        -out "$T/out/existing"
    grep -q "unexpected byte 0x40 at offset 2500000" "$T/stderr" ||
        fail "base64: message does not give the offset: $(cat "$T/stderr")"
}

# ---------------------------------------------------------------------------
# --progress: one refreshing line on stderr ("\r..."), ended by a newline,
# with the total and ETA when the input size is known; automatic only when
# stderr is a terminal; never changes the output. RIJN_ENC_PROGRESS_EVERY=0
# shows every update, so short runs show lines too.
group_progress() {
    mkdata "$T/p" 6303561
    "$RIJN" enc -aes-128-ctr -K $K128 -iv $IVF5 -in "$T/p" -out "$T/ref" ||
        fail "progress: reference"
    # last_line FILE: the last line drawn (after the last \r)
    last_line() { tr '\r' '\n' <"$1" | grep -v '^$' | tail -n 1; }
    for how in file pipe base64; do
        case $how in
        file) RIJN_ENC_PROGRESS_EVERY=0 "$RIJN" enc -aes-128-ctr -threads 2 \
                  -K $K128 -iv $IVF5 --progress -in "$T/p" -out "$T/r" 2>"$T/e"
              want='6.0 MiB / 6.0 MiB (100%)  *[0-9.]* [KMG]*i*B/s  ETA 0:00 *' ;;
        pipe) cat "$T/p" | RIJN_ENC_PROGRESS_EVERY=0 "$RIJN" enc -aes-128-ctr \
                  -K $K128 -iv $IVF5 -progress >"$T/r" 2>"$T/e"
              want='6.0 MiB  *[0-9.]* [KMG]*i*B/s *' ;;
        base64) RIJN_ENC_PROGRESS_EVERY=0 "$RIJN" enc -aes-128-ctr -a \
                  -K $K128 -iv $IVF5 -progress -in "$T/p" 2>"$T/e" |
                  "$RIJN" enc -d -a -aes-128-ctr -K $K128 -iv $IVF5 >"$T/r"
              want='6.0 MiB / 6.0 MiB (100%)  *[0-9.]* [KMG]*i*B/s  ETA 0:00 *' ;;
        esac
        line=$(last_line "$T/e")
        want_out=$T/ref
        [ $how = base64 ] && want_out=$T/p # encrypted, then decrypted
        cmp -s "$T/r" "$want_out" || fail "progress ($how): output differs"
        if [ "$(head -c 1 "$T/e")" = "$(printf '\r')" ] &&
            [ "$(tail -c 1 "$T/e" | od -An -c | tr -d ' ')" = '\n' ] &&
            [ "$(tr -cd '\r' <"$T/e" | wc -c)" -ge 2 ] &&
            expr "$line" : "$want\$" >/dev/null; then
            pass "progress ($how): $(tr -cd '\r' <"$T/e" | wc -c) refreshes, last: $line"
        else
            fail "progress ($how): stderr $(tr '\r' '|' <"$T/e" | head -c 300)"
        fi
    done
    # not a terminal and no -progress: nothing on stderr
    RIJN_ENC_PROGRESS_EVERY=0 "$RIJN" enc -aes-128-ctr -K $K128 -iv $IVF5 \
        -in "$T/p" -out "$T/r" 2>"$T/e"
    [ ! -s "$T/e" ] && cmp -s "$T/r" "$T/ref" &&
        pass "progress: off when stderr is not a terminal" ||
        fail "progress: shown with stderr not a terminal: $(head -c 200 "$T/e")"
    # the default refresh: the first line once the run has lasted 0.5 s
    { head -c 1048576 "$T/p"; sleep 1; tail -c +1048577 "$T/p"; } |
        "$RIJN" enc -aes-128-ctr -K $K128 -iv $IVF5 -progress >"$T/r" 2>"$T/e"
    cmp -s "$T/r" "$T/ref" && [ "$(tr -cd '\r' <"$T/e" | wc -c)" -ge 1 ] &&
        pass "progress: default timing, a line after 0.5 s ($(last_line "$T/e"))" ||
        fail "progress: default timing: $(tr '\r' '|' <"$T/e" | head -c 200)"
    # stderr on a terminal (script(1) gives one): on by default, and off
    # with -noprogress
    if command -v script >/dev/null 2>&1 &&
        script -qec true /dev/null </dev/null >/dev/null 2>&1; then
        for flag in "" -noprogress; do
            script -qec "RIJN_ENC_PROGRESS_EVERY=0 '$RIJN' enc -aes-128-ctr \
                -K $K128 -iv $IVF5 $flag -in '$T/p' -out '$T/r'" /dev/null \
                </dev/null >"$T/tty" 2>&1
            cmp -s "$T/r" "$T/ref" || fail "progress (terminal $flag): output differs"
            if [ -z "$flag" ]; then
                grep -q '(100%)' "$T/tty" &&
                    pass "progress: on by default when stderr is a terminal" ||
                    fail "progress: not shown on a terminal: $(head -c 200 "$T/tty")"
            else
                [ ! -s "$T/tty" ] &&
                    pass "progress: -noprogress on a terminal prints nothing" ||
                    fail "progress: -noprogress printed: $(head -c 200 "$T/tty")"
            fi
        done
    else
        echo "skip: progress on a terminal (no script(1) or no pty)"
    fi
}

# ---------------------------------------------------------------------------
[ $# -gt 0 ] || set -- usage enc vectors golden openssl errors engine inplace base64 progress speed
ran=0
for g in "$@"; do
    case $g in
    usage | enc | vectors | golden | openssl | errors | engine | inplace | base64 | progress | speed) ;;
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
