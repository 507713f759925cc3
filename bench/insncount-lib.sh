# What the guest-instruction count scripts share (bench/ppc-insncount.sh,
# bench/ppc-insncount-gcm.sh, bench/arm64-insncount.sh); sourced, not run.
# The script sets $name (for messages) and $here (the repository) first.
#
# The method: a driver does one operation N times after one warm-up, qemu
# with the TCG plugin of ../shared/tools/qemu-insncount counts every guest
# instruction of the process, and (count(N) - count(0)) / N / bytes is the
# cost of the operation, with process start-up, key setup and first-call
# costs cancelled out.
# shellcheck shell=sh disable=SC2034,SC2154

# The tables include ref, the variable-time oracle, on purpose: the library
# refuses it from RIJN_IMPL without this opt-in (rijn.h, Environment).
RIJN_ALLOW_VARIABLE_TIME=1
export RIJN_ALLOW_VARIABLE_TIME

# The options the scripts have in common (each takes those its getopts
# string names); the script may change a default after sourcing this.
arch=ppc
cpu=""
bdir=""
impls=""
bitslist="128 256"
scale=1
fmt=%.1f

# common_opt OPT: -a -c -b -i -k -s -p; status 1 for any other option
common_opt() {
    case $1 in
    a) arch=$OPTARG ;;
    c) cpu=$OPTARG ;;
    b) bdir=$OPTARG ;;
    i) impls=$OPTARG ;;
    k) bitslist=$OPTARG ;;
    s) scale=$OPTARG ;;
    p) fmt=%.2f ;;
    *) return 1 ;;
    esac
}

# usage: the script's header comment, then exit 2
usage() {
    sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'
    exit 2
}

# ppc_target: $qemu for $arch (a toolchain file), and $cpu if none was given
ppc_target() {
    case $arch in
    ppc) qemu=qemu-ppc; defcpu=7447 ;;
    ppc64) qemu=qemu-ppc64; defcpu=970 ;;
    ppc64-power8) qemu=qemu-ppc64; defcpu=power8 ;;
    ppc64le) qemu=qemu-ppc64le; defcpu=power8 ;;
    aarch64) qemu=qemu-aarch64; defcpu=max ;;
    *) echo "$name: unknown arch $arch" >&2; exit 2 ;;
    esac
    [ -n "$cpu" ] || cpu=$defcpu
}

# ppc_setup DRIVER BUILD-DIR: everything the PowerPC scripts run, for -a
# and -c: the plugin, librijn and the driver bench/DRIVER.c built in $bdir
# (BUILD-DIR unless -b named one); $drv, and guest ARGS runs qemu
ppc_setup() {
    ppc_target
    [ -n "$bdir" ] || bdir=$2
    workdir
    build_plugin
    build_rijn "$arch" "$bdir"
    drv=$bdir/$1
    build_driver "$here/bench/$1.c" "$drv"
    guest() { "$qemu" -cpu "$cpu" "$@"; }
}

# workdir: $bdir created, and made absolute
workdir() {
    mkdir -p "$bdir"
    bdir=$(cd "$bdir" && pwd)
}

# build_plugin: the TCG plugin, built with the host gcc into $bdir/libinsncount.so
build_plugin() {
    src=${RIJN_INSNCOUNT_SRC:-$here/../shared/tools/qemu-insncount/insncount.c}
    if [ ! -f "$src" ]; then
        echo "$name: plugin source not found: $src (set RIJN_INSNCOUNT_SRC)" >&2
        exit 1
    fi
    plugin=$bdir/libinsncount.so
    if [ ! -f "$plugin" ] || [ "$src" -nt "$plugin" ]; then
        gcc -O2 -shared -fPIC -o "$plugin" "$src"
    fi
}

# build_rijn ARCH DIR: librijn.a cross-compiled in DIR with the project's
# toolchain file cmake/toolchains/ARCH.cmake, for qemu -cpu $cpu (logs in $bdir)
build_rijn() {
    libdir=$2
    echo "== building librijn for $1 in $libdir" >&2
    cmake -S "$here" -B "$libdir" -DCMAKE_TOOLCHAIN_FILE="$here/cmake/toolchains/$1.cmake" \
        -DCMAKE_BUILD_TYPE=Release -DRIJN_QEMU_CPU="$cpu" \
        -DRIJN_BUILD_TESTS=OFF -DRIJN_BUILD_TOOLS=OFF >"$bdir/configure.log" 2>&1 ||
        { tail -n 20 "$bdir/configure.log" >&2; exit 1; }
    cmake --build "$libdir" -j"${RIJN_JOBS:-2}" --target rijn_static >"$bdir/build.log" 2>&1 ||
        { grep -E "error" "$bdir/build.log" | head -n 20 >&2; exit 1; }
}

# build_driver SOURCE OUTPUT: a driver linked statically against the
# librijn.a of build_rijn, with the compiler and link flags it was built with
build_driver() {
    cc=$(sed -n 's/^set(CMAKE_C_COMPILER "\(.*\)")$/\1/p' "$libdir"/CMakeFiles/*/CMakeCCompiler.cmake | head -n 1)
    [ -n "$cc" ] || { echo "$name: no C compiler found in $libdir" >&2; exit 1; }
    extra=""
    if [ -f "$libdir/rijn-qemu-memset-fix.o" ]; then
        extra="-Wl,--wrap=memset $libdir/rijn-qemu-memset-fix.o"
    fi
    # shellcheck disable=SC2086
    "$cc" -std=c11 -O2 -static -I"$here/include" "$1" "$libdir/librijn.a" $extra -o "$2"
}

# count OP BITS N -> guest instructions of the whole process: the driver
# $drv run by the script's function guest (qemu and its options) with the
# plugin; its output must contain $expect (the backend that ran).
count() {
    out=$(guest -plugin "$plugin" -d plugin "$drv" "$1" "$2" "$3" 2>&1) || {
        echo "$name: driver failed: ${drv##*/} $1 $2 $3 (RIJN_IMPL=${RIJN_IMPL:-}," \
            "RIJN_GHASH_IMPL=${RIJN_GHASH_IMPL:-})" >&2
        echo "$out" >&2
        exit 1
    }
    case $out in
    *"$expect"*) ;;
    *) echo "$name: no \"$expect\" from the driver, wrong backend: $out" >&2; exit 1 ;;
    esac
    echo "$out" | sed -n 's/.*insns_total \([0-9]*\).*/\1/p'
}

# per OP BITS N BYTES -> instructions per byte (BYTES > 0, printed with
# $fmt) or per operation (BYTES 0): (count(N) - count(0)) / N / BYTES
per() {
    c0=$(count "$1" "$2" 0)
    cn=$(count "$1" "$2" "$3")
    awk -v a="$c0" -v b="$cn" -v n="$3" -v by="$4" -v f="$fmt" 'BEGIN {
        v = (b - a) / n; if (by > 0) printf f, v / by; else printf "%.0f", v }'
}

# s N -> N repetitions times the -s scale
s() { echo $(($1 * scale)); }

# cells BITS OP:N:BYTES ... -> " FIGURE |" for each operation: per OP BITS
# (N times the scale) BYTES
cells() {
    cbits=$1
    shift
    for spec in "$@"; do
        op=${spec%%:*} rest=${spec#*:}
        v=$(per "$op" "$cbits" "$(s "${rest%%:*}")" "${rest#*:}")
        printf ' %s |' "$v"
    done
}
