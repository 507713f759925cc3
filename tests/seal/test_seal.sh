#!/bin/sh
# CLI tests of `rijn seal` and `rijn open` (tools/seal, doc/format.md).
#
#   sh tests/seal/test_seal.sh path/to/rijn group
#
# Groups:
#   roundtrip  sizes around the chunk size, files and pipes, thread counts,
#              existing outputs, key-file errors
#   interop    against tests/seal/reader.py, the independent reader and
#              writer (python3-cryptography, python3-argon2), both ways
#   damage     every kind of damage: each fails with its message and exit
#              status, leaves an existing output untouched and no
#              temporary file, and releases to stdout exactly the chunks
#              before the first bad one
#   passphrase Argon2id: environment variable, file, the terminal prompt
#              (asked twice), wrong passphrase, limits
#   range      open --offset/--length against the plaintext
#   exits      how seal and open end when they cannot finish: over the
#              file size limit (ulimit -f), killed (SIGKILL, SIGTERM), the
#              input shrinking or growing; the output synced before it
#              gets its name; on ext4 (TMPDIR) and tmpfs (/dev/shm), with
#              the unnamed temporary file (O_TMPFILE) and the named one
#              (RIJN_NO_TMPFILE=1, and without /proc)
#   vectors    the files of tests/seal/vectors/format (doc/format.md,
#              section 5) open, with rijn and with reader.py
#   big        a message over 4 GiB through pipes, both ways against
#              reader.py, and random access beyond 4 GiB in a sparse file
# Exit status: 0 pass, 1 fail, 77 skipped (the reason on stdout).
set -u

