# The fuzz targets of the command-line surfaces (issue 19, section 3),
# included by tests/fuzz/CMakeLists.txt (rijn_fuzz_target is defined there).
#
#   seal_header  rijn_seal_header_read against a reader written from
#                doc/format.md; KDF limits proven with an Argon2id
#                interposer (the comment at the top of the source says how)
#   b64          the base64 codec of `rijn enc -a` against OpenSSL's
#                BIO_f_base64 and a model of its documented rules
#   enc_args     `rijn enc` and `openssl enc` run side by side on argv
#                picked from a vocabulary of real options and values
# cli_fuzz.h holds what b64 and enc_args share (the base64 model, the
# documented differences from openssl); both link the tool's messages
# (tools/common/msg.c).

# seal_header interposes argon2id_hash_raw and calls the real one through
# dlsym(RTLD_NEXT): it needs the header and the dynamic loader.
set(_seal_defs "")
set(_seal_libs rijn_fuzzutil ${CMAKE_DL_LIBS})
if(RIJN_HAVE_ARGON2)
  list(APPEND _seal_defs RIJN_FUZZ_HAVE_ARGON2=1)
  list(APPEND _seal_libs argon2)
endif()
rijn_fuzz_target(NAME seal_header SOURCES fuzz_seal_header.c
  LIBS ${_seal_libs} DEFINES ${_seal_defs})

# b64 links the tool's codec (tools/enc/b64.c) and compares it with
# OpenSSL's BIO_f_base64 where the build has libcrypto.
rijn_fuzz_target(NAME b64
  SOURCES fuzz_b64.c ${PROJECT_SOURCE_DIR}/tools/enc/b64.c
    ${PROJECT_SOURCE_DIR}/tools/common/msg.c
  LIBS rijn_fuzzutil
  INCLUDES ${PROJECT_SOURCE_DIR}/tools
  OPENSSL)

# enc_args runs the rijn program of this build and openssl side by side
# and links the tool's parser (tools/enc/args.c, which reads passwords
# through tools/common/prompt.c) for coverage. Where the two programs
# cannot run on the build machine (cross builds: the rijn under test runs
# under qemu, and no openssl of the target is there) or the tool is not
# built, the target says why and exits 77: the test is skipped.
set(_enc_skip "")
if(CMAKE_CROSSCOMPILING)
  set(_enc_skip "cross build: enc_args runs rijn and openssl side by side on the build machine")
elseif(NOT TARGET rijn)
  set(_enc_skip "the rijn tool is not built (RIJN_BUILD_TOOLS=OFF)")
else()
  find_program(RIJN_OPENSSL_PROGRAM openssl)
  if(NOT RIJN_OPENSSL_PROGRAM)
    set(_enc_skip "no openssl program found")
  endif()
endif()
rijn_fuzz_target(NAME enc_args
  SOURCES fuzz_enc_args.c
    ${PROJECT_SOURCE_DIR}/tools/enc/args.c
    ${PROJECT_SOURCE_DIR}/tools/common/prompt.c
    ${PROJECT_SOURCE_DIR}/tools/common/msg.c
  LIBS rijn_fuzzutil
  INCLUDES ${PROJECT_SOURCE_DIR}/tools)
if(_enc_skip)
  target_compile_definitions(rijn_fuzz_enc_args PRIVATE
    "RIJN_FUZZ_ENC_ARGS_SKIP=\"${_enc_skip}\"")
else()
  target_compile_definitions(rijn_fuzz_enc_args PRIVATE
    "RIJN_FUZZ_RIJN_BIN=\"$<TARGET_FILE:rijn>\""
    "RIJN_FUZZ_OPENSSL_BIN=\"${RIJN_OPENSSL_PROGRAM}\"")
  add_dependencies(rijn_fuzz_enc_args rijn)
endif()
set_tests_properties(fuzz.replay.enc_args PROPERTIES SKIP_RETURN_CODE 77)
# the libFuzzer entry of a RIJN_FUZZ build skips the same way (setup()
# exits 77 before the first input when it has no programs to compare)
if(TEST fuzz.run.enc_args)
  set_tests_properties(fuzz.run.enc_args PROPERTIES SKIP_RETURN_CODE 77)
endif()
