#!/usr/bin/env bash
# Real programs using rijn.so, the OpenSSL 3 provider module (provider/,
# doc/provider.md), through the configuration a user pastes into
# openssl.cnf: openssl enc and rand, openssl s_server with s_client, curl,
# and Debian's python3-cryptography. Every check compares what the program
# produced under that configuration with what it produces with the default
# provider alone, and reads the module's trace (RIJN_PROVIDER_TRACE=FILE:
# "rijn.so PID ALG enc|dec BYTES CALLS", one line per algorithm and
# direction, appended when the provider is torn down) to prove the work
# went through rijn, in the process that did it.
#
#   usage: programs.sh GROUP RIJN_SO      GROUP: enc | rand | tls | curl | python
#
# Exit status 0 pass, 1 fail, 77 skipped with "skip: reason" (no OpenSSL 3
# openssl program, curl not linked to OpenSSL 3, no python3 whose
# cryptography uses this libcrypto; RIJN_PROGRAMS_SKIP, set by CMake in
# sanitizer and cross builds, whose module the host programs cannot load).
# Servers listen on 127.0.0.1 only, every program runs under timeout, and
# whatever was started is killed on exit.
set -u

group=${1:-}
module=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
limit=120           # seconds any one program may run
fails=0
pids=()

skip() { echo "skip: $*"; exit 77; }
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

[ -z "${RIJN_PROGRAMS_SKIP:-}" ] || skip "$RIJN_PROGRAMS_SKIP"
case $group in enc|rand|tls|curl|python) ;; *)
    echo "usage: programs.sh enc|rand|tls|curl|python RIJN_SO" >&2; exit 2 ;;
esac
if [ ! -f "$module" ]; then
    echo "FAIL: no module at '$module' (build the rijn_provider target)"; exit 1
fi
module=$(cd "$(dirname "$module")" && pwd)/$(basename "$module")
command -v openssl >/dev/null || skip "no openssl program"
openssl version | grep -q '^OpenSSL 3\.' || skip "openssl is not OpenSSL 3: $(openssl version)"

