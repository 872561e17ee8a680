#ifndef CLIBCRYPTO_SHIM_H
#define CLIBCRYPTO_SHIM_H
/* API tokens: random secrets (RAND_bytes) and their keyed hash (HMAC-SHA-256 via EVP_Q_mac);
   migration checksums: SHA-256 (EVP_Digest*). */
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>
#endif
