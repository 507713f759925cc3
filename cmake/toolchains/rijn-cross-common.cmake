# Shared part of the cross toolchains in this directory (included by them;
# not a toolchain file on its own). The including file sets:
#   RIJN_CROSS_PROCESSOR  CMAKE_SYSTEM_PROCESSOR value
#   RIJN_CROSS_TRIPLE     GNU triple of the cross gcc, e.g. powerpc-linux-gnu
#   RIJN_CROSS_QEMU       qemu-user binary, e.g. qemu-ppc
#   RIJN_CROSS_CPU        default CPU model for qemu (-cpu), e.g. 7447
#
# Executables are linked statically, so qemu-user runs them without a
# sysroot (-L); CMAKE_CROSSCOMPILING_EMULATOR makes ctest run every test
# under qemu. An executable with the target property RIJN_DYNAMIC set is
# linked dynamically instead (a program that loads the OpenSSL provider
# module must share its libcrypto.so.3): cmake/RijnProviderTest.cmake sets
# that and runs it with the target's C library (RIJN_CROSS_SYSROOT).
#
# RIJN_QEMU_CPU (cache variable or environment variable) overrides the qemu
# CPU model, e.g. -DRIJN_QEMU_CPU=power8 to run big-endian ppc64 on POWER8.
# RIJN_CROSS_CC overrides the compiler (e.g. a clang --target wrapper).
# RIJN_CROSS_SYSROOT (default /usr/<triple>) is where the RIJN_DYNAMIC
# programs' C library and loader are (qemu -L).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR ${RIJN_CROSS_PROCESSOR})
if(DEFINED ENV{RIJN_CROSS_CC} AND NOT "$ENV{RIJN_CROSS_CC}" STREQUAL "")
  set(CMAKE_C_COMPILER "$ENV{RIJN_CROSS_CC}")
else()
  set(CMAKE_C_COMPILER ${RIJN_CROSS_TRIPLE}-gcc)
endif()
# Cross binutils (nm is used by the compat.symbols test).
find_program(RIJN_CROSS_NM ${RIJN_CROSS_TRIPLE}-nm)
if(RIJN_CROSS_NM)
  set(CMAKE_NM ${RIJN_CROSS_NM} CACHE FILEPATH "nm for the target")
endif()
# -static as a link option of every executable without RIJN_DYNAMIC (not in
# CMAKE_EXE_LINKER_FLAGS, which no target can leave out). This file is read
# inside project(), so the option lands on the top directory and every
# directory below it; in try_compile's projects too, whose checks therefore
# link as before. Read twice in a first configure: added once.
set(_rijn_static_exe
  "$<$<AND:$<STREQUAL:$<TARGET_PROPERTY:TYPE>,EXECUTABLE>,$<NOT:$<BOOL:$<TARGET_PROPERTY:RIJN_DYNAMIC>>>>:-static>")
get_property(_rijn_link_opts DIRECTORY PROPERTY LINK_OPTIONS)
if(NOT _rijn_static_exe IN_LIST _rijn_link_opts)
  add_link_options("${_rijn_static_exe}")
endif()
# A tree configured before had "-static" in its cached
# CMAKE_EXE_LINKER_FLAGS (then from CMAKE_EXE_LINKER_FLAGS_INIT): taken out.
if(DEFINED CACHE{CMAKE_EXE_LINKER_FLAGS} AND "$CACHE{CMAKE_EXE_LINKER_FLAGS}" MATCHES "^-static( |$)")
  string(REGEX REPLACE "^-static *" "" _rijn_exe_flags "$CACHE{CMAKE_EXE_LINKER_FLAGS}")
  set(CMAKE_EXE_LINKER_FLAGS "${_rijn_exe_flags}" CACHE STRING
      "Flags used by the linker during all build types." FORCE)
endif()
# The target's C library and dynamic loader for the RIJN_DYNAMIC programs
# (qemu -L): Debian's libc6-dev-<arch>-cross puts them in /usr/<triple>/lib.
if(NOT RIJN_CROSS_SYSROOT)
  set(RIJN_CROSS_SYSROOT /usr/${RIJN_CROSS_TRIPLE})
