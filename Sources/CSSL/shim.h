// OpenSSL's libssl: the TLS record layer of TrellisHTTP's TLS listeners. Only what Swift cannot
// call directly lives here: OpenSSL's macros (which Swift does not import), variadic key
// generation, and the ALPN callback (a C function pointer with no captured state).
#ifndef TRELLIS_SSL_H
#define TRELLIS_SSL_H
#include <openssl/ssl.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/rand.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <string.h>

static inline int trellis_ssl_ctx_set_min_proto_tls12(SSL_CTX *ctx) {
    return (int)SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
}

/// Modes every Trellis TLS connection uses: release the 16 KiB record buffers while a connection
/// is idle (nginx does too), and partial writes from a buffer that may move between retries
/// (the output is gathered anew into the loop's scratch buffer each time).
static inline long trellis_ssl_ctx_set_modes(SSL_CTX *ctx) {
    return SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS | SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
}

/// No renegotiation (TLS 1.2's was the source of CVE-2009-3555 and of CPU-exhaustion attacks),
/// no compression (CRIME), the server's cipher order, a new ECDHE key per handshake.
static inline uint64_t trellis_ssl_ctx_set_server_options(SSL_CTX *ctx) {
    return SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION | SSL_OP_CIPHER_SERVER_PREFERENCE
                                    | SSL_OP_SINGLE_ECDH_USE);
}

/// Key-exchange groups, strongest-needed first: X25519, P-256, P-384 (Mozilla "intermediate"; P-521
/// and X448 cost more and buy nothing a client needs).
static inline int trellis_ssl_ctx_set_groups(SSL_CTX *ctx) {
    return (int)SSL_CTX_set1_groups_list(ctx, "X25519:prime256v1:secp384r1");
}

static inline long trellis_ssl_ctx_set_session_cache(SSL_CTX *ctx, long size, long timeoutSeconds) {
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_SERVER);
    SSL_CTX_set_timeout(ctx, timeoutSeconds);
    return SSL_CTX_sess_set_cache_size(ctx, size);
}

static inline long trellis_ssl_ctx_session_hits(SSL_CTX *ctx) { return SSL_CTX_sess_hits(ctx); }

/// ALPN (RFC 7301): "h2" when the server speaks HTTP/2 (`arg` non-NULL) and the client offers
/// it, else "http/1.1". A client that offers ALPN with neither gets no_application_protocol, as
/// nginx answers; one that offers none is served HTTP/1.1.
static int trellis_alpn_select(SSL *ssl, const unsigned char **out, unsigned char *outlen,
                               const unsigned char *in, unsigned int inlen, void *arg) {
    (void)ssl;
    static const unsigned char both[] = "\x02h2\x08http/1.1";
    static const unsigned char http11[] = "\x08http/1.1";
    const unsigned char *ours = arg ? both : http11;
    unsigned int oursLength = arg ? sizeof(both) - 1 : sizeof(http11) - 1;
    unsigned char *selected = NULL;
    // The server's order: the first of ours the client offers.
    if (SSL_select_next_proto(&selected, outlen, ours, oursLength, in, inlen) != OPENSSL_NPN_NEGOTIATED) {
        return SSL_TLSEXT_ERR_ALERT_FATAL;
    }
    *out = selected;
    return SSL_TLSEXT_ERR_OK;
}

/// Offers "http/1.1", and "h2" first when `http2` is non-zero.
static inline void trellis_ssl_ctx_set_alpn(SSL_CTX *ctx, int http2) {
    SSL_CTX_set_alpn_select_cb(ctx, trellis_alpn_select, http2 ? (void *)1 : NULL);
}

/// SNI for a client handshake (RFC 6066 §3): a macro in OpenSSL.
static inline int trellis_ssl_set_server_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

static inline EVP_PKEY *trellis_generate_ec_p256(void) { return EVP_EC_gen("P-256"); }
static inline EVP_PKEY *trellis_generate_rsa(unsigned int bits) { return EVP_RSA_gen(bits); }

#endif
