import CCrypto