unset RIJN_PROVIDER_TRACE OPENSSL_MODULES OPENSSL_CONF_INCLUDE
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rijn-programs.XXXXXX")
cleanup() {
    local p
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# The configuration of doc/provider.md with this module, and a reference
# one with the default provider alone.
rijn_conf=$tmp/rijn.cnf
ref_conf=$tmp/default.cnf
# the configuration users get (provider/rijn.cnf), with this module
sed "s|^module = .*|module = $module|" "$here/../../provider/rijn.cnf" >"$rijn_conf"
cat >"$ref_conf" <<EOF
openssl_conf = openssl_init
[openssl_init]
providers = provider_sect
[provider_sect]
default = default_sect
[default_sect]
activate = 1
EOF

# with CONF TRACE CMD...: CMD with OPENSSL_CONF=CONF, rijn's trace to TRACE.
with() {
    local conf=$1 trace=$2
    shift 2
    OPENSSL_CONF=$conf RIJN_PROVIDER_TRACE=$trace timeout "$limit" "$@"
}

# trace_lint FILE: every line well formed, all from one process.
trace_lint() {
    [ -s "$1" ] || return 0
    awk 'NF != 6 || $1 != "rijn.so" || $2 !~ /^[0-9]+$/ || $3 !~ /^AES-(128|192|256)-(GCM|CTR)$/ ||
         $4 !~ /^(enc|dec)$/ || $5 !~ /^[0-9]+$/ || $6 !~ /^[0-9]+$/ || ($5 > 0 && $6 == 0) { bad = 1 }
         { pid[$2] = 1 }
         END { n = 0; for (p in pid) n++; exit (bad || n > 1) }' "$1"
}

# trace_bytes FILE ALG DIR: the bytes the trace counts for ALG in DIR.
trace_bytes() {
    [ -f "$1" ] || { echo 0; return; }
    awk -v a="$2" -v d="$3" '$3 == a && $4 == d { s += $5 } END { printf "%.0f\n", s }' "$1"
}

# expect_trace FILE ALG DIR LO HI WHAT: the trace is well formed and counts
# LO..HI bytes of ALG in DIR.
expect_trace() {
    local got
    if ! trace_lint "$1"; then
        fail "$6: malformed trace or lines from more than one process:"; sed 's/^/    /' "$1"
        return 1
    fi
    got=$(trace_bytes "$1" "$2" "$3")
    if [ "$got" -lt "$4" ] || [ "$got" -gt "$5" ]; then
        fail "$6: trace counts $got bytes of $2 $3, expected $4..$5; trace:"
        sed 's/^/    /' "$1" 2>/dev/null
        return 1
    fi
}

# expect_no_trace FILE WHAT: a run without the module left no trace.
expect_no_trace() {
    if [ -s "$1" ]; then
        fail "$2: the reference run (default provider only) has rijn trace lines:"
        sed 's/^/    /' "$1"
    fi
}

trace_pid() { awk 'NR == 1 { print $2 }' "$1" 2>/dev/null; }

# ---------------------------------------------------------------- enc ---

# enc_case BITS IV SIZE: openssl enc -aes-BITS-ctr with -K/-iv on SIZE
# bytes, with and without the module: same ciphertext, decrypts back,
# trace counts the bytes.
enc_case() {
    local bits=$1 iv=$2 size=$3 what="enc -aes-$1-ctr -iv $2 size $3"
    local key=${keys[$bits]} in=$tmp/p.$size
    rm -f "$tmp"/t.*
    with "$ref_conf" "$tmp/t.ref" openssl enc -aes-$bits-ctr -K "$key" -iv "$iv" \
        -in "$in" -out "$tmp/c.ref" || { fail "$what: reference run failed"; return; }
    if ! with "$rijn_conf" "$tmp/t.enc" openssl enc -aes-$bits-ctr -K "$key" -iv "$iv" \
        -in "$in" -out "$tmp/c.rijn"; then
        fail "$what: failed under the rijn config"; return
    fi
    cmp -s "$tmp/c.ref" "$tmp/c.rijn" || fail "$what: ciphertext differs from the default provider's"
    expect_trace "$tmp/t.enc" AES-$bits-CTR enc "$size" "$size" "$what"
    if ! with "$rijn_conf" "$tmp/t.dec" openssl enc -d -aes-$bits-ctr -K "$key" -iv "$iv" \
        -in "$tmp/c.ref" -out "$tmp/p.rijn"; then
        fail "$what: decryption failed under the rijn config"; return
    fi
    cmp -s "$in" "$tmp/p.rijn" || fail "$what: does not decrypt back"
    expect_trace "$tmp/t.dec" AES-$bits-CTR dec "$size" "$size" "$what (decrypt)"
    expect_no_trace "$tmp/t.ref" "$what"
}

# enc_provider_opts BITS SIZE: the same through -provider-path/-provider
# /-propquery instead of the configuration (rijn required, not preferred).
enc_provider_opts() {
    local bits=$1 size=$2 what="enc -aes-$1-ctr -provider rijn -propquery provider=rijn size $2"
    local key=${keys[$bits]} iv=${ivs[0]} in=$tmp/p.$size d
    local opts=(-provider-path "$(dirname "$module")" -provider rijn -provider default
                -propquery provider=rijn)
    rm -f "$tmp"/t.*
    with "$ref_conf" "$tmp/t.ref" openssl enc -aes-$bits-ctr -K "$key" -iv "$iv" \
        -in "$in" -out "$tmp/c.ref" || { fail "$what: reference run failed"; return; }
    for d in enc dec; do
        local flag=-e src=$in dst=$tmp/c.rijn want=$tmp/c.ref
        [ $d = dec ] && { flag=-d; src=$tmp/c.ref; dst=$tmp/p.rijn; want=$in; }
        if ! with "$ref_conf" "$tmp/t.$d" openssl enc $flag -aes-$bits-ctr -K "$key" -iv "$iv" \
            -in "$src" -out "$dst" "${opts[@]}"; then
            fail "$what: $d failed"; continue
        fi
        cmp -s "$want" "$dst" || fail "$what: $d output differs"
        expect_trace "$tmp/t.$d" AES-$bits-CTR $d "$size" "$size" "$what ($d)"
    done
}

# enc_pbkdf2 BITS SIZE: -pass/-pbkdf2, with a given salt (same bytes as
# the default provider) and with a random one (each side decrypts the
# other's file; two encryptions differ).
enc_pbkdf2() {
    local bits=$1 size=$2 what="enc -aes-$1-ctr -pbkdf2 size $2" in=$tmp/p.$2
    local pw=(-pbkdf2 -pass pass:rijn-provider-test) slack=0
    # A random salt comes from the DRBG, whose AES-256-CTR is rijn's too.
    [ "$bits" = 256 ] && slack=65536
    rm -f "$tmp"/t.*
    with "$ref_conf" "$tmp/t.ref" openssl enc -aes-$bits-ctr "${pw[@]}" -S 0123456789abcdef \
        -in "$in" -out "$tmp/c.ref" || { fail "$what: reference run failed"; return; }
    with "$rijn_conf" "$tmp/t.enc" openssl enc -aes-$bits-ctr "${pw[@]}" -S 0123456789abcdef \
        -in "$in" -out "$tmp/c.rijn" || { fail "$what: failed under the rijn config"; return; }
    cmp -s "$tmp/c.ref" "$tmp/c.rijn" || fail "$what -S: output differs from the default provider's"
    expect_trace "$tmp/t.enc" AES-$bits-CTR enc "$size" "$size" "$what -S"
    rm -f "$tmp"/t.*
    with "$rijn_conf" "$tmp/t.enc" openssl enc -aes-$bits-ctr "${pw[@]}" -in "$in" \
        -out "$tmp/c1" && with "$rijn_conf" "$tmp/t.enc2" openssl enc -aes-$bits-ctr "${pw[@]}" \
        -in "$in" -out "$tmp/c2" || { fail "$what: random salt run failed"; return; }
    cmp -s "$tmp/c1" "$tmp/c2" && fail "$what: two encryptions with random salts are equal"
    expect_trace "$tmp/t.enc" AES-$bits-CTR enc "$size" "$((size + slack))" "$what (random salt)"
    with "$ref_conf" "$tmp/t.ref" openssl enc -d -aes-$bits-ctr "${pw[@]}" -in "$tmp/c1" \
        -out "$tmp/p1" && cmp -s "$in" "$tmp/p1" ||
        fail "$what: the default provider does not decrypt rijn's file back"
    with "$ref_conf" "$tmp/t.ref" openssl enc -aes-$bits-ctr "${pw[@]}" -in "$in" -out "$tmp/c3" &&
        with "$rijn_conf" "$tmp/t.dec" openssl enc -d -aes-$bits-ctr "${pw[@]}" -in "$tmp/c3" \
        -out "$tmp/p3" && cmp -s "$in" "$tmp/p3" ||
        fail "$what: rijn does not decrypt the default provider's file back"
    expect_trace "$tmp/t.dec" AES-$bits-CTR dec "$size" "$size" "$what (decrypt)"
    expect_no_trace "$tmp/t.ref" "$what"
}

group_enc() {
    declare -gA keys=(  # SP 800-38A F.5
        [128]=2b7e151628aed2a6abf7158809cf4f3c
        [192]=8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b
        [256]=603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4)
    # SP 800-38A's counter block; one whose low 64 bits wrap after 16
    # blocks; one whose 128 bits wrap after 16 blocks.
    ivs=(f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff 0001020304050607fffffffffffffff0
         fffffffffffffffffffffffffffffff0)
    local sizes=(0 1 15 16 17 4097 1048576) bits iv size
    head -c 1048576 /dev/urandom >"$tmp/master"
    for size in "${sizes[@]}"; do head -c "$size" "$tmp/master" >"$tmp/p.$size"; done
    for bits in 128 192 256; do
        local f0=$fails
        for iv in "${ivs[@]}"; do
            for size in "${sizes[@]}"; do enc_case "$bits" "$iv" "$size"; done
        done
        [ "$fails" = "$f0" ] &&
            ok "enc -aes-$bits-ctr -K/-iv: ${#ivs[@]} IVs x sizes ${sizes[*]}, encrypt and decrypt"
        f0=$fails
        for size in 17 1048576; do
            enc_provider_opts "$bits" "$size"
            enc_pbkdf2 "$bits" "$size"
        done
        [ "$fails" = "$f0" ] &&
            ok "enc -aes-$bits-ctr with -provider-path/-provider/-propquery, and -pass/-pbkdf2"
    done
}

# --------------------------------------------------------------- rand ---

group_rand() {
    local a b n=100000
    a=$(with "$rijn_conf" "$tmp/t.1" openssl rand -hex 32) || fail "openssl rand -hex 32 failed"
    b=$(with "$rijn_conf" "$tmp/t.2" openssl rand -hex 32) || fail "openssl rand -hex 32 failed"
    [[ $a =~ ^[0-9a-f]{64}$ ]] || fail "openssl rand -hex 32 printed '$a'"
    [ "$a" != "$b" ] || fail "two runs of openssl rand -hex 32 printed the same bytes"
    expect_trace "$tmp/t.1" AES-256-CTR enc 32 65536 "openssl rand -hex 32: the DRBG's AES-256-CTR"
    with "$rijn_conf" "$tmp/t.3" openssl rand -out "$tmp/r" "$n" || fail "openssl rand -out failed"
    [ "$(stat -c %s "$tmp/r" 2>/dev/null)" = "$n" ] || fail "openssl rand $n wrote $(stat -c %s "$tmp/r") bytes"
    expect_trace "$tmp/t.3" AES-256-CTR enc "$n" $((2 * n + 65536)) "openssl rand $n"
    # Not all alike: a stuck generator would repeat one block.
    [ "$(od -An -v -tx1 -w16 "$tmp/r" | sort -u | wc -l)" -eq $((n / 16)) ] ||
        fail "openssl rand $n: repeated 16-byte blocks"
    [ "$fails" = 0 ] && ok "openssl rand: -hex 32 twice (differ), $n bytes; trace: $(tr '\n' ';' <"$tmp/t.3")"
}

# ---------------------------------------------------------- s_server ---

# wait_for SECONDS PID TEST...: polls TEST until it holds (0), PID has
# exited (1) or SECONDS have passed (2).
wait_for() {
    local deadline=$((SECONDS + $1)) pid=$2
    shift 2
    until "$@"; do
        if ! kill -0 "$pid" 2>/dev/null; then "$@"; return $(($? == 0 ? 0 : 1)); fi
        [ "$SECONDS" -lt "$deadline" ] || return 2
        sleep 0.05
    done
}

# reap PID SECONDS: waits for PID (killing it after SECONDS); its status.
reap() {
    local st
    wait_for "$2" "$1" false
    kill "$1" 2>/dev/null
    wait "$1"
    st=$?
    local left=() p
    for p in "${pids[@]}"; do [ "$p" = "$1" ] || left+=("$p"); done
    pids=("${left[@]}")
    return $st
}

make_cert() {
    with "$ref_conf" /dev/null openssl req -x509 -newkey rsa:2048 -nodes -days 2 \
        -keyout "$tmp/key.pem" -out "$tmp/cert.pem" -subj /CN=localhost \
        -addext subjectAltName=DNS:localhost,IP:127.0.0.1 2>"$tmp/req.err" ||
        { cat "$tmp/req.err"; fail "openssl req (test certificate) failed"; exit 1; }
}

accepting() { grep -q '^ACCEPT .*:[0-9]' "$1"; }

# start_www NAME S_SERVER_OPTS...: s_server -WWW on 127.0.0.1, any free
# port, serving $tmp/www, one connection; sets srv and port.
start_www() {
    local name=$1
    shift
    (cd "$tmp/www" && exec env OPENSSL_CONF="$rijn_conf" RIJN_PROVIDER_TRACE="$tmp/$name.srv.trace" \
        timeout "$limit" openssl s_server -accept 127.0.0.1:0 -cert "$tmp/cert.pem" \
        -key "$tmp/key.pem" -WWW -naccept 1 "$@" </dev/null >"$tmp/$name.srv.out" 2>"$tmp/$name.srv.err") &
    srv=$!
    pids+=("$srv")
    if ! wait_for 30 "$srv" accepting "$tmp/$name.srv.out"; then
        fail "$name: s_server did not start:"; sed 's/^/    /' "$tmp/$name.srv.err"
        return 1
    fi
    port=$(sed -n 's/^ACCEPT .*:\([0-9][0-9]*\)$/\1/p' "$tmp/$name.srv.out" | head -n 1)
}

listening() {
    awk -v p=":$(printf '%04X' "$1")" '$4 == "0A" && substr($2, length($2) - 4) == p { f = 1 }
        END { exit !f }' /proc/net/tcp
}

# start_sink NAME S_SERVER_OPTS...: s_server writing what it receives to
# $tmp/NAME.received, one connection. -quiet hides the port it picks, so
# the port is chosen here, retried when taken; sets srv and port.
start_sink() {
    local name=$1 try
    shift
    rm -f "$tmp/fifo"
    mkfifo "$tmp/fifo"     # stdin that never reads EOF: s_server sends nothing
    for try in 1 2 3 4 5 6 7 8; do
        port=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
        listening "$port" && continue
        OPENSSL_CONF=$rijn_conf RIJN_PROVIDER_TRACE=$tmp/$name.srv.trace timeout "$limit" \
            openssl s_server -accept 127.0.0.1:$port -cert "$tmp/cert.pem" -key "$tmp/key.pem" \
            -naccept 1 -quiet "$@" 0<>"$tmp/fifo" >"$tmp/$name.received" 2>"$tmp/$name.srv.err" &
        srv=$!
        pids+=("$srv")
        wait_for 30 "$srv" listening "$port" && return 0
        reap "$srv" 1
        grep -q -i 'in use' "$tmp/$name.srv.err" || break
    done
    fail "$name: s_server did not start:"; sed 's/^/    /' "$tmp/$name.srv.err"
    return 1
}

# tls_case PROTO ALG CIPHER_OPT CIPHER: 4 MiB each way over s_server and
# s_client, both under the rijn configuration.
tls_case() {
    local proto=$1 alg=$2 copt=$3 cipher=$4 name=$2-$1 n=$tls_size st hdr
    local hi=$((n + 65536)) f0=$fails
    rm -f "$tmp/$name".*
    # Download: s_server -WWW sends data.bin to s_client (GET).
    start_www "$name.get" "$proto" "$copt" "$cipher" || return
    printf 'GET /data.bin HTTP/1.0\r\n\r\n' |
        with "$rijn_conf" "$tmp/$name.get.cli.trace" openssl s_client -connect 127.0.0.1:$port \
        -servername localhost "$proto" "$copt" "$cipher" -quiet \
        >"$tmp/$name.get.out" 2>"$tmp/$name.get.cli.err"
    st=$?
    reap "$srv" 30 || fail "$name GET: s_server exited with $?: $(tail -n 3 "$tmp/$name.get.srv.err")"
    [ $st = 0 ] || fail "$name GET: s_client exited with $st: $(tail -n 3 "$tmp/$name.get.cli.err")"
    hdr=$(($(stat -c %s "$tmp/$name.get.out") - n))
    if [ "$hdr" -lt 4 ] || [ "$hdr" -gt 1024 ] || ! head -c 13 "$tmp/$name.get.out" | grep -q '^HTTP/1.0 200' ||
        [ "$(tail -c "$n" "$tmp/$name.get.out" | sha256sum)" != "$data_sum" ]; then
        fail "$name GET: s_client did not receive data.bin intact ($(stat -c %s "$tmp/$name.get.out") bytes)"
    fi
    expect_trace "$tmp/$name.get.srv.trace" "$alg" enc "$n" "$hi" "$name GET, s_server sending"
    expect_trace "$tmp/$name.get.srv.trace" "$alg" dec 1 65536 "$name GET, s_server reading the request"
    expect_trace "$tmp/$name.get.cli.trace" "$alg" dec "$n" "$hi" "$name GET, s_client receiving"
    expect_trace "$tmp/$name.get.cli.trace" "$alg" enc 1 65536 "$name GET, s_client sending the request"
    if [ -s "$tmp/$name.get.srv.trace" ] &&
        [ "$(trace_pid "$tmp/$name.get.srv.trace")" = "$(trace_pid "$tmp/$name.get.cli.trace")" ]; then
        fail "$name GET: server and client traces name the same process"
    fi

    # Upload: s_client sends data.bin, s_server writes what it receives.
    start_sink "$name.put" "$proto" "$copt" "$cipher" -num_tickets 0 || return
    with "$rijn_conf" "$tmp/$name.put.cli.trace" openssl s_client -connect 127.0.0.1:$port \
        -servername localhost "$proto" "$copt" "$cipher" -brief -nocommands \
        <"$tmp/www/data.bin" >/dev/null 2>"$tmp/$name.put.cli.err"
    st=$?
    reap "$srv" 30 || fail "$name PUT: s_server exited with $?: $(tail -n 3 "$tmp/$name.put.srv.err")"
    [ $st = 0 ] || fail "$name PUT: s_client exited with $st: $(tail -n 3 "$tmp/$name.put.cli.err")"
    grep -q "^Ciphersuite: $cipher\$" "$tmp/$name.put.cli.err" ||
        fail "$name PUT: s_client did not negotiate $cipher: $(grep -E 'Protocol|Ciphersuite' "$tmp/$name.put.cli.err")"
    [ "$(sha256sum <"$tmp/$name.put.received")" = "$data_sum" ] ||
        fail "$name PUT: s_server did not receive data.bin intact ($(stat -c %s "$tmp/$name.put.received") bytes)"
    expect_trace "$tmp/$name.put.cli.trace" "$alg" enc "$n" "$hi" "$name PUT, s_client sending"
    expect_trace "$tmp/$name.put.srv.trace" "$alg" dec "$n" "$hi" "$name PUT, s_server receiving"
    [ "$fails" = "$f0" ] && ok "$name $cipher: $n bytes each way intact; s_server $(tr '\n' ';' <"$tmp/$name.get.srv.trace") s_client $(tr '\n' ';' <"$tmp/$name.get.cli.trace")"
}

tls_setup() {
    tls_size=$((4 << 20))
    mkdir -p "$tmp/www"
    head -c "$tls_size" /dev/urandom >"$tmp/www/data.bin"
    data_sum=$(sha256sum <"$tmp/www/data.bin")
    make_cert
}

group_tls() {
    tls_setup
    tls_case -tls1_2 AES-256-GCM -cipher ECDHE-RSA-AES256-GCM-SHA384
    tls_case -tls1_2 AES-128-GCM -cipher AES128-GCM-SHA256
    tls_case -tls1_3 AES-256-GCM -ciphersuites TLS_AES_256_GCM_SHA384
    tls_case -tls1_3 AES-128-GCM -ciphersuites TLS_AES_128_GCM_SHA256
}

# --------------------------------------------------------------- curl ---

# curl_case NAME ALG S_SERVER_OPTS -- CURL_OPTS
curl_case() {
    local name=$1 alg=$2 n=$tls_size sopts=() st f0=$fails
    shift 2
    while [ "$1" != -- ]; do sopts+=("$1"); shift; done
    shift
    start_www "$name" "${sopts[@]}" || return
    # -q: no ~/.curlrc; --noproxy: straight to 127.0.0.1 whatever *_proxy says
    with "$rijn_conf" "$tmp/$name.curl.trace" curl -q -sS --fail --noproxy '*' --cacert "$tmp/cert.pem" \
        --resolve "localhost:$port:127.0.0.1" "$@" -o "$tmp/$name.out" \
        "https://localhost:$port/data.bin" 2>"$tmp/$name.curl.err"
    st=$?
    reap "$srv" 30 || fail "$name: s_server exited with $?: $(tail -n 3 "$tmp/$name.srv.err")"
    [ $st = 0 ] || fail "$name: curl exited with $st: $(cat "$tmp/$name.curl.err")"
    [ "$(sha256sum <"$tmp/$name.out")" = "$data_sum" ] ||
        fail "$name: curl did not receive data.bin intact"
    expect_trace "$tmp/$name.curl.trace" "$alg" dec "$n" $((n + 65536)) "$name, curl receiving"
    expect_trace "$tmp/$name.curl.trace" "$alg" enc 1 65536 "$name, curl sending the request"
    expect_trace "$tmp/$name.srv.trace" "$alg" enc "$n" $((n + 65536)) "$name, s_server sending"
    [ "$fails" = "$f0" ] && ok "$name: curl fetched $n bytes intact; curl's trace: $(tr '\n' ';' <"$tmp/$name.curl.trace")"
}

group_curl() {
    command -v curl >/dev/null || skip "no curl program"
    curl -V | head -n 1 | grep -q 'OpenSSL/3\.' || skip "curl is not linked to OpenSSL 3: $(curl -V | head -n 1)"
    tls_setup
    curl_case curl-tls1.3 AES-256-GCM -tls1_3 -ciphersuites TLS_AES_256_GCM_SHA384 -- \
        --tlsv1.3 --tls13-ciphers TLS_AES_256_GCM_SHA384
    curl_case curl-tls1.2 AES-128-GCM -tls1_2 -cipher ECDHE-RSA-AES128-GCM-SHA256 -- \
        --tlsv1.2 --tls-max 1.2 --ciphers ECDHE-RSA-AES128-GCM-SHA256
}

# ------------------------------------------------------------- python ---

group_python() {
    local lib py cand found=() ref got
    lib=$(openssl version | sed -n 's/.*(Library: \(.*\))$/\1/p')
    [ -n "$lib" ] || lib=$(openssl version)
    # Debian's python3 first: python3 on PATH may be another build whose
    # cryptography wheel carries an OpenSSL of its own.
    for cand in ${RIJN_TEST_PYTHON:-} /usr/bin/python3 python3; do
        command -v "$cand" >/dev/null || continue
        got=$("$cand" -c 'from cryptography.hazmat.backends.openssl import backend as b
print(b.openssl_version_text())' 2>/dev/null) || { found+=("$cand: no cryptography"); continue; }
        if [ "$got" = "$lib" ]; then py=$cand; break; fi
        found+=("$cand: cryptography on $got")
    done
    [ -n "${py:-}" ] || skip "no python3 whose cryptography uses this libcrypto ($lib): ${found[*]:-no python3}"
    echo "python: $py, cryptography $("$py" -c 'import cryptography; print(cryptography.__version__)') on $got"
    local script=$here/programs_python.py vec=$here/../gcm/vectors
    ref=$(with "$ref_conf" "$tmp/t.ref" "$py" "$script" "$vec") ||
        { echo "$ref"; fail "python3-cryptography AES-GCM with the default provider"; return; }
    got=$(with "$rijn_conf" "$tmp/t.rijn" "$py" "$script" "$vec")
    st=$?
    echo "$got"
    [ $st = 0 ] || { fail "python3-cryptography AES-GCM under the rijn config"; return; }
    [ "$(echo "$ref" | grep '^digest')" = "$(echo "$got" | grep '^digest')" ] ||
        fail "python: the 1 MiB messages differ from the default provider's"
    expect_no_trace "$tmp/t.ref" python
    local bits d
    for bits in 128 192 256; do
        for d in enc dec; do
            expect_trace "$tmp/t.rijn" AES-$bits-GCM $d 1 $((1 << 30)) "python AES-$bits-GCM $d"
        done
    done
    expect_trace "$tmp/t.rijn" AES-256-GCM enc $((1 << 20)) $((1 << 30)) "python 1 MiB AES-256-GCM"
    ok "python3-cryptography AESGCM known answers under the rijn config; trace: $(tr '\n' ';' <"$tmp/t.rijn")"
}

"group_$group"
if [ "$fails" -gt 0 ]; then
    echo "$fails check(s) failed"
    exit 1
fi
echo "all $group checks passed"