RIJN=${1:?usage: test_seal.sh path/to/rijn group}
GROUP=${2:?usage: test_seal.sh path/to/rijn group}
case $RIJN in /*) ;; *) RIJN=$(pwd)/$RIJN ;; esac
HERE=$(cd "$(dirname "$0")" && pwd)
PY=/usr/bin/python3
READER="$HERE/reader.py"

T=$(mktemp -d "${TMPDIR:-/tmp}/rijn-seal.XXXXXX") || exit 1
SHM=
trap 'rm -rf "$T" ${SHM:+"$SHM"}' EXIT
trap 'exit 1' INT TERM HUP
mkdir "$T/out" "$T/dmg"

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }
skip() { echo "skip: $*"; exit 77; }

have_reader() {
    [ -x "$PY" ] && "$PY" -c 'import cryptography, argon2' 2>/dev/null
}
have_argon2() {
    printf x >"$T/a.in"
    RIJN_PW=x "$RIJN" seal --passphrase-env RIJN_PW --argon2 1,64K,1 \
        -in "$T/a.in" -out "$T/a.out" 2>"$T/a.err"
    st=$?
    rm -f "$T/a.in" "$T/a.out"
    [ $st -eq 0 ]
}

head -c 32 /dev/urandom >"$T/key"
head -c 32 /dev/urandom >"$T/key2"
K="--key-file $T/key"

# check NAME CMD...: the command must succeed
check() {
    name=$1
    shift
    if "$@" 2>"$T/err"; then pass "$name"; else
        fail "$name: exit $?: $(head -c 300 "$T/err")"; fi
}

# ---------------------------------------------------------------------------
group_roundtrip() {
    for n in 0 1 100 16383 16384 16385 32768 1048575 1048576 1048577 \
             5000000; do
        head -c $n /dev/urandom >"$T/p"
        want=$((10 + 56 + (n / 16384) * 16400 + n % 16384 + 16))
        # regular files: seal maps them and open pread()s them in the
        # workers (default); RIJN_SEAL_IO=read: both read() them in the
        # reader thread, as a pipe; =pread: seal preads as open does
        for th in 1 2 3; do
            io=
            [ $th = 2 ] && io=read
            [ $th = 3 ] && io=pread
            RIJN_SEAL_IO=$io "$RIJN" seal $K --threads $th -in "$T/p" \
                -out "$T/s" && [ "$(wc -c <"$T/s")" -eq $want ] &&
                RIJN_SEAL_IO=$io "$RIJN" open $K --threads $th -in "$T/s" \
                -out "$T/q" && cmp -s "$T/p" "$T/q" ||
                fail "file round trip, $n bytes, $th threads, ${io:-default}"
        done
        # pipes both ways, and a second seal differs (fresh salt)
        cat "$T/p" | "$RIJN" seal $K | cat >"$T/s2" &&
            cat "$T/s2" | "$RIJN" open $K | cmp -s - "$T/p" &&
            ! cmp -s "$T/s" "$T/s2" &&
            pass "round trip, $n bytes (files mapped, pread and read, pipes, 1-3 threads)" ||
            fail "pipe round trip, $n bytes"
    done
    # an existing output is replaced, keeping its mode
    head -c 70000 /dev/urandom >"$T/p"
    echo old >"$T/out/o" && chmod 640 "$T/out/o"
    "$RIJN" seal $K -in "$T/p" -out "$T/s" &&
        "$RIJN" open $K -in "$T/s" -out "$T/out/o" && cmp -s "$T/p" "$T/out/o" &&
        [ "$(stat -c %a "$T/out/o")" = 640 ] &&
        [ "$(ls -A "$T/out")" = o ] && pass "open replaces an existing file" ||
        fail "open over an existing file"
    # --progress: a refreshing line on stderr, ending at 100%; none without
    RIJN_ENC_PROGRESS_EVERY=0 "$RIJN" open $K --progress -in "$T/s" \
        -out "$T/q" 2>"$T/err" && cmp -s "$T/q" "$T/p" &&
        tr '\r' '\n' <"$T/err" | grep -q "(100%)" &&
        RIJN_ENC_PROGRESS_EVERY=0 "$RIJN" seal $K --no-progress -in "$T/p" \
            -out "$T/s3" 2>"$T/err" && [ ! -s "$T/err" ] &&
        pass "--progress, --no-progress" || fail "--progress: $(cat "$T/err")"
    # a 2-core run really uses several workers: same bytes at 8 threads
    "$RIJN" open $K --threads 8 -in "$T/s" | cmp -s - "$T/p" &&
        pass "open, 8 threads" || fail "open, 8 threads"

    # argument errors: exit 1, a message, nothing written
    # (a build without libargon2 says that first)
    expect "no key given, nothing on a terminal" 1 "terminal|libargon2" - -- \
        setsid "$RIJN" seal -in "$T/p" -out "$T/out/o"
    head -c 31 /dev/urandom >"$T/k31"
    expect "seal: 31-byte key file" 1 "exactly 32 bytes" "$T/out/o" -- \
        "$RIJN" seal --key-file "$T/k31" -in "$T/p" -out "$T/out/o"
    cat "$T/key" "$T/key" >"$T/k64"
    expect "open: 64-byte key file" 1 "exactly 32 bytes" "$T/out/o" -- \
        "$RIJN" open --key-file "$T/k64" -in "$T/s" -out "$T/out/o"
    expect "seal: missing key file" 1 "No such file" "$T/out/o" -- \
        "$RIJN" seal --key-file "$T/nope" -in "$T/p" -out "$T/out/o"
    expect "seal: missing input" 1 "No such file" "$T/out/o" -- \
        "$RIJN" seal $K -in "$T/nope" -out "$T/out/o"
    expect "seal: input is a directory" 1 "is a directory" "$T/out/o" -- \
        "$RIJN" seal $K -in "$T" -out "$T/out/o"
    expect "seal: output is the input" 1 "same file" - -- \
        "$RIJN" seal $K -in "$T/out/o" -out "$T/out/o"
    expect "key file and passphrase" 1 "not both" "$T/out/o" -- \
        "$RIJN" seal $K --passphrase-env HOME -in "$T/p" -out "$T/out/o"
    expect "--argon2 with a key file" 1 "argon2" "$T/out/o" -- \
        "$RIJN" seal $K --argon2 1,64K,1 -in "$T/p" -out "$T/out/o"
    expect "--argon2 over the limits" 1 "out of range" "$T/out/o" -- \
        "$RIJN" seal --passphrase-env HOME --argon2 3,2G,4 -in "$T/p" \
        -out "$T/out/o"
    expect "--argon2 malformed" 1 "expected t,m,p" "$T/out/o" -- \
        "$RIJN" seal --passphrase-env HOME --argon2 3,4 -in "$T/p" \
        -out "$T/out/o"
    expect "--threads 0" 1 "--threads" "$T/out/o" -- \
        "$RIJN" seal $K --threads 0 -in "$T/p" -out "$T/out/o"
    expect "unknown option" 1 "unknown option" "$T/out/o" -- \
        "$RIJN" open $K --bogus -in "$T/s" -out "$T/out/o"
    expect "open: --argon2" 1 "argon2" "$T/out/o" -- \
        "$RIJN" open $K --argon2 1,64K,1 -in "$T/s" -out "$T/out/o"
    expect "open: no key file for a key-file file" 1 "give --key-file" \
        "$T/out/o" -- "$RIJN" open --passphrase-env HOME -in "$T/s" \
        -out "$T/out/o"
    expect "open: a positional argument" 1 "unexpected argument" - -- \
        "$RIJN" open $K "$T/s"
    # the environment's GHASH engine: each refusal says why (issue 19)
    expect "RIJN_GHASH_IMPL=ref without the opt-in" 1 \
        "RIJN_GHASH_IMPL=ref: not constant time.*RIJN_ALLOW_VARIABLE_TIME=1" \
        "$T/out/o" -- env RIJN_GHASH_IMPL=ref "$RIJN" open $K -in "$T/s" \
        -out "$T/out/o"
    expect "RIJN_GHASH_IMPL unknown" 1 \
        "RIJN_GHASH_IMPL=nosuch: unknown GHASH engine; compiled in: .*ref" \
        "$T/out/o" -- env RIJN_GHASH_IMPL=nosuch "$RIJN" seal $K \
        -in "$T/p" -out "$T/out/o"
    expect "RIJN_IMPL unknown (seal)" 1 \
        "RIJN_IMPL=nosuch: unknown AES backend" "$T/out/o" -- \
        env RIJN_IMPL=nosuch "$RIJN" seal $K -in "$T/p" -out "$T/out/o"
    "$RIJN" seal --help >"$T/o" && grep -q "usage: rijn seal" "$T/o" &&
        "$RIJN" open --help >"$T/o" && grep -q "exit status" "$T/o" &&
        pass "seal/open --help" || fail "seal/open --help"
}

# expect NAME STATUS PATTERN OUTFILE -- CMD...: CMD exits with STATUS and a
# message matching PATTERN (grep -E), leaves OUTFILE (if not -) as it was
# and the output directory without new files.
expect() {
    name=$1 status=$2 pattern=$3 outfile=$4
    shift 5
    [ "$outfile" != - ] && [ -e "$outfile" ] && cp "$outfile" "$T/before"
    before_ls=$(ls -A "$T/out")
    "$@" >"$T/stdout" 2>"$T/stderr" </dev/null
    rc=$?
    if [ $rc -ne "$status" ]; then
        fail "$name: exit status $rc, expected $status: $(head -c 300 "$T/stderr")"
    elif ! grep -Eq -- "$pattern" "$T/stderr"; then
        fail "$name: message does not say '$pattern': $(head -c 300 "$T/stderr")"
    elif [ "$outfile" != - ] && [ -e "$T/before" ] &&
         ! cmp -s "$outfile" "$T/before"; then
        fail "$name: the output file was modified"
    elif [ "$(ls -A "$T/out")" != "$before_ls" ]; then
        fail "$name: files left behind: $(ls -A "$T/out")"
    else
        pass "$name -> exit $rc: $(head -n 1 "$T/stderr")"
    fi
    rm -f "$T/before"
}

# ---------------------------------------------------------------------------
group_interop() {
    have_reader || skip "needs /usr/bin/python3 with python3-cryptography and python3-argon2 (scripts/setup.sh --test)"
    for n in 0 1 16383 16384 16385 3000000 7340033; do
        head -c $n /dev/urandom >"$T/p"
        "$RIJN" seal $K -in "$T/p" -out "$T/s" &&
            "$PY" "$READER" open --key-file "$T/key" -in "$T/s" -out "$T/q" &&
            cmp -s "$T/p" "$T/q" &&
            pass "rijn seal -> reader.py open, $n bytes" ||
            fail "rijn seal -> reader.py open, $n bytes"
        "$PY" "$READER" seal --key-file "$T/key" -in "$T/p" -out "$T/s" &&
            "$RIJN" open $K -in "$T/s" -out "$T/q" && cmp -s "$T/p" "$T/q" &&
            pass "reader.py seal -> rijn open, $n bytes" ||
            fail "reader.py seal -> rijn open, $n bytes"
    done
    # the same file from both, with the salt fixed: byte for byte
    head -c 40000 /dev/urandom >"$T/p"
    "$RIJN" seal $K -in "$T/p" -out "$T/s"
    salt=$(od -An -tx1 -v -j 10 -N 24 "$T/s" | tr -d ' \n')
    "$PY" "$READER" seal --key-file "$T/key" --salt "$salt" -in "$T/p" \
        -out "$T/s2" && cmp -s "$T/s" "$T/s2" &&
        pass "same salt: rijn and reader.py write the same bytes" ||
        fail "same salt: different files"
    have_argon2 || { echo "note: passphrase interop not run: this rijn has no libargon2"; return; }
    export RIJN_PW="correct horse battery staple"
    "$RIJN" seal --passphrase-env RIJN_PW --argon2 2,1M,2 -in "$T/p" \
        -out "$T/s" &&
        "$PY" "$READER" open --passphrase-env RIJN_PW -in "$T/s" -out "$T/q" &&
        cmp -s "$T/p" "$T/q" && pass "passphrase: rijn seal -> reader.py" ||
        fail "passphrase: rijn seal -> reader.py"
    "$PY" "$READER" seal --passphrase-env RIJN_PW --argon2 1,8192,3 \
        -in "$T/p" -out "$T/s" &&
        "$RIJN" open --passphrase-env RIJN_PW -in "$T/s" -out "$T/q" &&
        cmp -s "$T/p" "$T/q" && pass "passphrase: reader.py -> rijn open" ||
        fail "passphrase: reader.py -> rijn open"
}

# ---------------------------------------------------------------------------
# flip FILE OFFSET: xor the byte at OFFSET with 0x01 (or $3)
flip() {
    b=$(od -An -tu1 -j "$2" -N 1 "$1" | tr -d ' ')
    b=$((b ^ ${3:-1}))
    # shellcheck disable=SC2059
    printf "\\$(printf %03o "$b")" |
        dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}

# damaged NAME STATUS PATTERN: open $T/d (key options in $KEYOPT) to an
# existing file and to stdout; the plaintext is $T/p. To stdout, exactly
# the chunks before the reported one (all of them authenticated) may come.
damaged() {
    name=$1 status=$2 pattern=$3
    echo "precious" >"$T/out/existing"
    expect "$name" "$status" "$pattern" "$T/out/existing" -- \
        "$RIJN" open $KEYOPT -in "$T/d" -out "$T/out/existing"
    "$RIJN" open $KEYOPT -in "$T/d" >"$T/stdout" 2>"$T/stderr"
    rc=$?
    chunk=$(sed -n 's/.*(chunk \([0-9]*\),.*/\1/p' "$T/stderr" | head -n 1)
    got=$(wc -c <"$T/stdout")
    want=$((${chunk:-0} * 16384))
    if [ $rc -ne "$status" ] || [ "$got" -ne "$want" ] ||
       ! head -c "$got" "$T/p" | cmp -s - "$T/stdout"; then
        fail "$name, to stdout: exit $rc, $got bytes out, expected $want"
    fi
    # keep a copy for reader.py, which checks them all at the end
    if [ "${CROSS_CHECK:-1}" = 1 ]; then
        ndamaged=$((${ndamaged:-0} + 1))
        cp "$T/d" "$T/dmg/$ndamaged"
        echo "$T/dmg/$ndamaged" >>"$T/dmg/list"
    fi
}

