import Foundation
import Hashing
import Testing

@Suite("SHA-256 (libcrypto)")
struct SHA256Tests {
    @Test(
        "matches the NIST FIPS 180-4 example vectors",
        arguments: [
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
            (
                "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
                "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
            ),
        ])
    func nistVectors(message: String, digest: String) {
        #expect(SHA256.hexDigest(of: Array(message.utf8)) == digest)
    }

    @Test("hashes one million 'a' (the NIST long message)")
    func millionA() {
        let digest = SHA256.hexDigest(of: [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))
        #expect(digest == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test(
        "pads correctly around the 55/56/64-byte block boundaries",
        arguments: [
            (55, "d5e285683cd4efc02d021a5c62014694958901005d6f71e89e0989fac77e4072"),
            (56, "04c26261370ee7541549d16dee320c723e3fd14671e66a099afe0a377c16888e"),
            (63, "75220b47218278e656f2013bb8f0c455a25eaf01e86c64924e9d48d89776d6f2"),
            (64, "7ce100971f64e7001e8fe5a51973ecdfe1ced42befe7ee8d5fd6219506b5393c"),
            (65, "9537c5fdf120482f7d58d25e9ed583f52c02b4e304ea814db1633ad565aed7e9"),
        ])
    func blockBoundaries(length: Int, digest: String) {
        #expect(SHA256.hexDigest(of: [UInt8](repeating: UInt8(ascii: "x"), count: length)) == digest)
    }

    @Test("feeding in pieces of any size gives the same digest as feeding at once")
    func incremental() {
        let bytes = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let whole = SHA256.hexDigest(of: bytes)
        for pieceSize in [1, 7, 63, 64, 65, 200] {
            var hasher = SHA256()
            for start in stride(from: 0, to: bytes.count, by: pieceSize) {
                hasher.update(bytes[start..<min(start + pieceSize, bytes.count)])
            }
            #expect(hasher.finalize().map { String(format: "%02x", $0) }.joined() == whole, "pieces of \(pieceSize)")
        }
    }
}
