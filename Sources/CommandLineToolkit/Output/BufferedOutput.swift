import Foundation

/// Collects bytes and hands them to a sink in chunks of about `capacity`, so streaming writers
/// (CSV, JSON arrays) make few system calls and hold flat memory whatever the output's size.
final class BufferedOutput {
    private let capacity: Int
    private let sink: (UnsafeRawBufferPointer) throws -> Void
    private var buffer: [UInt8] = []

    init(capacity: Int, sink: @escaping (UnsafeRawBufferPointer) throws -> Void) {
        self.capacity = capacity
        self.sink = sink
        buffer.reserveCapacity(capacity)
    }

    /// A sink writing every byte to an open file descriptor.
    static func writing(to fileDescriptor: Int32) -> (UnsafeRawBufferPointer) throws -> Void {
        { bytes in try StandardStream.writeAll(bytes, to: fileDescriptor) }
    }

    func append(_ byte: UInt8) {
        buffer.append(byte)
    }

    func append<Bytes: Sequence>(contentsOf bytes: Bytes) where Bytes.Element == UInt8 {
        buffer.append(contentsOf: bytes)
    }

    /// Hands the buffer to the sink once it has reached its capacity.
    func flushIfFull() throws {
        if buffer.count >= capacity { try flush() }
    }

    /// Hands everything buffered to the sink.
    func flush() throws {
        guard !buffer.isEmpty else { return }
        try buffer.withUnsafeBytes { try sink($0) }
        buffer.removeAll(keepingCapacity: true)
    }
}
