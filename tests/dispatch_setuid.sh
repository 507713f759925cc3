#!/bin/sh
# dispatch.setuid: a setuid program must ignore RIJN_IMPL and the other
# environment overrides (the library reads them with secure_getenv), so
# that an environment cannot make a privileged program use a backend of
# its choosing. Makes a setuid copy of test_dispatch owned by `nobody`
# and runs it as root with RIJN_IMPL=nosuch: key setup must still work.
# The same copy without the setuid bit must honour RIJN_IMPL (control).
#
#   usage: dispatch_setuid.sh TEST_DISPATCH
prog=$1
if [ "$(id -u)" -ne 0 ]; then
    echo "dispatch.setuid: SKIPPED: needs root to make a setuid copy"
    exit 77
fi
if ! id -u nobody >/dev/null 2>&1; then
    echo "dispatch.setuid: SKIPPED: no user nobody"
    exit 77
fi
d=$(mktemp -d "$(dirname "$prog")/setuid.XXXXXX") || exit 1
trap 'rm -rf "$d"' EXIT
cp "$prog" "$d/test_dispatch" && chmod 755 "$d" "$d/test_dispatch" || exit 1

echo "== control: not setuid, RIJN_IMPL=nosuch must be honoured (no backend)"
RIJN_IMPL=nosuch "$d/test_dispatch" environment honoured || exit 1

chown nobody "$d/test_dispatch" && chmod 4755 "$d/test_dispatch" || exit 1
echo "== setuid nobody: RIJN_IMPL=nosuch, RIJN_CPU_MASK=0x0 must be ignored"
RIJN_IMPL=nosuch RIJN_CPU_MASK=0x0 "$d/test_dispatch" environment ignored
