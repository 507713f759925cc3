# 64-bit little-endian PowerPC: gcc-powerpc64le-linux-gnu (ELFv2,
# POWER8 baseline), run by `qemu-ppc64le -cpu power8`.
# Usage: cmake -S . -B build-cross-ppc64le -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/ppc64le.cmake
# (see rijn-cross-common.cmake; RIJN_QEMU_CPU overrides the qemu CPU)
set(RIJN_CROSS_PROCESSOR ppc64le)
set(RIJN_CROSS_TRIPLE powerpc64le-linux-gnu)
set(RIJN_CROSS_QEMU qemu-ppc64le)
set(RIJN_CROSS_CPU power8)
include(${CMAKE_CURRENT_LIST_DIR}/rijn-cross-common.cmake)
