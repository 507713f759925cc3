# 64-bit big-endian PowerPC on POWER8: the ppc64 toolchain with
# `qemu-ppc64 -cpu power8` (ISA 2.07: VSX, vcipher, vpmsum), so the POWER8
# backends run big-endian. Same as ppc64.cmake with -DRIJN_QEMU_CPU=power8.
if(NOT RIJN_QEMU_CPU)
  set(RIJN_QEMU_CPU power8)
endif()
include(${CMAKE_CURRENT_LIST_DIR}/ppc64.cmake)
