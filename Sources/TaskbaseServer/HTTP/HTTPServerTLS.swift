import CLibCrypto
import Foundation

/// HTTPS for a server: a certificate (chain) and its private key, PEM, which libmicrohttpd hands
/// to GnuTLS (TLS 1.2 and 1.3 only). Checked with libcrypto when made, so a wrong file is named
/// before the daemon, which would only say that it failed, is started.
public struct HTTPServerTLS: Sendable {
    /// The certificate, then any intermediates, PEM.
    public let certificatePEM: String
    /// The private key, PEM, unencrypted.
    public let keyPEM: String

    /// The pair, if `certificatePEM` starts with a certificate and `keyPEM` is its key.
    public init(certificatePEM: String, keyPEM: String) throws(HTTPServerTLSError) {
        switch taskbase_tls_pair_check(certificatePEM, keyPEM) {
        case 0: break
        case 1: throw HTTPServerTLSError("the certificate is not a PEM certificate (-----BEGIN CERTIFICATE-----)")
        case 2: throw HTTPServerTLSError("the key is not an unencrypted PEM private key (-----BEGIN PRIVATE KEY-----)")
        default: throw HTTPServerTLSError("the key is not the certificate's private key")
        }
        self.certificatePEM = certificatePEM
        self.keyPEM = keyPEM
    }

    /// The pair in the files at `certificatePath` and `keyPath`; an error names the file.
    public static func load(certificatePath: String, keyPath: String) throws(HTTPServerTLSError) -> HTTPServerTLS {
        func read(_ path: String, _ what: String) throws(HTTPServerTLSError) -> String {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw HTTPServerTLSError("cannot read the \(what) \(path): no such file, or not readable by this user")
            }
            return String(decoding: data, as: UTF8.self)
        }
        let (certificate, key) = (try read(certificatePath, "certificate"), try read(keyPath, "key"))
        do {
            return try HTTPServerTLS(certificatePEM: certificate, keyPEM: key)
        } catch {
            throw HTTPServerTLSError("\(error.description) (\(certificatePath), \(keyPath))")
        }
    }
}

/// A certificate or key that cannot serve HTTPS, and why.
public struct HTTPServerTLSError: Error, CustomStringConvertible {
    /// What is wrong, naming the file when there is one.
    public let description: String
    init(_ description: String) { self.description = description }
}