# reader.py must reject every damaged file kept by `damaged` (KEYOPT as
# there); then the list starts again.
cross_check() {
    if ! have_reader; then
        echo "note: damaged files not checked with reader.py (needs python3-cryptography)"
    elif [ -s "$T/dmg/list" ]; then
        "$PY" "$READER" reject $KEYOPT -list "$T/dmg/list" 2>"$T/err" &&
            pass "reader.py rejects all $(wc -l <"$T/dmg/list") damaged files too" ||
            fail "reader.py: $(cat "$T/err")"
    fi
    rm -rf "$T/dmg"
    mkdir "$T/dmg"
}

group_damage() {
    # 3 full chunks and a final one of 1000 bytes
    head -c $((3 * 16384 + 1000)) /dev/urandom >"$T/p"
    "$RIJN" seal $K -in "$T/p" -out "$T/s" || { fail "seal"; return; }
    KEYOPT=$K
    H=66                  # rijn header (10) + salt (24) + commitment (32)
    C=16400               # a full chunk of ciphertext
    size=$(wc -c <"$T/s")

    # the rijn header and the payload's salt and commitment, every byte
    i=0
    while [ $i -lt $H ]; do
        cp "$T/s" "$T/d"
        flip "$T/d" $i
        case $i in
            [0-7]) st=3 pat="not a rijn sealed file" ;;
            8) st=3 pat="unsupported format version" ;;
            9) st=3 pat="corrupted header" ;;
            *) st=2 pat="wrong key or passphrase" ;;
        esac
        damaged "bit flip in header byte $i" $st "$pat"
        i=$((i + 1))
    done
    # every chunk: its first byte, a middle byte, its tag
    for c in 0 1 2 3; do
        base=$((H + c * C))
        [ $c -eq 3 ] && len=$((1000 + 16)) || len=$C
        [ $c -eq 3 ] && pat="last chunk fails authentication" ||
            pat="a chunk fails authentication"
        for off in 0 $((len / 2)) $((len - 1)); do
            cp "$T/s" "$T/d"
            flip "$T/d" $((base + off))
            damaged "bit flip in chunk $c at +$off" 4 "$pat.*chunk $c,"
        done
    done
    # truncation: at every boundary and inside every part
    for cut in 0 5 9 10 40 65 $H $((H + 100)) $((H + C)) $((H + C + 16399)) \
               $((H + 2 * C)) $((H + 3 * C)) $((H + 3 * C + 15)) \
               $((H + 3 * C + 16)) $((size - 1)); do
        head -c $cut "$T/s" >"$T/d"
        if [ $cut -eq 0 ]; then st=3 pat="empty input"
        elif [ $cut -le $H ]; then st=4 pat="truncated"
        elif [ $(((cut - H) % C)) -lt 16 ]; then st=4 pat="is truncated"
        else st=4 pat="truncated or modified: its last chunk"; fi
        damaged "truncated to $cut of $size bytes" $st "$pat"
    done
    # reordered, dropped, duplicated chunks
    head -c $H "$T/s" >"$T/hdr"
    for c in 0 1 2 3; do
        tail -c +$((H + c * C + 1)) "$T/s" | head -c $C >"$T/c$c"
    done
    cat "$T/hdr" "$T/c1" "$T/c0" "$T/c2" "$T/c3" >"$T/d"
    damaged "chunks 0 and 1 swapped" 4 "a chunk fails.*chunk 0,"
    cat "$T/hdr" "$T/c0" "$T/c2" "$T/c1" "$T/c3" >"$T/d"
    damaged "chunks 1 and 2 swapped" 4 "a chunk fails.*chunk 1,"
    cat "$T/hdr" "$T/c0" "$T/c2" "$T/c3" >"$T/d"
    damaged "chunk 1 dropped" 4 "a chunk fails.*chunk 1,"
    cat "$T/hdr" "$T/c0" "$T/c1" "$T/c1" "$T/c2" "$T/c3" >"$T/d"
    damaged "chunk 1 duplicated" 4 "a chunk fails.*chunk 2,"
    cat "$T/hdr" "$T/c0" "$T/c1" "$T/c2" >"$T/d"
    damaged "final chunk dropped" 4 "is truncated.*chunk 3,"
    cat "$T/hdr" "$T/c0" "$T/c1" "$T/c3" "$T/c2" >"$T/d"
    damaged "final chunk moved forward" 4 "chunk 2,"
    # extended: bytes after the final chunk
    for extra in 1 15 16 17 15384 15385 20000; do
        { cat "$T/s"; head -c $extra /dev/urandom; } >"$T/d"
        damaged "$extra bytes appended" 4 "data after the end.*chunk 3,"
    done
    cat "$T/s" "$T/s" >"$T/d"
    damaged "the file twice" 4 "data after the end.*chunk 3,"
    # a chunk from another file sealed with the same key
    "$RIJN" seal $K -in "$T/p" -out "$T/s2"
    { head -c $((H + C)) "$T/s"; tail -c +$((H + C + 1)) "$T/s2"; } >"$T/d"
    damaged "chunks spliced from another file" 4 "a chunk fails.*chunk 1,"
    head -c 5000 /dev/urandom >"$T/d"
    damaged "random bytes" 3 "not a rijn sealed file"
    cross_check
    # the wrong key
    cp "$T/s" "$T/d"
    KEYOPT="--key-file $T/key2"
    damaged "wrong key" 2 "wrong key or passphrase"
    cross_check
    KEYOPT=$K
    # a header asking for more than the limits, refused before Argon2id
    CROSS_CHECK=0
    printf 'rijnseal\001\002\000\000\000\003\000\040\000\000\004' >"$T/d"
    head -c $((16 + 56 + 16)) /dev/zero >>"$T/d"
    KEYOPT="--passphrase-env HOME"
    damaged "Argon2id m = 2 GiB in the header" 3 "over the limits"
    printf 'rijnseal\001\002\000\000\000\000\000\000\001\000\004' >"$T/d"
    head -c $((16 + 56 + 16)) /dev/zero >>"$T/d"
    damaged "Argon2id t = 0 in the header" 3 "corrupted header"
    printf 'rijnseal\002\001' >"$T/d"
    damaged "version 2" 3 "unsupported format version"
    printf 'rijnseal\001\007' >"$T/d"
    KEYOPT=$K
    damaged "key mode 7" 3 "corrupted header"
}

