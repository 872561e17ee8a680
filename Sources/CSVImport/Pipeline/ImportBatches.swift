import TaskCore

/// The batches of one import as the import port consumes them: each `next()` hands over a
/// prepared batch and starts preparing the one after it.
struct ImportBatches: AsyncSequence, Sendable {
    typealias Element = [TaskImportDraft]

    let producer: ImportBatchProducer

    func makeAsyncIterator() -> Iterator {
        Iterator(producer: producer)
    }

    /// Pulls from the producer.
    struct Iterator: AsyncIteratorProtocol {
        let producer: ImportBatchProducer

        mutating func next() async throws -> [TaskImportDraft]? {
            try await producer.next()
        }
    }
}
