#!/bin/sh
# Run the ctgrind program under valgrind memcheck and judge the outcome.
#
#   usage: ctgrind.sh VALGRIND PROGRAM BACKEND
#
# The program prints "constant_time=N" (the backend's own claim). Expected:
#   N = 1: memcheck finds nothing (valgrind exit 0);
#   N = 0: memcheck flags secret-dependent branches/addresses (exit 42).
# In both cases the program itself must have finished with "0 failed";
# any other exit code (a crash, a valgrind failure) fails the test. A
# backend the CPU (as valgrind emulates it) cannot run is skipped (77).
valgrind=$1
prog=$2
backend=$3
name="ctgrind.$backend"
out=$(mktemp) || exit 1
err=$(mktemp) || exit 1
trap 'rm -f "$out" "$err"' EXIT

"$valgrind" --tool=memcheck --error-exitcode=42 --track-origins=yes \
    --num-callers=8 "$prog" "$backend" >"$out" 2>"$err"
rc=$?

cat "$out"
# The first reports and the summary are enough to see what leaked.
head -n 60 "$err"
grep 'ERROR SUMMARY' "$err"

if [ "$rc" -eq 77 ] && grep -q SKIPPED "$out"; then
    exit 77
fi
if ! grep -Eq "^$name: [1-9][0-9]* passed, 0 failed\$" "$out"; then
    echo "$name: FAIL: the program did not finish cleanly (exit $rc)"
    exit 1
fi
ct=$(sed -n "s/^$name: constant_time=\\([01]\\)\$/\\1/p" "$out")
case "$ct:$rc" in
1:0)
    echo "$name: OK: constant-time backend, memcheck found nothing"
    exit 0 ;;
0:42)
    echo "$name: OK: variable-time backend flagged by memcheck, as expected"
    exit 0 ;;
1:42)
    echo "$name: FAIL: backend claims constant_time=1 but memcheck flagged" \
         "a secret-dependent branch or memory address"
    exit 1 ;;
0:0)
    echo "$name: FAIL: backend is not constant-time but memcheck saw" \
         "nothing: the secret marking (RIJN_SECRET) is not working"
    exit 1 ;;
*)
    echo "$name: FAIL: unexpected outcome (constant_time='$ct', exit $rc)"
    exit 1 ;;
esac
