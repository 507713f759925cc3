# 32-bit ARM, hard float (Debian armhf, Raspberry Pi OS 32-bit):
# gcc-arm-linux-gnueabihf, run by `qemu-arm -cpu cortex-a7` (the Raspberry
# Pi 2's core: ARMv7-A with NEON and VFPv4). The compiler's defaults stay
# (ARMv7-A, Thumb-2, VFPv3-D16): the build runs on every armhf system,
# and the library's portable paths are what it tests (ct64, poly32,
# ctmul32, ref).
# Usage: cmake -S . -B build-cross-armhf -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/armhf.cmake
# (see rijn-cross-common.cmake; RIJN_QEMU_CPU overrides the qemu CPU, e.g.
# cortex-a15 or max)
set(RIJN_CROSS_PROCESSOR arm)
set(RIJN_CROSS_TRIPLE arm-linux-gnueabihf)
set(RIJN_CROSS_QEMU qemu-arm)
set(RIJN_CROSS_CPU cortex-a7)
include(${CMAKE_CURRENT_LIST_DIR}/rijn-cross-common.cmake)