# ---------------------------------------------------------------------------
group_passphrase() {
    have_argon2 || skip "this rijn was built without libargon2 (passphrases unavailable)"
    head -c 50000 /dev/urandom >"$T/p"
    export RIJN_PW="hunter2 hunter2"
    "$RIJN" seal --passphrase-env RIJN_PW -in "$T/p" -out "$T/s" &&
        "$RIJN" open --passphrase-env RIJN_PW -in "$T/s" | cmp -s - "$T/p" &&
        pass "passphrase, default Argon2id (t=3, m=256 MiB, p=4)" ||
        fail "passphrase, default Argon2id"
    od -An -tx1 -j 8 -N 11 "$T/s" | tr -d ' \n' >"$T/h"
    [ "$(cat "$T/h")" = 0102000000030004000004 ] &&
        pass "header: version 1, mode 2, t=3, m=262144, p=4" ||
        fail "header parameters: $(cat "$T/h")"
    printf '%s\nsecond line ignored\n' "$RIJN_PW" >"$T/pwfile"
    "$RIJN" open --passphrase-file "$T/pwfile" -in "$T/s" | cmp -s - "$T/p" &&
        pass "--passphrase-file: the first line" || fail "--passphrase-file"
    "$RIJN" seal --passphrase-file "$T/pwfile" --argon2 1,1M,1 -in "$T/p" \
        -out "$T/s1" || fail "seal --argon2 1,1M,1"
    "$RIJN" open --passphrase-env RIJN_PW -in "$T/s1" | cmp -s - "$T/p" &&
        pass "--argon2 1,1M,1" || fail "open after --argon2 1,1M,1"
    cp "$T/s1" "$T/d"
    KEYOPT="--passphrase-env RIJN_PW"
    RIJN_PW=wrong
    damaged "wrong passphrase" 2 "wrong key or passphrase"
    cross_check
    RIJN_PW="hunter2 hunter2"
    # every field of the passphrase header: t (10-13), m (14-17: 1024
    # KiB, 00 00 04 00), p (18),
    # Argon2id salt (19-34); a value over the limits is refused before
    # Argon2id runs, a malformed one is a corrupted header, any other
    # change fails the commitment
    for spec in "10 1 3 over the limits" "13 1 3 corrupted header" \
                "13 2 2 wrong key" "14 1 3 over the limits" \
                "17 1 2 wrong key" "16 1 2 wrong key" \
                "18 1 3 corrupted header" "18 16 3 over the limits" \
                "18 2 2 wrong key" "19 1 2 wrong key" "34 128 2 wrong key" \
                "9 1 3 corrupted header"; do
        set -- $spec
        cp "$T/s1" "$T/d"
        flip "$T/d" "$1" "$2"
        st=$3
        shift 3
        damaged "passphrase header byte $(echo $spec | cut -d' ' -f1) ^ $(echo $spec | cut -d' ' -f2)" $st "$*"
    done
    cross_check
    expect "empty passphrase" 1 "empty" - -- \
        env RIJN_PW= "$RIJN" seal --passphrase-env RIJN_PW -in "$T/p" \
        -out "$T/out/x"
    expect "unset variable" 1 "no such environment variable" - -- \
        env -u RIJN_PW "$RIJN" seal --passphrase-env RIJN_PW -in "$T/p" \
        -out "$T/out/x"
    expect "open a passphrase file with a key file" 1 "sealed with a passphrase" \
        - -- "$RIJN" open $K -in "$T/s1" -out "$T/out/x"
    # the terminal prompt: asked twice on seal, once on open, never echoed
    have_reader || { echo "note: prompt test not run (needs python3)"; return; }
    cat >"$T/drive_tty.py" <<'EOF'
import os, pty, signal, sys
signal.alarm(60)
answers = sys.argv[1].split(",")
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
seen = b""
while True:
    try:
        b = os.read(fd, 1024)
    except OSError:
        break
    if not b:
        break
    seen += b
    if seen.endswith(b": ") and answers:
        os.write(fd, answers.pop(0).encode() + b"\n")
_, st = os.waitpid(pid, 0)
sys.stdout.write(seen.decode(errors="replace"))
sys.exit(os.WEXITSTATUS(st))
EOF
    "$PY" "$T/drive_tty.py" "tty pass,tty pass" "$RIJN" seal --argon2 1,64K,1 \
        -in "$T/p" -out "$T/s2" >"$T/tty" &&
        grep -q "Passphrase (again)" "$T/tty" && ! grep -q "tty pass" "$T/tty" &&
        RIJN_PW="tty pass" "$RIJN" open --passphrase-env RIJN_PW \
            -in "$T/s2" | cmp -s - "$T/p" &&
        "$PY" "$T/drive_tty.py" "tty pass" "$RIJN" open -in "$T/s2" -out "$T/q" \
            >"$T/tty" && cmp -s "$T/q" "$T/p" &&
        pass "terminal prompt: twice on seal, once on open, no echo" ||
        fail "terminal prompt: $(cat "$T/tty")"
    "$PY" "$T/drive_tty.py" "one,two" "$RIJN" seal --argon2 1,64K,1 -in "$T/p" \
        -out "$T/out/x" >"$T/tty"
    [ $? -eq 1 ] && grep -q "passphrases differ" "$T/tty" &&
        [ ! -e "$T/out/x" ] && pass "terminal prompt: a mismatch is refused" ||
        fail "terminal prompt mismatch: $(cat "$T/tty")"
}

