#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/pkcs7.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/x509_vfy.h>

/// The bytes a memory BIO holds (BIO_get_mem_data is a macro, which Swift cannot call).
static inline long masthead_bio_mem_data(BIO *bio, char **data) {
    return BIO_get_mem_data(bio, data);
}

/// A new empty stack of certificates (sk_X509_new_null, typed for Swift).
static inline STACK_OF(X509) *masthead_x509_stack_new(void) {
    return sk_X509_new_null();
}

/// Appends a certificate to a stack without taking a reference; 0 on failure.
static inline int masthead_x509_stack_push(STACK_OF(X509) *stack, X509 *certificate) {
    return sk_X509_push(stack, certificate);
}

/// Frees a stack, not the certificates in it.
static inline void masthead_x509_stack_free(STACK_OF(X509) *stack) {
    sk_X509_free(stack);
}

/// The number of certificates in a stack.
static inline int masthead_x509_stack_count(const STACK_OF(X509) *stack) {
    return sk_X509_num(stack);
}

/// The certificate at `index` in a stack, not referenced.
static inline X509 *masthead_x509_stack_get(const STACK_OF(X509) *stack, int index) {
    return sk_X509_value(stack, index);
}

/// Prints a distinguished name RFC 2253 style but in the order the certificate lists it
/// (XN_FLAG_RFC2253 without XN_FLAG_DN_REV; the flags are macros Swift cannot import).
static inline int masthead_print_name(BIO *bio, const X509_NAME *name) {
    return X509_NAME_print_ex(bio, name, 0, ASN1_STRFLGS_RFC2253 | XN_FLAG_SEP_COMMA_PLUS | XN_FLAG_FN_SN | XN_FLAG_DUMP_UNKNOWN_FIELDS);
}

#include <openssl/ssl.h>

/// Names the server for SNI (SSL_set_tlsext_host_name is a macro); 1 on success.
static inline long masthead_ssl_set_server_name(SSL *ssl, const char *name) {
    return SSL_set_tlsext_host_name(ssl, name);
}

/// Refuses protocol versions below TLS 1.2 (SSL_CTX_set_min_proto_version is a macro); 1 on success.
static inline long masthead_ssl_ctx_require_tls12(SSL_CTX *context) {
    return SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
}
