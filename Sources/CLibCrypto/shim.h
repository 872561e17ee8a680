#ifndef CLIBCRYPTO_SHIM_H
#define CLIBCRYPTO_SHIM_H
/* API tokens: random secrets (RAND_bytes) and their keyed hash (HMAC-SHA-256 under a keyed
   template, below); migration checksums: SHA-256 (EVP_Digest*). */
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

/* An HMAC-SHA-256 context keyed with `key`, kept as a template: fetching the algorithms and
   absorbing the key is done once, not per hash (EVP_Q_mac does both on every call). NULL when
   libcrypto cannot make it. Free with EVP_MAC_CTX_free. */
static inline EVP_MAC_CTX *taskbase_hmac_sha256_template(const unsigned char *key, size_t key_length) {
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
    if (mac == NULL) return NULL;
    EVP_MAC_CTX *context = EVP_MAC_CTX_new(mac);
    EVP_MAC_free(mac);
    if (context == NULL) return NULL;
    char digest[] = "SHA256";
    OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0), OSSL_PARAM_construct_end()};
    if (EVP_MAC_init(context, key, key_length, params) != 1) {
        EVP_MAC_CTX_free(context);
        return NULL;
    }
    return context;
}

/* HMAC-SHA-256 of `data` into `out` (32 bytes) from a copy of `template`, which it leaves as it
   was (several threads may hash from one template at once); 1 on success. */
static inline int taskbase_hmac_sha256(const EVP_MAC_CTX *template, const unsigned char *data, size_t length, unsigned char *out) {
    EVP_MAC_CTX *context = EVP_MAC_CTX_dup(template);
    if (context == NULL) return 0;
    size_t written = 0;
    int ok = EVP_MAC_update(context, data, length) == 1 && EVP_MAC_final(context, out, &written, 32) == 1 && written == 32;
    EVP_MAC_CTX_free(context);
    return ok;
}
/* taskserve's HTTPS: whether `certificate` (PEM) starts with a certificate and `key` (PEM) holds
   its private key, before the daemon is given them (GnuTLS would only say that it failed).
   0: they do; 1: no certificate; 2: no private key (or one under a passphrase: the empty one is
   tried, never a prompt); 3: the key is not the certificate's. */
static inline int taskbase_tls_pair_check(const char *certificate, const char *key) {
    BIO *certificate_bio = BIO_new_mem_buf(certificate, -1);
    X509 *x509 = certificate_bio ? PEM_read_bio_X509(certificate_bio, NULL, NULL, NULL) : NULL;
    BIO_free(certificate_bio);
    if (x509 == NULL) return 1;
    BIO *key_bio = BIO_new_mem_buf(key, -1);
    EVP_PKEY *private_key = key_bio ? PEM_read_bio_PrivateKey(key_bio, NULL, NULL, (void *)"") : NULL;
    BIO_free(key_bio);
    if (private_key == NULL) {
        X509_free(x509);
        return 2;
    }
    int matches = X509_check_private_key(x509, private_key);
    EVP_PKEY_free(private_key);
    X509_free(x509);
    return matches == 1 ? 0 : 3;
}

#endif
