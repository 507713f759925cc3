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
RIJN_IMPL=nosuch RIJN_CPU_MASK=0x0 "$d/test_dispatch" environment ignored || exit 1

# File capabilities: the same user before and after exec, so a check that
# compares real and effective ids sees nothing, but the kernel sets
# AT_SECURE and the environment must be ignored (secure_getenv, and
# rijn_getenv_fallback for C libraries without it). Run as nobody: root's
# capabilities cannot grow, so its run is not marked secure.
if ! command -v setcap >/dev/null 2>&1 || ! command -v setpriv >/dev/null 2>&1; then
    echo "== file capabilities: not checked (no setcap or setpriv; Debian: libcap2-bin, util-linux)"
    exit 0
fi
c=$(mktemp -d "$(dirname "$prog")/caps.XXXXXX") || exit 1
trap 'rm -rf "$d" "$c"' EXIT
cp "$prog" "$c/test_dispatch" && chmod 755 "$c" "$c/test_dispatch" || exit 1
if ! setpriv --reuid=nobody --regid=nogroup --clear-groups test -x "$c/test_dispatch" 2>/dev/null; then
    echo "== file capabilities: not checked ($c is not reachable by nobody)"
    exit 0
fi
if ! setcap cap_net_bind_service=ep "$c/test_dispatch" 2>/dev/null; then
    echo "== file capabilities: not checked (setcap failed: no xattr support here?)"
    exit 0
fi
echo "== file capability, run as nobody: RIJN_IMPL=nosuch must be ignored"
RIJN_IMPL=nosuch RIJN_CPU_MASK=0x0 setpriv --reuid=nobody --regid=nogroup \
    --clear-groups "$c/test_dispatch" environment ignored-caps
