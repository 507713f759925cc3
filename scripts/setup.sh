#!/usr/bin/env bash
# Installs what rijn needs on a Debian 12 machine (as root, or through sudo).
#   scripts/setup.sh          build tools + what the benchmark compares against
#   scripts/setup.sh --test   also the test dependencies (valgrind, clang,
#                             qemu-user and the cross compilers)
set -euo pipefail

pkgs=(build-essential cmake pkg-config libssl-dev libssl3 openssl libgcrypt20 gnuplot-nox
      libargon2-dev)
if [ "${1:-}" = "--test" ]; then
  pkgs+=(clang valgrind qemu-user zlib1g-dev python3-cryptography python3-argon2
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

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: everything is installed"
  exit 0
fi

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
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
echo "setup: done"
