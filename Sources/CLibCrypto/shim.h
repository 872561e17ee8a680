#ifndef CLIBCRYPTO_SHIM_H
#define CLIBCRYPTO_SHIM_H
/* API tokens: random secrets (RAND_bytes) and their keyed hash (HMAC-SHA-256 under a keyed
   template, below); migration checksums: SHA-256 (EVP_Digest*); identity providers' tokens:
   RS256 and ES256 signatures under keys built from JWKs (below). */
#include <string.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/bn.h>
#include <openssl/ecdsa.h>
#include <openssl/param_build.h>

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

/* Identity providers' tokens (JWT, RFC 7519) are signed with keys published as JWKs (RFC 7517).
   The two kinds taskserve verifies, built from a JWK's members (big-endian bytes, base64url
   decoded by the caller). NULL when libcrypto refuses them. Free with EVP_PKEY_free. */

/* An RSA public key from its modulus `n` and exponent `e`; NULL below 2048 bits. */
static inline EVP_PKEY *taskbase_rsa_public_key(const unsigned char *n, size_t n_length, const unsigned char *e, size_t e_length) {
    BIGNUM *modulus = BN_bin2bn(n, (int)n_length, NULL);
    BIGNUM *exponent = BN_bin2bn(e, (int)e_length, NULL);
    OSSL_PARAM_BLD *builder = OSSL_PARAM_BLD_new();
    OSSL_PARAM *params = NULL;
    EVP_PKEY_CTX *context = NULL;
    EVP_PKEY *key = NULL;
    if (modulus && exponent && builder && OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_N, modulus) == 1
        && OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_E, exponent) == 1 && (params = OSSL_PARAM_BLD_to_param(builder)) != NULL
        && (context = EVP_PKEY_CTX_new_from_name(NULL, "RSA", NULL)) != NULL && EVP_PKEY_fromdata_init(context) == 1) {
        if (EVP_PKEY_fromdata(context, &key, EVP_PKEY_PUBLIC_KEY, params) != 1) key = NULL;
    }
    EVP_PKEY_CTX_free(context);
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(builder);
    BN_free(modulus);
    BN_free(exponent);
    if (key != NULL && EVP_PKEY_get_bits(key) < 2048) {
        EVP_PKEY_free(key);
        key = NULL;
    }
    return key;
}

/* A P-256 public key from its coordinates `x` and `y` (32 bytes each); NULL when the point is
   not on the curve. */
static inline EVP_PKEY *taskbase_p256_public_key(const unsigned char *x, const unsigned char *y) {
    unsigned char point[65];
    point[0] = 0x04;
    memcpy(point + 1, x, 32);
    memcpy(point + 33, y, 32);
    char group[] = "prime256v1";
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME, group, 0),
        OSSL_PARAM_construct_octet_string(OSSL_PKEY_PARAM_PUB_KEY, point, sizeof point),
        OSSL_PARAM_construct_end(),
    };
    EVP_PKEY_CTX *context = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    EVP_PKEY *key = NULL;
    if (context != NULL && EVP_PKEY_fromdata_init(context) == 1 && EVP_PKEY_fromdata(context, &key, EVP_PKEY_PUBLIC_KEY, params) != 1) key = NULL;
    EVP_PKEY_CTX_free(context);
    if (key != NULL) {
        /* fromdata does not check the point; a public-key check does. */
        EVP_PKEY_CTX *check = EVP_PKEY_CTX_new_from_pkey(NULL, key, NULL);
        int valid = check != NULL && EVP_PKEY_public_check(check) == 1;
        EVP_PKEY_CTX_free(check);
        if (!valid) {
            EVP_PKEY_free(key);
            key = NULL;
        }
    }
    return key;
}

/* Whether `signature` signs `data` under `key` with SHA-256: RSASSA-PKCS1-v1_5 (RS256) for an
   RSA key, ECDSA (ES256) for a P-256 key, whose JWS signature is r and s, 32 bytes each, turned
   into the DER form libcrypto verifies. 1 when it does, 0 otherwise. */
static inline int taskbase_verify_sha256(EVP_PKEY *key, int is_ecdsa, const unsigned char *data, size_t length, const unsigned char *signature,
                                         size_t signature_length) {
    unsigned char *der = NULL;
    int der_length = 0;
    if (is_ecdsa) {
        if (signature_length != 64) return 0;
        ECDSA_SIG *pair = ECDSA_SIG_new();
        BIGNUM *r = BN_bin2bn(signature, 32, NULL);
        BIGNUM *s = BN_bin2bn(signature + 32, 32, NULL);
        if (pair == NULL || r == NULL || s == NULL || ECDSA_SIG_set0(pair, r, s) != 1) {
            ECDSA_SIG_free(pair);
            BN_free(r);
            BN_free(s);
            return 0;
        }
        der_length = i2d_ECDSA_SIG(pair, &der);
        ECDSA_SIG_free(pair);
        if (der_length <= 0) return 0;
        signature = der;
        signature_length = (size_t)der_length;
    }
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    int ok = context != NULL && EVP_DigestVerifyInit(context, NULL, EVP_sha256(), NULL, key) == 1
             && EVP_DigestVerify(context, signature, signature_length, data, length) == 1;
    EVP_MD_CTX_free(context);
    OPENSSL_free(der);
    return ok;
}

#endif
