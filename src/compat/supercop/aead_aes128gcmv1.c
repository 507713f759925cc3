/* crypto_aead_aes128gcmv1 for librijn_supercop: aead.c under the SUPERCOP
 * names of this primitive. */
#include "crypto_aead_aes128gcmv1.h"

#define RIJN_SUPERCOP_NAMES 1
#define crypto_aead_encrypt crypto_aead_aes128gcmv1_encrypt
#define crypto_aead_decrypt crypto_aead_aes128gcmv1_decrypt
#define crypto_aead_KEYBYTES crypto_aead_aes128gcmv1_KEYBYTES

#include "aead.c"
