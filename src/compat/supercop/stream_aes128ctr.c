/* crypto_stream_aes128ctr for librijn_supercop: stream.c under the
 * NaCl names of this primitive. */
#include "crypto_stream_aes128ctr.h"

#define RIJN_SUPERCOP_NAMES 1
#define crypto_stream crypto_stream_aes128ctr
#define crypto_stream_xor crypto_stream_aes128ctr_xor
#define crypto_stream_KEYBYTES crypto_stream_aes128ctr_KEYBYTES
#define crypto_stream_NONCEBYTES crypto_stream_aes128ctr_NONCEBYTES

#include "stream.c"