# ---------------------------------------------------------------------------
group_range() {
    n=$((5 * 16384 + 777))
    head -c $n /dev/urandom >"$T/p"
    "$RIJN" seal $K -in "$T/p" -out "$T/s" || { fail "seal"; return; }
    for spec in "0 1" "0 16384" "1 16384" "16383 2" "16384 16384" \
                "20000 30000" "81000 $((n - 81000))" "81000 100000" \
                "$((n - 1)) 1" "$n 5" "0 $n" "5000 0" "70000 -"; do
        set -- $spec
        if [ "$2" = - ]; then
            "$RIJN" open $K --offset "$1" -in "$T/s" >"$T/q" 2>"$T/err"
            tail -c +$(($1 + 1)) "$T/p" >"$T/w"
        else
            "$RIJN" open $K --offset "$1" --length "$2" -in "$T/s" \
                >"$T/q" 2>"$T/err"
            tail -c +$(($1 + 1)) "$T/p" | head -c "$2" >"$T/w"
        fi
        cmp -s "$T/q" "$T/w" && pass "range offset $1 length $2 (file)" ||
            fail "range offset $1 length $2: $(cat "$T/err")"
        if [ "$2" != - ]; then
            cat "$T/s" | "$RIJN" open $K --offset "$1" --length "$2" |
                cmp -s - "$T/w" && pass "range offset $1 length $2 (pipe)" ||
                fail "range offset $1 length $2 (pipe)"
        fi
    done
    "$RIJN" open $K --length 100 -in "$T/s" | cmp -s - "$(head -c 100 "$T/p" >"$T/w"; echo "$T/w")" &&
        pass "--length alone" || fail "--length alone"
    expect "offset past the end" 1 "past the end of the message \($n bytes\)" \
        - -- "$RIJN" open $K --offset $((n + 1)) -in "$T/s"
    expect "offset far past the end" 1 "past the end" - -- \
        "$RIJN" open $K --offset 999999999 -in "$T/s"
    # sizes with a binary suffix (1K = 1024), and malformed ones
    "$RIJN" open $K --offset 16k --length 2K -in "$T/s" |
        cmp -s - "$(tail -c +16385 "$T/p" | head -c 2048 >"$T/w"; echo "$T/w")" &&
        pass "range: --offset 16k --length 2K" || fail "range: suffixes"
    expect "offset 1G past the end" 1 "past the end" - -- \
        "$RIJN" open $K --offset 1G -in "$T/s"
    for bad in "" -1 1.5 12Q K 1KK 0x10 " 1" 16777216T 99999999999999999999; do
        expect "--offset '$bad' refused" 1 "expected a number of bytes" - -- \
            "$RIJN" open $K --offset "$bad" -in "$T/s"
    done
    # only the chunks of the range are read: damage elsewhere is not seen,
    # damage inside is
    cp "$T/s" "$T/d"
    flip "$T/d" $((66 + 16400 * 4 + 5))
    "$RIJN" open $K --offset 16384 --length 16384 -in "$T/d" |
        cmp -s - "$(tail -c +16385 "$T/p" | head -c 16384 >"$T/w"; echo "$T/w")" &&
        pass "range: a damaged chunk outside the range is not read" ||
        fail "range outside damage"
    expect "range: a damaged chunk inside the range" 4 "chunk 4," - -- \
        "$RIJN" open $K --offset 60000 --length 10000 -in "$T/d"
}

