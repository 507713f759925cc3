/*
 * `rijn speed` Poly1305-AES part (speed_mac.c): one self-contained
 * table of rijn's Poly1305-AES per engine against OpenSSL's EVP_MAC
 * POLY1305 plus its AES-128 encryption of the nonce, measured in the same
 * process, interleaved.
 */
#ifndef RIJN_SPEED_MAC_H
#define RIJN_SPEED_MAC_H

#include <stdio.h>

/* Print the table (json = 1: one JSON object instead); quick = 1 for a
 * short run (fewer repetitions). Returns 0, or -1 if a rijn tag differed
 * from OpenSSL's. */
int rijn_speed_poly1305(FILE *out, int json, int quick);

#endif
