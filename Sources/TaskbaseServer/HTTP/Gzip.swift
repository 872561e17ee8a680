import CSVImport
import CZlib

/// gzip (RFC 1952) through zlib: answers compressed whole, request bodies unpacked as a stream.
public enum Gzip {
    /// `bytes` gzipped at `level`; nil if zlib fails (the body then goes as it is).
    public static func compress(_ bytes: [UInt8], level: Int32) -> [UInt8]? {
        var stream = z_stream()
        guard taskbase_deflate_init_gzip(&stream, level) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(bytes.count))))
        let status = bytes.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.avail_in = uInt(input.count)
                stream.next_out = out.baseAddress
                stream.avail_out = uInt(out.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { return nil }
        output.removeSubrange(Int(stream.total_out)...)
        return output
    }

    /// A gzip stream made piece by piece, for a body sent as it is written (an export): each
    /// call returns the compressed bytes ready so far; `flush` makes everything given so far
    /// decodable by the client now (a sync flush, a few bytes dearer); `finish` ends the stream.
    /// Not shared between tasks.
    public final class Stream {
        private var stream = z_stream()
        private var output = [UInt8](repeating: 0, count: 64 << 10)

        /// A stream at `level`; nil if zlib cannot start one.
        public init?(level: Int32) {
            guard taskbase_deflate_init_gzip(&stream, level) == Z_OK else { return nil }
        }

        deinit { deflateEnd(&stream) }

        /// `bytes` compressed: what zlib has ready (often nothing until its window fills, or
        /// everything so far with `flush`); nil if zlib fails.
        public func append(_ bytes: UnsafeRawBufferPointer, flush: Bool = false) -> [UInt8]? {
            run(bytes, mode: flush ? Z_SYNC_FLUSH : Z_NO_FLUSH)
        }

        /// The stream's last bytes (what zlib still holds and gzip's trailer); nil if zlib fails.
        public func finish() -> [UInt8]? {
            run(UnsafeRawBufferPointer(start: nil, count: 0), mode: Z_FINISH)
        }

        private func run(_ bytes: UnsafeRawBufferPointer, mode: Int32) -> [UInt8]? {
            var produced: [UInt8] = []
            stream.next_in = UnsafeMutablePointer(mutating: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self))
            stream.avail_in = uInt(bytes.count)
            while true {
                let (status, made) = output.withUnsafeMutableBufferPointer { out -> (Int32, Int) in
                    stream.next_out = out.baseAddress
                    stream.avail_out = uInt(out.count)
                    let status = deflate(&stream, mode)
                    return (status, out.count - Int(stream.avail_out))
                }
                produced += output[..<made]
                if status == Z_STREAM_END { return produced }
                // Z_BUF_ERROR is "no progress possible": harmless when nothing was left to do.
                guard status == Z_OK || (status == Z_BUF_ERROR && made == 0) else { return nil }
                if mode == Z_FINISH {
                    if status == Z_BUF_ERROR { return nil }
                    continue
                }
                // Done once zlib took all the input and left room in the output (it then holds
                // nothing more for this mode); a full output may mean more is waiting.
                if stream.avail_in == 0 && made < output.count { return produced }
            }
        }
    }

    /// Why gzipped bytes could not be unpacked.
    public enum InflateError: Error, Equatable {
        /// Not gzip, damaged, or cut short.
        case notGzip
        /// It unpacks to more than the limit; unpacking stopped there.
        case tooLarge(limit: Int)
        /// The source could not be read, or the sink refused its bytes.
        case io(String)
    }

    /// Unpacks the gzip in `source` (one member or several, as `cat a.gz b.gz` makes), handing
    /// each piece to `sink`, never more than `limit` bytes in all: a small body that unpacks to
    /// gigabytes stops at the limit.
    public static func inflate(
        from source: inout some ByteSource, limit: Int, into sink: (UnsafeRawBufferPointer) -> Bool
    ) throws(InflateError) {
        var stream = z_stream()
        guard taskbase_inflate_init_gzip(&stream) == Z_OK else { throw .io("zlib could not start") }
        defer { inflateEnd(&stream) }
        var input = [UInt8](repeating: 0, count: 64 << 10)
        var output = [UInt8](repeating: 0, count: 64 << 10)
        var (produced, inMember, sawInput) = (0, false, false)
        while true {
            let count: Int
            do {
                count = try input.withUnsafeMutableBytes { try source.read(into: $0) }
            } catch {
                throw .io(String(describing: error))
            }
            if count == 0 { break }
            sawInput = true
            var offset = 0
            // Until this input is used up and zlib holds nothing more for the output: a full
            // output buffer may leave unpacked bytes inside zlib with no input left.
            var outputFull = false
            repeat {
                if !inMember {
                    guard inflateReset(&stream) == Z_OK else { throw .notGzip }
                    inMember = true
                }
                let (status, consumed, made) = input.withUnsafeMutableBufferPointer { inBuffer in
                    output.withUnsafeMutableBufferPointer { outBuffer -> (Int32, Int, Int) in
                        stream.next_in = inBuffer.baseAddress! + offset
                        stream.avail_in = uInt(count - offset)
                        stream.next_out = outBuffer.baseAddress
                        stream.avail_out = uInt(outBuffer.count)
                        let status = CZlib.inflate(&stream, Z_NO_FLUSH)
                        return (status, count - offset - Int(stream.avail_in), outBuffer.count - Int(stream.avail_out))
                    }
                }
                offset += consumed
                produced += made
                outputFull = made == output.count
                guard produced <= limit else { throw .tooLarge(limit: limit) }
                if made > 0, !output.withUnsafeBytes({ sink(UnsafeRawBufferPointer(rebasing: $0[..<made])) }) {
                    throw .io("the unpacked body could not be kept")
                }
                switch status {
                case Z_STREAM_END: inMember = false
                case Z_OK: break
                // No progress possible: zlib wants more input than this read had.
                case Z_BUF_ERROR where consumed == 0 && made == 0 && offset == count: outputFull = false
                default: throw .notGzip
                }
            } while offset < count || (outputFull && inMember)
        }
        guard sawInput, !inMember else { throw .notGzip }
    }

    /// The bytes `gzipped` holds; nil when it is not whole gzip, or it would unpack to more
    /// than `limit` bytes.
    public static func decompress(_ gzipped: [UInt8], limit: Int = 64 << 20) -> [UInt8]? {
        var source = MemoryByteSource(gzipped)
        var output: [UInt8] = []
        do {
            try inflate(from: &source, limit: limit) { piece in
                output += piece
                return true
            }
        } catch {
            return nil
        }
        return output
    }
}