# ---------------------------------------------------------------------------
group_vectors() {
    V=$HERE/vectors/format
    for spec in keyfile-empty:empty.txt keyfile-hello:hello.txt \
                keyfile-16k:p16k.bin passphrase-sealed:sealed.txt; do
        f=${spec%%:*} plain=$V/${spec#*:}
        case $f in
            passphrase-*) opt="--passphrase-env RIJN_PW"
                have_argon2 || {
                    echo "note: $f not opened: this rijn has no libargon2"
                    continue
                } ;;
            *) opt="--key-file $V/key.bin" ;;
        esac
        RIJN_PW=password "$RIJN" open $opt -in "$V/$f.rijn" >"$T/q" \
            2>"$T/err" && cmp -s "$T/q" "$plain" &&
            pass "vector $f.rijn opens" ||
            fail "vector $f.rijn: $(cat "$T/err")"
        if have_reader; then
            RIJN_PW=password "$PY" "$READER" open $opt -in "$V/$f.rijn" \
                >"$T/q" 2>"$T/err" && cmp -s "$T/q" "$plain" &&
                pass "vector $f.rijn opens with reader.py" ||
                fail "vector $f.rijn, reader.py: $(cat "$T/err")"
        fi
    done
}

# ---------------------------------------------------------------------------
group_big() {
    have_reader || skip "needs /usr/bin/python3 with python3-cryptography (scripts/setup.sh --test)"
    n=$((4 * 1024 * 1024 * 1024 + 12345))
    # a deterministic pseudo-random stream of n bytes
    src() {
        "$RIJN" enc -aes-128-ctr -K 000102030405060708090a0b0c0d0e0f \
            -iv 00000000000000000000000000000000 -in /dev/zero 2>/dev/null |
            head -c $n
    }
    want=$(src | sha256sum | cut -c1-64)
    got=$(src | "$RIJN" seal $K | "$PY" "$READER" open --key-file "$T/key" |
          sha256sum | cut -c1-64)
    [ "$got" = "$want" ] && pass "4 GiB + 12345 bytes: rijn seal | reader.py open" ||
        fail "4 GiB: rijn seal | reader.py open"
    got=$(src | "$PY" "$READER" seal --key-file "$T/key" | "$RIJN" open $K |
          sha256sum | cut -c1-64)
    [ "$got" = "$want" ] && pass "4 GiB + 12345 bytes: reader.py seal | rijn open" ||
        fail "4 GiB: reader.py seal | rijn open"
    # random access beyond 4 GiB: a sparse sealed file of 5 GiB + 777
    # bytes, only the chunks around 2^32 and the final one written
    m=$((5 * 1024 * 1024 * 1024 + 777))
    "$PY" "$READER" sparse --key-file "$T/key" --size $m \
        --chunks 262143,262144,262145 --out "$T/sparse" || fail "sparse"
    for spec in "4294967000 1000" "4294950912 49152" "$((m - 700)) 700" \
                "$((m - 777)) 99999"; do
        set -- $spec
        "$RIJN" open $K --offset "$1" --length "$2" -in "$T/sparse" >"$T/q" &&
            "$PY" "$READER" pattern --offset "$1" --length "$2" >"$T/w" &&
            head -c $((m - $1 < $2 ? m - $1 : $2)) "$T/w" | cmp -s - "$T/q" &&
            pass "random access at $1 (+$2) of a $m-byte message" ||
            fail "random access at $1 (+$2)"
    done
    expect "the holes of the sparse file fail" 4 "chunk 0," - -- \
        "$RIJN" open $K -in "$T/sparse"
}

