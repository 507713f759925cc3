# How one case of golden_cases.txt is run: sourced by record_golden.sh,
# which records openssl's answers, and by test_cli.sh (group golden),
# which checks rijn's against them, so that both run every case alike.
# Needs G, the golden folder.

export RIJN_TEST_PW=envsecret
# no controlling terminal: a password prompt reads standard input
golden_nosid=""
command -v setsid >/dev/null 2>&1 && golden_nosid="setsid -w"

# golden_run PROGRAM STDIN WORDS OUT ERR: runs PROGRAM with the case's
# command words (@G@ stands for the golden folder) on its standard input
# (a file in G, or - for none), stdout to OUT and stderr to ERR; sets
# golden_rc to its exit status.
golden_run() {
    golden_prog=$1
    if [ "$2" = - ]; then golden_in=/dev/null; else golden_in=$G/$2; fi
    golden_out=$4
    golden_err=$5
    set -f
    # shellcheck disable=SC2086
    set -- $(printf '%s\n' "$3" | sed "s|@G@|$G|g")
    set +f
    golden_rc=0
    $golden_nosid "$golden_prog" "$@" <"$golden_in" >"$golden_out" \
        2>"$golden_err" || golden_rc=$?
}
