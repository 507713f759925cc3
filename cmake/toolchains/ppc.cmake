# 32-bit big-endian PowerPC (G4): gcc-powerpc-linux-gnu, run by
# `qemu-ppc -cpu 7447` (MPC7447, AltiVec). No -mcpu/-maltivec here: the
# baseline build stays generic 32-bit PowerPC and runs on the G4; AltiVec
# backends enable AltiVec per file.
# Usage: cmake -S . -B build-cross-ppc -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/ppc.cmake
# (see rijn-cross-common.cmake; RIJN_QEMU_CPU overrides the qemu CPU)
set(RIJN_CROSS_PROCESSOR powerpc)
set(RIJN_CROSS_TRIPLE powerpc-linux-gnu)
set(RIJN_CROSS_QEMU qemu-ppc)
set(RIJN_CROSS_CPU 7447)
include(${CMAKE_CURRENT_LIST_DIR}/rijn-cross-common.cmake)