# ---------------------------------------------------------------------------
# wait_open PID DIR [BYTES]: wait (10 s at most) until process PID has a
# file of DIR open (named or not) with at least BYTES bytes in it.
wait_open() {
    n=0
    while [ $n -lt 200 ]; do
        for fd in /proc/$1/fd/*; do
            case $(readlink "$fd" 2>/dev/null) in
                "$2"/*) [ "$(stat -L -c %s "$fd" 2>/dev/null || echo 0)" \
                          -ge "${3:-0}" ] && return 0 ;;
            esac
        done
        sleep 0.05
        n=$((n + 1))
    done
    return 1
}

# the names in directory $1 other than "o", one line
others() { ls -A "$1" | grep -v '^o$' | tr '\n' ' '; }

group_exits() {
    [ -d /proc/self/fd ] || skip "needs /proc"
    # 70 full chunks and a final one: two slots of 64 chunks
    head -c $((70 * 16384 + 500)) /dev/urandom >"$T/p"
    "$RIJN" seal $K -in "$T/p" -out "$T/s" || { fail "seal"; return; }
    # SIGXFSZ at its default, whatever the caller set
    XD=
    env --default-signal=XFSZ true 2>/dev/null &&
        XD="env --default-signal=XFSZ"
    mkfifo "$T/fifo" || { fail "mkfifo"; return; }
    dirs="$T/x"
    mkdir "$T/x"
    if [ -d /dev/shm ] && [ -w /dev/shm ]; then
        SHM=$(mktemp -d /dev/shm/rijn-seal.XXXXXX) && dirs="$dirs $SHM"
    fi
    for D in $dirs; do
      fs=$(stat -f -c %T "$D")
      for tmpf in unnamed named; do
        nt=
        [ $tmpf = named ] && nt=1
        # over the file size limit: EFBIG, a message, status 1, no file
        for old in existing new; do
            for cmd in seal open; do
                rm -f "$D/o"
                [ $old = existing ] && echo precious >"$D/o"
                in=$T/s
                [ $cmd = seal ] && in=$T/p
                RIJN_NO_TMPFILE=$nt $XD sh -c "ulimit -f 1024; exec \"\$@\"" \
                    sh "$RIJN" $cmd $K -in "$in" -out "$D/o" 2>"$T/err"
                rc=$?
                if [ $rc = 1 ] && grep -q "File too large" "$T/err" &&
                   [ -z "$(others "$D")" ] &&
                   { [ $old = new ] && [ ! -e "$D/o" ] ||
                     [ "$(cat "$D/o" 2>/dev/null)" = precious ]; }; then
                    pass "$cmd over ulimit -f ($fs, $tmpf temporary file, $old output): $(head -n 1 "$T/err")"
                else
                    fail "$cmd over ulimit -f ($fs, $tmpf temporary file, $old output): exit $rc, $(head -c 300 "$T/err"), files: $(ls -A "$D")"
                fi
            done
        done
        # killed while it writes (the input, a pipe, stops after 66
        # chunks: the first 64 are in the output): SIGTERM removes the
        # temporary file; SIGKILL cannot be caught: the unnamed file goes
        # with the process, a named one stays (what O_TMPFILE is for)
        for old in existing new; do
            for sig in KILL TERM; do
                rm -f "$D/o"
                [ $old = existing ] && echo precious >"$D/o"
                RIJN_NO_TMPFILE=$nt "$RIJN" open $K -in "$T/fifo" \
                    -out "$D/o" 2>"$T/err" &
                pid=$!
                exec 7>"$T/fifo"
                head -c $((66 + 66 * 16400)) "$T/s" >&7
                if wait_open $pid "$D" 1048576; then
                    during=$(others "$D")
                    kill -$sig $pid
                    wait $pid
                    rc=$?
                else
                    during=timeout
                    kill -KILL $pid
                    wait $pid
                    rc=timeout
                fi
                exec 7>&-
                after=$(others "$D")
                want=
                case $tmpf.$sig in
                    named.KILL) want="^\.o\.rijn-[A-Za-z0-9]{6} $" ;;
                esac
                wdur=
                [ $tmpf = named ] && wdur="^\.o\.rijn-[A-Za-z0-9]{6} $"
                if [ "$rc" != timeout ] && [ "$rc" -gt 128 ] &&
                   { [ $old = new ] && [ ! -e "$D/o" ] ||
                     [ "$(cat "$D/o" 2>/dev/null)" = precious ]; } &&
                   printf '%s\n' "$during" | grep -Eq "${wdur:-^$}" &&
                   printf '%s\n' "$after" | grep -Eq "${want:-^$}"; then
                    pass "SIG$sig while open writes ($fs, $tmpf temporary file, $old output): left ${after:-nothing}"
                else
                    fail "SIG$sig while open writes ($fs, $tmpf temporary file, $old output): status $rc, files during: '$during', after: '$after', $(head -c 200 "$T/err")"
                fi
                rm -f "$D"/.o.rijn-*
            done
        done
        # replacing keeps the mode (and the owner, as root) and follows a
        # symbolic link to its target; a new file gets 0666 & ~umask
        rm -f "$D/o" "$D/t"
        echo old >"$D/t"
        chmod 640 "$D/t"
        owner=$(id -u)
        if [ "$owner" = 0 ]; then
            chown 65534:65534 "$D/t" && owner=65534
        fi
        ln -s t "$D/o"
        RIJN_NO_TMPFILE=$nt "$RIJN" open $K -in "$T/s" -out "$D/o" \
            2>"$T/err" && cmp -s "$D/t" "$T/p" && [ -L "$D/o" ] &&
            [ "$(stat -c %a:%u "$D/t")" = "640:$owner" ] &&
            [ "$(ls -A "$D" | tr '\n' ' ')" = "o t " ] &&
            pass "open over a symbolic link ($fs, $tmpf): target replaced, mode and owner kept" ||
            fail "open over a symbolic link ($fs, $tmpf): $(cat "$T/err"), $(ls -lA "$D")"
        rm -f "$D/o" "$D/t"
        (umask 027; RIJN_NO_TMPFILE=$nt "$RIJN" seal $K -in "$T/p" \
            -out "$D/o") && [ "$(stat -c %a "$D/o")" = 640 ] &&
            [ "$(ls -A "$D")" = o ] &&
            pass "seal to a new file ($fs, $tmpf): mode 0666 & ~umask" ||
            fail "seal to a new file ($fs, $tmpf): $(ls -lA "$D")"
        rm -f "$D/o"
      done
    done

    # the order of the system calls that put the output in place: the
    # file synced, then named (linkat, rename), then its directory synced
    # (LeakSanitizer cannot run under ptrace: off for a sanitizer build)
    if command -v strace >/dev/null 2>&1; then
        D=$T/x
        for case in "new unnamed FLDF" "existing unnamed FLRDF" \
                    "new named FRDF" "existing named FRDF"; do
            set -- $case
            rm -f "$D/o"
            [ "$1" = existing ] && echo precious >"$D/o"
            nt=
            [ "$2" = named ] && nt=1
            ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
            RIJN_NO_TMPFILE=$nt strace -f -o "$T/trace" \
                -e trace=fsync,fdatasync,link,linkat,rename,renameat,renameat2,openat \
                "$RIJN" open $K -in "$T/s" -out "$D/o" 2>"$T/err"
            rc=$?
            got=$(sed -n -e 's/.* fsync(.*/F/p' -e 's/.* fdatasync(.*/F/p' \
                      -e 's/.* linkat(.*/L/p' -e 's/.* link(.*/L/p' \
                      -e 's/.* rename[at2]*(.*/R/p' \
                      -e 's/.* openat(.*O_DIRECTORY.*/D/p' "$T/trace" |
                  tr -d '\n')
            # (the O_TMPFILE openat shows O_TMPFILE, not O_DIRECTORY)
            [ $rc = 0 ] && [ "$got" = "$3" ] && cmp -s "$D/o" "$T/p" &&
                pass "open to a $1 file ($2 temporary file): fsync, name, fsync the directory ($got)" ||
                fail "open to a $1 file ($2 temporary file): exit $rc, system calls $got, expected $3"
        done
        rm -f "$D/o"
    else
        echo "note: the fsync order is not checked: no strace"
    fi

    # no /proc in the process's view (a mount namespace without it):
    # O_TMPFILE works but the file could not be named, so the named
    # temporary file is used, and the result is the same (a sanitizer
    # build cannot run without /proc: it reads its options there)
    if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null 2>&1 &&
       unshare -m sh -c 'umount -l /proc && exec "$@"' sh \
           "$RIJN" --version >/dev/null 2>&1; then
        D=$T/x
        echo precious >"$D/o"
        chmod 604 "$D/o"
        unshare -m sh -c 'umount -l /proc && exec "$@"' sh \
            "$RIJN" open $K -in "$T/s" -out "$D/o" 2>"$T/err" &&
            cmp -s "$D/o" "$T/p" && [ "$(stat -c %a "$D/o")" = 604 ] &&
            [ "$(ls -A "$D")" = o ] &&
            pass "open without /proc: the named temporary file, renamed" ||
            fail "open without /proc: $(cat "$T/err"), $(ls -lA "$D")"
        rm -f "$D/o"
    else
        echo "note: not run without /proc (needs root, unshare -m, and a rijn that runs without /proc)"
    fi

    # the input file changes while it is read (best effort: the backend
    # without AES instructions, one thread, 64 MiB, changed after 0.1 s;
    # skipped if open finished first): shrinking is a read error (1),
    # growing is data after the end (4); nothing is written either way
    head -c 67108864 /dev/urandom >"$T/big"
    "$RIJN" seal $K -in "$T/big" -out "$T/bigs" || fail "seal 64 MiB"
    for change in shrink grow; do
        cp "$T/bigs" "$T/ch"
        rm -f "$T/x/o"
        RIJN_IMPL=ct64 "$RIJN" open $K --threads 1 -in "$T/ch" \
            -out "$T/x/o" 2>"$T/err" &
        pid=$!
        sleep 0.1
        if [ $change = shrink ]; then
            truncate -s 100000 "$T/ch"
            st=1 pat="changed \(shrank\)"
        else
            head -c 1000 /dev/urandom >>"$T/ch"
            st=4 pat="data after the end"
        fi
        wait $pid
        rc=$?
        if [ $rc = 0 ]; then
            echo "note: input that ${change}s: open finished first"
        elif [ $rc = $st ] && grep -Eq "$pat" "$T/err" &&
             [ -z "$(ls -A "$T/x")" ]; then
            pass "the input ${change}s while open reads it: exit $rc, $(head -n 1 "$T/err")"
        else
            fail "the input ${change}s while open reads it: exit $rc, $(cat "$T/err"), files: $(ls -A "$T/x")"
        fi
    done
    rm -f "$T/big" "$T/bigs" "$T/ch"
}

case $GROUP in
    roundtrip|interop|damage|passphrase|range|vectors|big|exits) group_$GROUP ;;
    *) echo "unknown group $GROUP" >&2; exit 1 ;;
esac
if [ $failures -ne 0 ]; then
    echo "$failures failure(s)" >&2
    exit 1
fi
exit 0
