// OpenSSL's libcrypto: hashes, HMAC, random bytes and constant-time comparison (TrellisCrypto).
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
