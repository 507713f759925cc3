# 64-bit big-endian PowerPC (G5): gcc-powerpc64-linux-gnu, run by
# `qemu-ppc64 -cpu 970` (PowerPC 970, AltiVec, no VSX). For POWER8 in
# big-endian mode use ppc64-power8.cmake or -DRIJN_QEMU_CPU=power8.
# Usage: cmake -S . -B build-cross-ppc64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/ppc64.cmake
# (see rijn-cross-common.cmake; RIJN_QEMU_CPU overrides the qemu CPU)
set(RIJN_CROSS_PROCESSOR ppc64)
set(RIJN_CROSS_TRIPLE powerpc64-linux-gnu)
set(RIJN_CROSS_QEMU qemu-ppc64)
set(RIJN_CROSS_CPU 970)
include(${CMAKE_CURRENT_LIST_DIR}/rijn-cross-common.cmake)
