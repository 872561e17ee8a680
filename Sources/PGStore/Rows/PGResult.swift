import CLibPQ
import Glibc
import Synchronization

/// Owns one `PGresult` and clears it exactly once.
final class PGResult: @unchecked Sendable {
    let pointer: OpaquePointer

    init(_ pointer: OpaquePointer) { self.pointer = pointer }

    deinit { PQclear(pointer) }

    var status: ExecStatusType { PQresultStatus(pointer) }
    var rowCount: Int { Int(PQntuples(pointer)) }
    var columnCount: Int { Int(PQnfields(pointer)) }

    /// The count from the command tag (`INSERT 0 5` → 5), or 0.
    var affectedRows: Int {
        guard let text = PQcmdTuples(pointer), text.pointee != 0 else { return 0 }
        return Int(String(cString: text)) ?? 0
    }

    var commandTag: String { String(cString: PQcmdStatus(pointer)) }

    func columnName(_ index: Int) -> String { String(cString: PQfname(pointer, Int32(index))) }

    /// Where the last name lookup ended: rows are mostly read column after column, so the
    /// next lookup starts just after it and usually compares one name.
    private let lookupHint = Atomic<Int>(0)

    /// The index of the column called `name` (exact, case-sensitive), or nil.
    func columnIndex(_ name: String) -> Int? {
        let count = columnCount
        guard count > 0 else { return nil }
        let start = lookupHint.load(ordering: .relaxed) % count
        return name.withCString { wanted in
            var index = start
            repeat {
                if strcmp(PQfname(pointer, Int32(index)), wanted) == 0 {
                    lookupHint.store(index + 1, ordering: .relaxed)
                    return index
                }
                index = index + 1 == count ? 0 : index + 1
            } while index != start
            return nil
        }
    }

    func field(row: Int, column: Int, name: String? = nil) -> PGField {
        let r = Int32(row), c = Int32(column)
        let type = PQftype(pointer, c)
        let label = name ?? columnName(column)
        if PQgetisnull(pointer, r, c) == 1 { return PGField(bytes: nil, typeOID: type, column: label) }
        let length = Int(PQgetlength(pointer, r, c))
        let start = UnsafeRawPointer(PQgetvalue(pointer, r, c)!).assumingMemoryBound(to: UInt8.self)
        return PGField(bytes: UnsafeBufferPointer(start: start, count: length), typeOID: type, column: label)
    }
}
