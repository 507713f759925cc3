# 64-bit ARM: gcc-aarch64-linux-gnu, run by `qemu-aarch64 -cpu max`
# (all extensions qemu implements, including AES and PMULL).
# Usage: cmake -S . -B build-cross-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64.cmake
# (see rijn-cross-common.cmake; RIJN_QEMU_CPU overrides the qemu CPU)
set(RIJN_CROSS_PROCESSOR aarch64)
set(RIJN_CROSS_TRIPLE aarch64-linux-gnu)
set(RIJN_CROSS_QEMU qemu-aarch64)
set(RIJN_CROSS_CPU max)
include(${CMAKE_CURRENT_LIST_DIR}/rijn-cross-common.cmake)
