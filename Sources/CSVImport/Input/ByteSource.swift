/// Where a `CSVReader` gets its bytes: a file, a pipe, standard input, or memory.
///
/// The reader asks for one chunk at a time, so a source never has to hold more than the
/// chunk it is handing over.
public protocol ByteSource {
    /// Fills the start of `buffer` with the next bytes and returns how many it wrote;
    /// 0 means the input has ended.
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int

    /// The total size of the input when it is known in advance (a regular file), so progress
    /// can be shown in percent; `nil` for pipes and standard input.
    var totalByteCount: Int? { get }
}
