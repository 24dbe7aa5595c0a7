#if canImport(Glibc)
import Glibc
#endif
import CSSL

/// A self-signed certificate and its key, PEM, for trying TLS out (`trellis tls self-signed`)
/// and for tests; never for production, where a CA-issued certificate belongs.
public struct SelfSignedCertificate: Sendable {
    public enum KeyType: String, Sendable, CaseIterable {
        /// ECDSA on P-256: the smaller, faster handshake.
        case ecdsa
        /// RSA 2048.
        case rsa
    }

    public var certificatePEM: String
    public var privateKeyPEM: String

    /// Makes a new key and a certificate for `hosts` (DNS names or IP addresses, in the subject
    /// alternative names; the first is also the common name), valid from now for `days`.
    /// - Throws: `TLSError` when OpenSSL fails.
    public init(hosts: [String], keyType: KeyType = .ecdsa, days: Int = 365) throws(TLSError) {
        guard let first = hosts.first else { throw TLSError(operation: "self-signed certificate", reason: "no host") }
        guard let key = keyType == .ecdsa ? trellis_generate_ec_p256() : trellis_generate_rsa(2048) else {
            throw TLSError.openSSL("generate \(keyType.rawValue) key")
        }
        defer { EVP_PKEY_free(key) }
        guard let certificate = X509_new() else { throw TLSError.openSSL("X509_new") }
        defer { X509_free(certificate) }
        X509_set_version(certificate, 2)  // v3, for the extensions
        var serial = [UInt8](repeating: 0, count: 16)
        guard RAND_bytes(&serial, Int32(serial.count)) == 1 else { throw TLSError.openSSL("random serial") }
        serial[0] &= 0x7F  // a positive INTEGER
        let serialNumber = BN_bin2bn(serial, Int32(serial.count), nil)
        BN_to_ASN1_INTEGER(serialNumber, X509_get_serialNumber(certificate))
        BN_free(serialNumber)
        X509_gmtime_adj(X509_getm_notBefore(certificate), -60)  // tolerate a little clock skew
        X509_gmtime_adj(X509_getm_notAfter(certificate), days * 86400)
        X509_set_pubkey(certificate, key)
        let name = X509_get_subject_name(certificate)
        X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, first, -1, -1, 0)
        X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC, "Trellis self-signed", -1, -1, 0)
        X509_set_issuer_name(certificate, name)
        let alternativeNames = hosts.map { Self.isIPAddress($0) ? "IP:\($0)" : "DNS:\($0)" }.joined(separator: ",")
        for (nid, value) in [(NID_subject_alt_name, alternativeNames), (NID_basic_constraints, "critical,CA:FALSE"),
                             (NID_ext_key_usage, "serverAuth")] {
            var context = X509V3_CTX()
            X509V3_set_ctx(&context, certificate, certificate, nil, nil, 0)
            guard let extensionValue = X509V3_EXT_conf_nid(nil, &context, nid, value) else {
                throw TLSError.openSSL("certificate extension \(value)")
            }
            X509_add_ext(certificate, extensionValue, -1)
            X509_EXTENSION_free(extensionValue)
        }
        guard X509_sign(certificate, key, EVP_sha256()) > 0 else { throw TLSError.openSSL("sign certificate") }
        certificatePEM = try Self.pem { PEM_write_bio_X509($0, certificate) }
        privateKeyPEM = try Self.pem { PEM_write_bio_PrivateKey($0, key, nil, nil, 0, nil, nil) }
    }

    private static func isIPAddress(_ host: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    /// What `write` puts into a memory BIO, as text.
    private static func pem(_ write: (OpaquePointer?) -> Int32) throws(TLSError) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw TLSError.openSSL("BIO_new") }
        defer { BIO_free(bio) }
        guard write(bio) == 1 else { throw TLSError.openSSL("write PEM") }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while case let n = BIO_read(bio, &chunk, Int32(chunk.count)), n > 0 { bytes += chunk[..<Int(n)] }
        return String(decoding: bytes, as: UTF8.self)
    }
}
