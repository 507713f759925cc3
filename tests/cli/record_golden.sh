#!/bin/sh
# Record the golden files of `rijn enc` from the real openssl binary.
#
#   sh tests/cli/record_golden.sh [name...]   (OPENSSL=path, default /usr/bin/openssl)
#
# Reads tests/cli/golden_cases.txt; writes tests/cli/golden/<name>.out,
# .err and .rc, for every case or only the cases named. Each case runs
# without a controlling terminal (setsid), as in the check, so a password
# prompt reads standard input. The input files in golden/ (plain*, pw-*, b64-*, ct-*) are
# made once (random data; ciphertexts by openssl itself) and kept: delete
# one to have it made again. Recorded with OpenSSL 3.0 (Debian); the
# version is written to golden/VERSION. Takes a few seconds; no benchmarks.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
OPENSSL=${OPENSSL:-/usr/bin/openssl}
G=$here/golden
mkdir -p "$G"
. "$here/golden_run.sh"
"$OPENSSL" version >"$G/VERSION"

mk() { [ -e "$G/$1" ] || { shift_name=$1; shift; "$@" >"$G/$shift_name"; }; }
mk empty true
mk plain1 head -c 1 /dev/urandom
mk plain2 head -c 2 /dev/urandom
mk plain48 head -c 48 /dev/urandom
mk plain49 head -c 49 /dev/urandom
mk plain100 head -c 100 /dev/urandom
mk plain1000 head -c 1000 /dev/urandom
mk pw-lines printf 'linepw\nsecond line\n'
mk pw-crlf printf 'crlfpw\r\n'
mk pw-nonl printf 'nonlpw'
mk pw-1char printf 'a\n'
mk prompt-same printf 'promptpw\npromptpw\n'
mk prompt-differ printf 'promptpw\nother\n'
mk prompt-empty printf '\n\n'
mk prompt-nonl printf 'promptpw'
[ -e "$G/pw-then-data" ] || { printf 'stdinpw\n'; cat "$G/plain1000"; } >"$G/pw-then-data"
mk b64-lines base64 -w 64 "$G/plain1000"
[ -e "$G/b64-crlf" ] || sed 's/$/\r/' "$G/b64-lines" >"$G/b64-crlf"
[ -e "$G/b64-w200" ] || { base64 -w 0 "$G/plain1000" | fold -w 200; echo; } >"$G/b64-w200"
mk b64-oneline base64 -w 0 "$G/plain1000"
mk ct-salted-pbkdf2 "$OPENSSL" enc -aes-256-ctr -k secret -pbkdf2 -in "$G/plain1000"
mk ct-salted-btk "$OPENSSL" enc -aes-128-ctr -k secret -in "$G/plain1000"
mk ct-salted-md5 "$OPENSSL" enc -aes-192-ctr -k secret -md md5 -iter 20 -in "$G/plain1000"
mk ct-salted-a "$OPENSSL" enc -aes-256-ctr -a -k secret -pbkdf2 -in "$G/plain1000"
mk ct-salted-A "$OPENSSL" enc -aes-256-ctr -a -A -k secret -pbkdf2 -in "$G/plain1000"
mk ct-header-only head -c 16 "$G/ct-salted-pbkdf2"
mk ct-short10 head -c 10 "$G/ct-salted-pbkdf2"

wanted() { # name: recorded in this run?
    [ -z "$only" ] && return 0
    case " $only " in *" $1 "*) return 0 ;; esac
    return 1
}
only="$*"
n=0
while IFS='|' read -r name check stdin words; do
    case $name in '' | '#'*) continue ;; esac
    wanted "$name" || continue
    golden_run "$OPENSSL" "$stdin" "$words" "$G/$name.out" "$G/$name.err"
    echo $golden_rc >"$G/$name.rc"
    if [ "$check" = noerr ]; then
        grep -Ev '^[0-9A-F]+:error:' "$G/$name.err" >"$G/$name.err.tmp"
        mv "$G/$name.err.tmp" "$G/$name.err"
    fi
    if [ "$check" = salt0 ]; then
        sed 's/^salt=[0-9A-F]*$/salt=0000000000000000/' "$G/$name.out" \
            >"$G/$name.out.tmp" && mv "$G/$name.out.tmp" "$G/$name.out"
    fi
    n=$((n + 1))
done <"$here/golden_cases.txt"
echo "recorded $n cases into $G with $(cat "$G/VERSION")"
