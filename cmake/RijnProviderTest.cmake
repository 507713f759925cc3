# RijnProviderTest.cmake: how a test program of the OpenSSL provider module
# (tests/provider) runs in a cross build.
#
#   rijn_provider_test_setup(<target>)
#
# A program that loads rijn.so must share the module's libcrypto.so.3, so
# in a cross build (cmake/toolchains, executables otherwise linked
# statically) <target> is marked RIJN_DYNAMIC (linked dynamically) and its
# CROSSCOMPILING_EMULATOR becomes <build>/rijn-qemu-dynamic, a generated
# script that runs it as
#
#   <qemu> -cpu <RIJN_QEMU_CPU> -L <sysroot>
#          -E LD_LIBRARY_PATH=<sysroot>/lib:<libcrypto's folder> <program> ...
#
# <sysroot> is RIJN_CROSS_SYSROOT (the cross C library, /usr/<triple>);
# libcrypto's folder is the one of RIJN_PROVIDER_LIBCRYPTO
# (provider/CMakeLists.txt): Debian's multiarch arm64 one,
# /usr/lib/aarch64-linux-gnu, or the unpacked ppc64el one under
# /opt/rijn-ossl. The C library comes first, so the loader and libc are
# one build even where multiarch installed another libc beside libcrypto.
#
# Before each test the script runs <build>/rijn-ossl-probe (built here: it
# initialises that libcrypto and prints its version). If the probe does not
# run, the target's libcrypto does not load under qemu, and the test exits
# 77 with "skip: ..." and the probe's own output as the reason. Given a
# module's path, the probe also loads it and prints its buildinfo (the AES
# backend and GHASH engine it picks): scripts/cross-test.sh checks the
# masked aarch64 pass with that.
#
# In a native build the function does nothing.
include_guard(GLOBAL)