endif()
# Look for libraries and headers only in the target's directories (so the
# host's OpenSSL is never picked up for a cross build), programs on the host.
set(CMAKE_FIND_ROOT_PATH /usr/${RIJN_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# Debian's libcrypto for the target: when it is there, the OpenSSL
# differential suites (diff_openssl, gcm_openssl, poly1305_openssl) are
# built too, linked statically like everything here, and run under qemu
# against a real peer. Looked for first next to the host's through
# multiarch (scripts/setup.sh --test installs libssl-dev:arm64), then in a
# folder where Debian's packages for the target were only unpacked
# (dpkg-deb -x): RIJN_CROSS_OPENSSL_ROOT (cache or environment variable),
# by default /opt/rijn-ossl/ppc64el for powerpc64le-linux-gnu, which
# scripts/setup.sh --test fills. Its headers are split between
# <root>/usr/include/openssl and <root>/usr/include/<triple>/openssl; one
# folder of links in the build tree joins them (adding /usr/include itself
# to a cross build would let host headers in). -DRIJN_CROSS_OPENSSL=OFF
# leaves it out.
if(NOT RIJN_CROSS_OPENSSL_ROOT AND DEFINED ENV{RIJN_CROSS_OPENSSL_ROOT})
  set(RIJN_CROSS_OPENSSL_ROOT "$ENV{RIJN_CROSS_OPENSSL_ROOT}")
endif()
if(NOT RIJN_CROSS_OPENSSL_ROOT AND RIJN_CROSS_TRIPLE STREQUAL "powerpc64le-linux-gnu")
  set(RIJN_CROSS_OPENSSL_ROOT /opt/rijn-ossl/ppc64el)
endif()
if(NOT DEFINED RIJN_CROSS_OPENSSL OR RIJN_CROSS_OPENSSL)
  foreach(_rijn_ossl_root "" ${RIJN_CROSS_OPENSSL_ROOT})
    set(_rijn_ossl_lib ${_rijn_ossl_root}/usr/lib/${RIJN_CROSS_TRIPLE}/libcrypto.a)
    set(_rijn_ossl_inc ${_rijn_ossl_root}/usr/include/${RIJN_CROSS_TRIPLE}/openssl)
    set(_rijn_ossl_common ${_rijn_ossl_root}/usr/include/openssl)
    if(EXISTS "${_rijn_ossl_lib}" AND EXISTS "${_rijn_ossl_inc}/opensslconf.h" AND
       EXISTS "${_rijn_ossl_common}/evp.h")
      set(_rijn_ossl_join "${CMAKE_BINARY_DIR}/rijn-openssl-${RIJN_CROSS_TRIPLE}")
      file(GLOB _rijn_ossl_headers "${_rijn_ossl_common}/*.h" "${_rijn_ossl_inc}/*.h")
      file(REMOVE_RECURSE "${_rijn_ossl_join}/openssl")
      file(MAKE_DIRECTORY "${_rijn_ossl_join}/openssl")
      foreach(_h IN LISTS _rijn_ossl_headers)
        get_filename_component(_n "${_h}" NAME)
        file(CREATE_LINK "${_h}" "${_rijn_ossl_join}/openssl/${_n}" SYMBOLIC)
      endforeach()
      # FORCE over a NOTFOUND from a configure run before it was there
      if(NOT OPENSSL_INCLUDE_DIR OR NOT OPENSSL_CRYPTO_LIBRARY)
        set(_rijn_ossl_force FORCE)
      else()
        set(_rijn_ossl_force)
      endif()
      set(OPENSSL_INCLUDE_DIR "${_rijn_ossl_join}" CACHE PATH
          "OpenSSL headers for the target" ${_rijn_ossl_force})
      set(OPENSSL_CRYPTO_LIBRARY "${_rijn_ossl_lib}" CACHE FILEPATH
          "libcrypto for the target" ${_rijn_ossl_force})
      set(OPENSSL_USE_STATIC_LIBS TRUE)
      break()
    endif()
  endforeach()
endif()

if(NOT RIJN_QEMU_CPU AND DEFINED ENV{RIJN_QEMU_CPU} AND NOT "$ENV{RIJN_QEMU_CPU}" STREQUAL "")
  set(RIJN_QEMU_CPU "$ENV{RIJN_QEMU_CPU}")
endif()
if(NOT RIJN_QEMU_CPU)
  set(RIJN_QEMU_CPU ${RIJN_CROSS_CPU})
endif()
set(RIJN_QEMU_CPU "${RIJN_QEMU_CPU}" CACHE STRING "CPU model qemu-user emulates (-cpu)")
find_program(RIJN_QEMU ${RIJN_CROSS_QEMU})
if(NOT RIJN_QEMU)
  set(RIJN_QEMU ${RIJN_CROSS_QEMU})
endif()
set(CMAKE_CROSSCOMPILING_EMULATOR "${RIJN_QEMU};-cpu;${RIJN_QEMU_CPU}")

# qemu-user bug work-around (ppc64 only): qemu's 970 and POWER5 models clear
# 32 bytes per dcbz while reporting 128-byte cache blocks, which breaks
# glibc's memset(0) for large sizes. For those CPUs every executable is
# linked with -Wl,--wrap=memset and a plain memset (qemu-ppc970-memset.c);
# a RIJN_DYNAMIC one too (-fPIC, so it can be a PIE), though only its own
# calls then, not those inside the shared libraries it loads.
# RIJN_QEMU_MEMSET_FIX=OFF disables it, =ON forces it.
if(NOT DEFINED RIJN_QEMU_MEMSET_FIX)
  if(RIJN_CROSS_PROCESSOR STREQUAL "ppc64" AND RIJN_QEMU_CPU MATCHES "^(970|power5)")
    set(RIJN_QEMU_MEMSET_FIX ON)
  else()
    set(RIJN_QEMU_MEMSET_FIX OFF)
  endif()
endif()
if(RIJN_QEMU_MEMSET_FIX)
  set(_rijn_fix_obj "${CMAKE_BINARY_DIR}/rijn-qemu-memset-fix.o")
  if(NOT EXISTS "${_rijn_fix_obj}")
    execute_process(
      COMMAND ${CMAKE_C_COMPILER} -O2 -fPIC -c
              "${CMAKE_CURRENT_LIST_DIR}/qemu-ppc970-memset.c" -o "${_rijn_fix_obj}"
      RESULT_VARIABLE _rijn_fix_rc)
    if(NOT _rijn_fix_rc EQUAL 0)
      message(FATAL_ERROR "could not compile qemu-ppc970-memset.c")
    endif()
  endif()
  # set, not appended: this file is read twice in a first configure
  set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wl,--wrap=memset ${_rijn_fix_obj}")
endif()
