#!/usr/bin/env bash
# Installs what rijn needs on a Debian 12 machine (as root, or through sudo).
#   scripts/setup.sh          build tools + what the benchmark compares against
#   scripts/setup.sh --test   also the test dependencies (valgrind, clang,
#                             qemu-user and the cross compilers)
set -euo pipefail

pkgs=(build-essential cmake pkg-config libssl-dev libssl3 openssl libgcrypt20 gnuplot-nox
      libargon2-dev)
if [ "${1:-}" = "--test" ]; then
  # (libclang-rt-dev: clang's libFuzzer and sanitizer runtimes, which
  # --no-install-recommends would leave out; llvm: llvm-profdata and
  # llvm-cov for scripts/fuzz-coverage.sh; strace: seal.cli.exits checks
  # the order of fsync, link and rename; libcap2-bin: setcap, for the file
  # capability case of dispatch.setuid; curl, python3-cryptography: real
  # programs on OpenSSL 3 that the provider tests run with rijn.so)
  pkgs+=(clang libclang-rt-dev llvm valgrind strace libcap2-bin qemu-user zlib1g-dev python3-cryptography python3-argon2 curl
         gcc-powerpc-linux-gnu gcc-powerpc64-linux-gnu gcc-powerpc64le-linux-gnu
         gcc-aarch64-linux-gnu libc6-dev-powerpc-cross libc6-dev-ppc64-cross
         libc6-dev-ppc64el-cross libc6-dev-arm64-cross
         gcc-arm-linux-gnueabihf libc6-dev-armhf-cross)
  # Debian's arm64 libcrypto next to the host's (multiarch): the aarch64
  # cross build then runs its OpenSSL differential suites under qemu
  # against it (cmake/toolchains/rijn-cross-common.cmake).
  if [ "$(dpkg --print-architecture)" != arm64 ]; then
    pkgs+=(libssl-dev:arm64)
  fi
fi

# Debian's ppc64el libcrypto for the ppc64le cross build, which then runs
# the same OpenSSL suites. Not through multiarch: the mirror may serve
# ppc64el only from bookworm main (no bookworm-security), so the package
# could not sit next to the host's newer libssl3, and a foreign
# architecture whose index is missing would make every apt-get update
# fail. Instead apt, with a private state folder and the machine's own
# sources, downloads libssl-dev:ppc64el and libssl3:ppc64el, and dpkg-deb
# unpacks them into $ossl_ppc (nothing is installed into the system; the
# cross toolchain looks there). If that fails, one line says so and the
# ppc64le build goes without its OpenSSL suites.
ossl_ppc=/opt/rijn-ossl/ppc64el
fetch_ossl_ppc64el() {
  local d o f
  d=$(mktemp -d) || return 1
  o=(-o Dir::State::Lists="$d/lists" -o Dir::Cache="$d/cache"
     -o Dir::State::Status=/var/lib/dpkg/status -o Debug::NoLocking=1
     -o APT::Architecture=ppc64el -o APT::Architectures::=ppc64el
     -o Acquire::Languages=none -o APT::Sandbox::User=root
     -o Acquire::http::Timeout=30 -o Acquire::Retries=1)
  mkdir -p "$d/lists/partial" "$d/cache/archives/partial" "$d/debs" "$d/root/usr" || return 1
  # an index the mirror lacks for ppc64el (bookworm-security) fails here
  # without harm: the download takes what the other indexes have
  apt-get "${o[@]}" -q update >"$d/log" 2>&1 || true
  (cd "$d/debs" && apt-get "${o[@]}" -q download libssl-dev:ppc64el libssl3:ppc64el) >>"$d/log" 2>&1 ||
    { rm -rf "$d"; return 1; }
  for f in "$d"/debs/*.deb; do
    dpkg-deb -x "$f" "$d/root" || { rm -rf "$d"; return 1; }
  done
  dpkg-deb -f "$d"/debs/libssl-dev_*.deb Version >"$d/root/VERSION"
  if [ ! -f "$d/root/usr/lib/powerpc64le-linux-gnu/libcrypto.a" ] ||
     [ ! -f "$d/root/usr/include/openssl/evp.h" ] ||
     ! { $sudo rm -rf "$ossl_ppc.new" && $sudo mkdir -p "$(dirname "$ossl_ppc")" &&
         $sudo cp -a "$d/root" "$ossl_ppc.new" && $sudo rm -rf "$ossl_ppc" &&
         $sudo mv "$ossl_ppc.new" "$ossl_ppc"; }; then
    rm -rf "$d"
    return 1
  fi
  rm -rf "$d"
  echo "setup: OpenSSL $(cat "$ossl_ppc/VERSION") for ppc64el unpacked into $ossl_ppc"
}
ossl_ppc_setup() {
  [ "${1:-}" = "--test" ] && [ "$(dpkg --print-architecture)" != ppc64el ] &&
    [ ! -f "$ossl_ppc/usr/lib/powerpc64le-linux-gnu/libcrypto.a" ] || return 0
  fetch_ossl_ppc64el ||
    echo "setup: could not download Debian's ppc64el libssl-dev; the ppc64le cross build runs without its OpenSSL suites"
}

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  ossl_ppc_setup "$@"
  echo "setup: everything is installed"
  exit 0
fi

echo "setup: installing ${missing[*]}"
for p in "${missing[@]}"; do
  case $p in
  *:arm64)
    dpkg --print-foreign-architectures | grep -qx arm64 ||
      $sudo dpkg --add-architecture arm64
    ;;
  esac
done
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
ossl_ppc_setup "$@"
echo "setup: done"