function(_rijn_provider_test_runner)
  if(TARGET rijn_ossl_probe)
    return()
  endif()
  if(RIJN_PROVIDER_LIBCRYPTO)
    set(crypto "${RIJN_PROVIDER_LIBCRYPTO}")
  elseif(TARGET OpenSSL::Crypto)
    get_target_property(crypto OpenSSL::Crypto LOCATION)
  endif()
  if(NOT crypto OR crypto MATCHES "\\.a$")
    message(FATAL_ERROR "rijn_provider_test_setup: no shared libcrypto for the target")
  endif()
  get_filename_component(crypto_dir "${crypto}" DIRECTORY)
  set(sysroot "${RIJN_CROSS_SYSROOT}")
  if(NOT sysroot)
    set(sysroot "${CMAKE_SYSROOT}")
  endif()
  if(NOT sysroot OR NOT IS_DIRECTORY "${sysroot}/lib")
    message(FATAL_ERROR "rijn_provider_test_setup: no target C library "
      "(RIJN_CROSS_SYSROOT=${sysroot}, expected its lib/ with ld.so and libc)")
  endif()
  list(GET CMAKE_CROSSCOMPILING_EMULATOR 0 qemu)
  list(SUBLIST CMAKE_CROSSCOMPILING_EMULATOR 1 -1 qemu_args)
  list(JOIN qemu_args " " qemu_args)

  set(probe_c "${CMAKE_BINARY_DIR}/rijn-ossl-probe.c")
  file(WRITE "${probe_c}.new" [=[
/*
 * rijn-ossl-probe.c, written by cmake/RijnProviderTest.cmake: does the
 * target's libcrypto load and run under qemu-user? Prints its version;
 * with a module path, loads the module into a library context of its own
 * and prints the module's buildinfo. Exit 0 if all of that worked.
 */
#include <stdio.h>

#include <openssl/crypto.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/params.h>
#include <openssl/provider.h>

int main(int argc, char **argv)
{
    OSSL_LIB_CTX *ctx;
    OSSL_PROVIDER *prov;
    const char *info = NULL;
    OSSL_PARAM params[2];
    int ok;

    if (!OPENSSL_init_crypto(0, NULL)) {
        fprintf(stderr, "OPENSSL_init_crypto failed\n");
        ERR_print_errors_fp(stderr);
        return 1;
    }
    printf("libcrypto: %s\n", OpenSSL_version(OPENSSL_VERSION));
    if (argc < 2)
        return 0;
    ctx = OSSL_LIB_CTX_new();
    prov = ctx != NULL ? OSSL_PROVIDER_load(ctx, argv[1]) : NULL;
    if (prov == NULL) {
        fprintf(stderr, "cannot load the module %s\n", argv[1]);
        ERR_print_errors_fp(stderr);
        OSSL_LIB_CTX_free(ctx);
        return 1;
    }
    params[0] = OSSL_PARAM_construct_utf8_ptr(OSSL_PROV_PARAM_BUILDINFO,
                                              (char **)&info, 0);
    params[1] = OSSL_PARAM_construct_end();
    ok = OSSL_PROVIDER_get_params(prov, params) && info != NULL;
    if (ok)
        printf("module buildinfo: %s\n", info);
    else
        fprintf(stderr, "the module gave no buildinfo\n");
    OSSL_PROVIDER_unload(prov);
    OSSL_LIB_CTX_free(ctx);
    return ok ? 0 : 1;
}
]=])
  # rewritten only when it changed, so a reconfigure does not rebuild it
  file(COPY_FILE "${probe_c}.new" "${probe_c}" ONLY_IF_DIFFERENT)
  file(REMOVE "${probe_c}.new")

  add_executable(rijn_ossl_probe "${probe_c}")
  target_include_directories(rijn_ossl_probe PRIVATE ${OPENSSL_INCLUDE_DIR})
  target_link_libraries(rijn_ossl_probe PRIVATE "${crypto}")
  set_target_properties(rijn_ossl_probe PROPERTIES
    OUTPUT_NAME rijn-ossl-probe RIJN_DYNAMIC ON
    RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}")

  set(run "\"${qemu}\" ${qemu_args} -L \"${sysroot}\" -E \"LD_LIBRARY_PATH=${sysroot}/lib:${crypto_dir}\"")
  file(GENERATE OUTPUT "${CMAKE_BINARY_DIR}/rijn-qemu-dynamic"
    CONTENT "#!/bin/sh
# Written by cmake/RijnProviderTest.cmake: runs a dynamically linked
# ${CMAKE_SYSTEM_PROCESSOR} program under qemu-user with the target's C library
# (${sysroot}/lib) and libcrypto (${crypto_dir}).
# Exits 77 (skip) when the probe shows that libcrypto does not load here.
probe=\"$<TARGET_FILE:rijn_ossl_probe>\"
out=$(${run} \"$probe\" 2>&1)
rc=$?
if [ $rc -ne 0 ]; then
    echo \"skip: the target's libcrypto (${crypto}) does not load under ${qemu} ${qemu_args} -L ${sysroot} (probe exit $rc):\"
    echo \"$out\" | head -n 5 | sed 's/^/    /'
    exit 77
fi
echo \"$out\"
exec ${run} \"$@\"
"
    FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
                     GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
  message(STATUS "rijn: provider tests run dynamically linked under ${qemu} "
    "with ${sysroot}/lib and ${crypto}")
endfunction()

function(rijn_provider_test_setup target)
  if(NOT CMAKE_CROSSCOMPILING OR NOT CMAKE_CROSSCOMPILING_EMULATOR)
    return()
  endif()
  _rijn_provider_test_runner()
  set_target_properties(${target} PROPERTIES RIJN_DYNAMIC ON
    CROSSCOMPILING_EMULATOR "${CMAKE_BINARY_DIR}/rijn-qemu-dynamic")
  add_dependencies(${target} rijn_ossl_probe)
endfunction()
