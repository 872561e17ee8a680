import TaskCore

/// The proxies whose `X-Forwarded-For` is believed (`--trusted-proxy`): addresses and CIDR
/// blocks, IPv4 or IPv6. Behind a proxy every connection comes from the proxy; without this,
/// every client shares the proxy's allowance of failed token lookups, so one client inventing
/// tokens would shut out every other client's first request. With it, a request whose
/// connection comes from a trusted proxy is charged to the address that proxy says it came
/// from. The header is read from the right, the end the nearest proxy wrote: each trusted hop
/// is passed over, and the first address that is not trusted is the client. What a client
/// writes in the header itself is never reached past an address it does not control, and a
/// connection from anywhere else is charged to its own address whatever it sends.
public struct TrustedProxies: Sendable, Equatable {
    /// One address or block: the address with its host bits cleared, and its prefix length.
    struct Block: Sendable, Equatable {
        let network: PeerAddress
        let prefixLength: Int

        func contains(_ address: PeerAddress) -> Bool {
            Self.masked(address, prefixLength) == network
        }

        static func masked(_ address: PeerAddress, _ length: Int) -> PeerAddress {
            func mask(_ bits: Int) -> UInt64 { bits <= 0 ? 0 : bits >= 64 ? .max : ~(UInt64.max >> UInt64(bits)) }
            return PeerAddress(high: address.high & mask(length), low: address.low & mask(length - 64))
        }
    }

    let blocks: [Block]

    /// None: every request is charged to its connection's address.
    public static let none = TrustedProxies(blocks: [])

    init(blocks: [Block]) {
        self.blocks = blocks
    }

    /// Reads a comma-separated list, `10.0.0.0/8, 127.0.0.1, fd00::/8`; an empty list trusts
    /// none. Throws naming the entry that is neither an address nor a block.
    public init(parsing list: String) throws {
        var blocks: [Block] = []
        for entry in list.split(separator: ",").map({ $0.trimmingSpaces() }) where !entry.isEmpty {
            let parts = entry.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            guard let address = PeerAddress(parsing: parts[0]) else {
                throw TrustedProxiesError(entry: entry, reason: "not an IPv4 or IPv6 address")
            }
            // An IPv4 block counts its bits from the start of the IPv4 part.
            let (offset, width) = address.isIPv4 ? (96, 32) : (0, 128)
            var length = width
            if parts.count == 2 {
                guard let given = Int(parts[1]), (0...width).contains(given) else {
                    throw TrustedProxiesError(entry: entry, reason: "the prefix length must be 0 to \(width)")
                }
                length = given
            }
            let block = Block(network: Block.masked(address, offset + length), prefixLength: offset + length)
            guard block.network == address else {
                throw TrustedProxiesError(entry: entry, reason: "host bits are set past the prefix; the block is \(block.network)/\(length)")
            }
            blocks.append(block)
        }
        self.init(blocks: blocks)
    }

    /// Whether `address` is a trusted proxy.
    public func contains(_ address: PeerAddress) -> Bool {
        blocks.contains { $0.contains(address) }
    }

    /// The address to charge `request` to: its connection's, unless that is a trusted proxy
    /// and `X-Forwarded-For` names an address before it (read from the right, past trusted
    /// hops). An entry that is not an address ends the walk at the last trusted hop read.
    public func client(of request: HTTPRequest) -> PeerAddress? {
        guard !blocks.isEmpty, var client = request.peer, contains(client), let forwarded = request.header("x-forwarded-for") else {
            return request.peer
        }
        for entry in forwarded.split(separator: ",").reversed() {
            guard let address = PeerAddress(parsing: entry.trimmingSpaces()) else { return client }
            client = address
            if !contains(address) { return address }
        }
        return client
    }
}

/// A `--trusted-proxy` entry that cannot be read.
public struct TrustedProxiesError: Error, CustomStringConvertible {
    public let entry: String
    public let reason: String

    public var description: String { "--trusted-proxy: \"\(entry)\": \(reason)" }
}
