# Real programs using the provider module rijn.so (label "provider"),
# included by tests/provider/CMakeLists.txt:
#
#   provider.programs.enc     openssl enc -aes-{128,192,256}-ctr with the
#       configuration of doc/provider.md (and with -provider-path/-provider
#       /-propquery): same bytes as the default provider, -K/-iv and
#       -pass/-pbkdf2, sizes 0 to 1 MiB, both directions;
#   provider.programs.rand    openssl rand on the DRBG's AES-256-CTR;
#   provider.programs.tls     openssl s_server and s_client, TLS 1.2 and
#       1.3 with AES-128/256-GCM, 4 MiB each way, digests checked;
#   provider.programs.curl    curl fetching from s_server over TLS 1.2/1.3;
#   provider.programs.python  python3-cryptography's AES-GCM known answers;
#   provider.tls_bulk         tls_bulk.c: 64 MiB over TLS in one process with
#       and without the configuration, every byte compared.
#
# Each proves through the module's trace (RIJN_PROVIDER_TRACE) that rijn did
# the work in the process concerned (programs.sh, tls_bulk.sh). A program
# that is missing makes its test skip (exit 77, "skip: reason"). The system
# programs cannot load the module of a sanitizer build (ASan-instrumented)
# or of a cross build, so there the program tests are registered as skips
# that say why; tls_bulk, a program of the build itself, still runs there
# (under qemu in a cross build). scripts/provider-speed.sh uses tls_bulk for its TLS
# figure.

set(_pg_skip "")
if(RIJN_SANITIZE)
  set(_pg_skip "sanitizer build: its ASan-instrumented rijn.so cannot be loaded into the system openssl, curl or python3")
elseif(CMAKE_CROSSCOMPILING)
  set(_pg_skip "cross build: the host programs cannot load a ${CMAKE_SYSTEM_PROCESSOR} rijn.so")
endif()
if(_pg_skip)
  message(STATUS "rijn: provider.programs.* will skip in this build (${_pg_skip})")
endif()

foreach(g enc rand tls curl python)
  add_test(NAME provider.programs.${g}
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/programs.sh ${g} $<TARGET_FILE:rijn_provider>)
  set_tests_properties(provider.programs.${g} PROPERTIES
    LABELS "provider" SKIP_RETURN_CODE 77 TIMEOUT 300)
  if(_pg_skip)
    set_property(TEST provider.programs.${g} APPEND PROPERTY
      ENVIRONMENT "RIJN_PROGRAMS_SKIP=${_pg_skip}")
  endif()
endforeach()

# tls_bulk: libssl and libcrypto shared, the ones the module uses. In a
# cross build it runs under qemu with the target's libraries, like the
# other provider test programs (cmake/RijnProviderTest.cmake), on 8 MiB.
find_package(OpenSSL 3.0 COMPONENTS SSL Crypto)
find_package(Threads)
set(_pg_bulk_libs "")
if(NOT TARGET Threads::Threads)
  set(_pg_bulk_why "no threads library")
elseif(RIJN_PROVIDER_LIBCRYPTO)
  # Only a static libcrypto was found (or a cross build's): the shared
  # libssl beside the shared libcrypto provider/CMakeLists.txt found.
  get_filename_component(_pg_dir "${RIJN_PROVIDER_LIBCRYPTO}" DIRECTORY)
  find_library(RIJN_TLS_BULK_LIBSSL NAMES libssl.so.3 HINTS "${_pg_dir}"
    NO_DEFAULT_PATH NO_CMAKE_FIND_ROOT_PATH)
  if(RIJN_TLS_BULK_LIBSSL)
    set(_pg_bulk_libs "${RIJN_TLS_BULK_LIBSSL}" "${RIJN_PROVIDER_LIBCRYPTO}")
  else()
    set(_pg_bulk_why "no shared libssl.so.3 beside ${RIJN_PROVIDER_LIBCRYPTO}")
  endif()
elseif(TARGET OpenSSL::SSL)
  set(_pg_bulk_libs OpenSSL::SSL OpenSSL::Crypto)
else()
  set(_pg_bulk_why "no libssl 3")
endif()

if(_pg_bulk_libs)
  add_executable(tls_bulk tls_bulk.c)
  target_include_directories(tls_bulk PRIVATE ${OPENSSL_INCLUDE_DIR})
  target_link_libraries(tls_bulk PRIVATE ${_pg_bulk_libs} Threads::Threads)
  add_dependencies(tls_bulk rijn_provider)
  set(_pg_bulk_run "")
  set(_pg_bulk_mib 64)
  if(CMAKE_CROSSCOMPILING)
    rijn_provider_test_setup(tls_bulk)
    get_target_property(_pg_emu tls_bulk CROSSCOMPILING_EMULATOR)
    if(_pg_emu)
      set(_pg_bulk_run --run "${_pg_emu}")
    endif()
    set(_pg_bulk_mib 8)
  endif()
  add_test(NAME provider.tls_bulk
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tls_bulk.sh ${_pg_bulk_run}
            $<TARGET_FILE:rijn_provider> $<TARGET_FILE:tls_bulk> ${_pg_bulk_mib})
else()
  message(STATUS "rijn: tls_bulk not built (${_pg_bulk_why})")
  add_test(NAME provider.tls_bulk COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tls_bulk.sh)
  set_property(TEST provider.tls_bulk APPEND PROPERTY
    ENVIRONMENT "RIJN_PROGRAMS_SKIP=tls_bulk not built: ${_pg_bulk_why}")
endif()
set_tests_properties(provider.tls_bulk PROPERTIES
  LABELS "provider" SKIP_RETURN_CODE 77 TIMEOUT 300)
