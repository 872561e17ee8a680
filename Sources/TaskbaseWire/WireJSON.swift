import Foundation
import TaskCore

/// The JSON settings every Taskbase document is written and read with: sorted keys, no escaped
/// slashes, ISO 8601 dates to the microsecond (as stores keep them, so a client rebuilds
/// exactly the `Date` the service made; whole seconds are read too).
public enum WireJSON {
    /// A compact encoder (one line), as the event stream and the HTTP API write.
    public static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(WireDate.text(date))
        }
        return encoder
    }

    /// A decoder for what the encoder (or `taskctl --json`) wrote.
    public static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = WireDate.date(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(text) is not an ISO 8601 UTC time")
            }
            return date
        }
        return decoder
    }
}

extension WireJSON {
    /// Decodes a request body; anything wrong is a `TaskError.validation` naming the field (by
    /// its JSON path) or `body` when the text is not JSON of the expected shape at all. An
    /// object naming a member twice is refused, whichever value a reader would keep.
    public static func decodeBody<Document: Decodable>(_ type: Document.Type, from data: Data) throws -> Document {
        // UTF-16 and UTF-32, which the decoders also read, hold NUL bytes (JSON's own characters
        // are ASCII); JSON between systems is UTF-8 (RFC 8259 §8.1). Read anyway, such a body
        // once passed the check below: its names never decoded on their own.
        if data.contains(0) {
            throw TaskError.validation(
                field: "body", reason: "the body is not UTF-8 (it holds NUL bytes, as UTF-16 or UTF-32 text does): send JSON as UTF-8")
        }
        if let twice = JSONDuplicateNames.first(in: data) {
            throw TaskError.validation(field: twice, reason: "the \(TaskError.spoken(twice)) is given twice: send each field once")
        }
        if let closed = type as? any ClosedRequestBody.Type { try refuseUnknownFields(in: data, known: closed.fieldNames) }
        do {
            return try makeDecoder().decode(type, from: data)
        } catch let error as TaskError {
            throw error
        } catch let DecodingError.keyNotFound(key, context) {
            throw refusal(of: context.codingPath + [key], "is required")
        } catch let DecodingError.typeMismatch(type, context) {
            throw refusal(of: context.codingPath, "must be \(jsonType(type))")
        } catch let DecodingError.valueNotFound(type, context) {
            throw refusal(of: context.codingPath, "must be \(jsonType(type)), not null")
        } catch let DecodingError.dataCorrupted(context) where !context.codingPath.isEmpty {
            throw TaskError.validation(field: path(context.codingPath), reason: context.debugDescription)
        } catch {
            throw refusal(of: [], "is not valid JSON (UTF-8) of the documented shape")
        }
    }

    /// A JSON object's first key (in sorted order) that is not in `known`, as a validation error.
    private static func refuseUnknownFields(in data: Data, known: Set<String>) throws {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return }
        if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
            throw TaskError.validation(
                field: unknown, reason: "\(unknown) is not a field of this request, which takes \(known.sorted().joined(separator: ", "))")
        }
    }

    /// The refusal of the value at `keys` (the body when empty), whose reason names it:
    /// "the title is required".
    private static func refusal(of keys: [any CodingKey], _ predicate: String) -> TaskError {
        let field = path(keys)
        return .validation(field: field, reason: "the \(TaskError.spoken(field)) \(predicate)")
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.isEmpty ? "body" : keys.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
    }

    private static func jsonType(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type, is Int64.Type: "an integer"
        case is Bool.Type: "true or false"
        default: "a JSON object"
        }
    }
}

/// A request body with a fixed set of fields: `WireJSON.decodeBody` refuses any other key (422
/// naming it), so a misspelt field is never silently ignored.
public protocol ClosedRequestBody: Decodable {
    /// The JSON keys the body takes.
    static var fieldNames: Set<String> { get }
}

extension CreateTaskRequest: ClosedRequestBody {
    /// `title`, `notes`, `status`, `priority`, `due_date`, `assignee`, `category`, `external_id`.
    public static var fieldNames: Set<String> { ["title", "notes", "status", "priority", "due_date", "assignee", "category", "external_id"] }
}

extension CreateTeamRequest: ClosedRequestBody {
    /// `key`, `name`.
    public static var fieldNames: Set<String> { ["key", "name"] }
}

extension RenameTeamRequest: ClosedRequestBody {
    /// `name`.
    public static var fieldNames: Set<String> { ["name"] }
}

extension MemberRoleRequest: ClosedRequestBody {
    /// `role`.
    public static var fieldNames: Set<String> { ["role"] }
}

extension CreateTokenRequest: ClosedRequestBody {
    /// `name`, `expires_in`.
    public static var fieldNames: Set<String> { ["name", "expires_in"] }
}
