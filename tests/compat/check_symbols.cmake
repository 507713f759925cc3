# compat.symbols: the librijn shared library must not contain any ECRYPT_*
# or crypto_* symbol (those live only in rijn_ecrypt / rijn_supercop).
# Usage: cmake -DNM=<nm> -DLIB=<librijn.so> -P check_symbols.cmake
if(NOT NM OR NOT LIB)
  message(FATAL_ERROR "usage: cmake -DNM=nm -DLIB=librijn.so -P check_symbols.cmake")
endif()
execute_process(COMMAND ${NM} ${LIB} RESULT_VARIABLE rc
  OUTPUT_VARIABLE all ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR all STREQUAL "")
  # stripped library: fall back to the dynamic symbol table
  execute_process(COMMAND ${NM} -D ${LIB} RESULT_VARIABLE rc
    OUTPUT_VARIABLE all ERROR_VARIABLE err)
endif()
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} ${LIB} failed: ${err}")
endif()
if(NOT all MATCHES "rijn_aes_setkey")
  message(FATAL_ERROR "nm output of ${LIB} lacks rijn_aes_setkey; wrong file?")
endif()
string(REGEX MATCHALL "[^\n]*(ECRYPT_|crypto_)[^\n]*" bad "${all}")
if(bad)
  string(REPLACE ";" "\n" bad "${bad}")
  message(FATAL_ERROR "librijn contains compat symbols:\n${bad}\n1 failed")
endif()
message(STATUS "compat.symbols: no ECRYPT_/crypto_ symbol in ${LIB}; 1 passed, 0 failed")
