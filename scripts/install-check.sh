#!/usr/bin/env bash
# Installs rijn into a scratch prefix, checks the tool and its manual page
# are there, and builds a small outside program against the library twice:
# through find_package(rijn) and through pkg-config. The OpenSSL provider
# module goes into the scratch prefix too (RIJN_OSSL_MODULESDIR; a real
# install puts it into libcrypto's modulesdir) and is loaded from there.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:?usage: install-check.sh WORKDIR}
rm -rf "$work"
mkdir -p "$work/app"
cmake -S "$root" -B "$work/build" -DRIJN_BUILD_TESTS=OFF -DCMAKE_INSTALL_PREFIX="$work/prefix" \
  -DRIJN_OSSL_MODULESDIR="$work/prefix/lib/ossl-modules" >/dev/null
cmake --build "$work/build" -j"$(nproc)" >/dev/null
cmake --install "$work/build" >/dev/null

cat >"$work/app/app.c" <<'C'
#include <rijn.h>
#include <stdio.h>
#include <string.h>
/* SP 800-38A F.5.1, first block */
int main(void)
{
    static const unsigned char key[16] = {0x2b,0x7e,0x15,0x16,0x28,0xae,0xd2,0xa6,0xab,0xf7,0x15,0x88,0x09,0xcf,0x4f,0x3c};
    static const unsigned char iv[16] = {0xf0,0xf1,0xf2,0xf3,0xf4,0xf5,0xf6,0xf7,0xf8,0xf9,0xfa,0xfb,0xfc,0xfd,0xfe,0xff};
    static const unsigned char pt[16] = {0x6b,0xc1,0xbe,0xe2,0x2e,0x40,0x9f,0x96,0xe9,0x3d,0x7e,0x11,0x73,0x93,0x17,0x2a};
    static const unsigned char ct[16] = {0x87,0x4d,0x61,0x91,0xb6,0x20,0xe3,0x26,0x1b,0xef,0x68,0x64,0x99,0x0d,0xb6,0xce};
    unsigned char out[16];
    if (rijn_aes_ctr(out, pt, 16, key, 16, iv) != 0 || memcmp(out, ct, 16) != 0) {
        puts("FAIL");
        return 1;
    }
    printf("ok: rijn %s\n", rijn_version());
    return 0;
}
C
cat >"$work/app/CMakeLists.txt" <<'C'
cmake_minimum_required(VERSION 3.25)
project(app C)
find_package(rijn 0.1 REQUIRED)
add_executable(app app.c)
target_link_libraries(app PRIVATE rijn::rijn)
C
cmake -S "$work/app" -B "$work/app/build" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/app/build" >/dev/null
LD_LIBRARY_PATH="$work/prefix/lib:$work/prefix/lib64" "$work/app/build/app"

libdir=$(find "$work/prefix" -name rijn.pc -printf '%h\n' | head -n 1)
# shellcheck disable=SC2046
cc -o "$work/app/app-pc" "$work/app/app.c" $(PKG_CONFIG_PATH="$libdir" pkg-config --cflags --libs rijn)
LD_LIBRARY_PATH="$(dirname "$libdir")" "$work/app/app-pc"
# the tool and its manual page
"$work/prefix/bin/rijn" --version | head -n 1
man1=$(find "$work/prefix" -path '*/man1/rijn.1' | head -n 1)
[ -s "$man1" ] && grep -q '^\.TH RIJN 1' "$man1" || { echo "FAIL: rijn.1 not installed"; exit 1; }
echo "installed: bin/rijn, ${man1#"$work/prefix/"}"
so=$(find "$work/prefix" -name 'librijn.so.*' -type f | head -n 1)
echo "installed: $(basename "$so"), soname $(objdump -p "$so" | awk '/SONAME/{print $2}')"
# the provider module, where it was built (OpenSSL 3 headers present)
if grep -q '^RIJN_OSSL_MODULESDIR:' "$work/build/CMakeCache.txt" &&
   [ -f "$work/build/provider/rijn.so" ]; then
  mod=$work/prefix/lib/ossl-modules
  [ -f "$mod/rijn.so" ] || { echo "FAIL: rijn.so not installed into $mod"; exit 1; }
  OPENSSL_MODULES=$mod "$work/prefix/bin/rijn" impl | grep -q "^openssl provider: $mod/rijn.so (installed" ||
    { echo "FAIL: rijn impl does not see the installed module"; exit 1; }
  OPENSSL_MODULES=$mod openssl list -provider rijn -providers | grep -q "^  rijn" ||
    { echo "FAIL: openssl cannot load the installed rijn.so"; exit 1; }
  echo "installed: lib/ossl-modules/rijn.so (openssl list -provider rijn loads it)"
fi
