import Foundation
import TaskCore
@testable import TaskbaseWire
import Testing

@Suite("Problem documents")
struct ProblemDocumentTests {
    static let errors: [TaskError] = [
        .notFound(what: "task CORE-7"),
        .permissionDenied(what: "edit tasks in team CORE", why: "vic@example.com is a viewer"),
        .conflict(what: "task CORE-7", currentVersion: 4),
        .alreadyExists(what: "team CORE"),
        .validation(field: "due_date", reason: "not a date: \"tomorrow-ish\""),
    ]

    @Test("every service refusal survives the trip through problem+json unchanged", arguments: errors)
    func roundTrip(error: TaskError) throws {
        let data = try WireJSON.makeEncoder().encode(ProblemDocument(error))
        let problem = try WireJSON.makeDecoder().decode(ProblemDocument.self, from: data)
        #expect(problem.taskError == error)
        #expect(problem.detail == error.description)
    }

    /// Every code, with every value a refusal may carry: the codes that rebuild a `TaskError`
    /// are exactly those the samples above are sent as, and each rebuilt error goes back out
    /// under its own code. A code added for a new `TaskError` case without a sample above
    /// fails here (the switch in `taskError` already makes it say how it is rebuilt).
    @Test("the codes that rebuild a TaskError are exactly the samples' codes, and each comes back out as itself")
    func everyCode() throws {
        let sampleCodes = Set(Self.errors.map { ProblemDocument($0).code })
        #expect(sampleCodes.count == Self.errors.count, "two samples of one code")
        var rebuilding: Set<String> = []
        for code in ProblemCode.allCases {
            let full = ProblemDocument(code, detail: "d", field: "title", reason: "empty", what: "task CORE-7", why: "a viewer", currentVersion: 3)
            guard let error = full.taskError else { continue }
            rebuilding.insert(code.rawValue)
            #expect(ProblemDocument(error).code == code.rawValue, "\(code) comes back as \(ProblemDocument(error).code)")
            #expect(ProblemDocument(error).taskError == error)
        }
        #expect(rebuilding == sampleCodes)
        #expect(ProblemDocument(.notFound, detail: "d", what: "x").with(code: "no_such_code").taskError == nil)
    }

    @Test("each refusal has the status the API documents")
    func statuses() {
        #expect(Self.errors.map { ProblemDocument($0).status } == [404, 403, 412, 409, 422])
        #expect(
            ProblemDocument(.validation(field: "body", reason: "not JSON"), status: 400).taskError == .validation(field: "body", reason: "not JSON"))
    }

    @Test("a conflict carries the current version under current_version")
    func conflictFields() throws {
        let json = String(
            decoding: try WireJSON.makeEncoder().encode(ProblemDocument(.conflict(what: "task CORE-7", currentVersion: 4))), as: UTF8.self)
        #expect(json.contains(#""current_version":4"#))
        #expect(json.contains(#""type":"urn:taskbase:problem:conflict""#))
        #expect(!json.contains("field"))
    }

    @Test("problems of the HTTP layer are no service refusal")
    func httpProblems() {
        #expect(ProblemDocument(.unauthorized, detail: "no token").taskError == nil)
        #expect(ProblemDocument(.unavailable, detail: "busy").status == 503)
        var incomplete = ProblemDocument(.conflict(what: "task CORE-7", currentVersion: 4))
        incomplete.currentVersion = nil
        #expect(incomplete.taskError == nil)
    }
}

@Suite("Request bodies")
struct RequestBodyTests {
    func patch(_ json: String) throws -> TaskMergePatch {
        try WireJSON.decodeBody(TaskMergePatch.self, from: Data(json.utf8))
    }

    @Test("a merge patch leaves absent fields, clears null ones and sets the rest")
    func mergePatch() throws {
        let changes = try patch(#"{"due_date": null, "category": "Backend", "title": "New"}"#).changes()
        #expect(changes.title == "New")
        #expect(changes.dueDate == .set(nil))
        #expect(changes.category == .set("Backend"))
        #expect(changes.assignee == .unchanged)
        #expect(changes.status == nil)
        #expect(try patch(#"{"notes": null}"#).changes().notes == "")
    }

    @Test("a merge patch encodes only what changes, with null for a cleared field")
    func mergePatchEncoding() throws {
        var patch = TaskMergePatch()
        patch.assignee = .set(nil)
        patch.priority = .set("high")
        let json = String(decoding: try WireJSON.makeEncoder().encode(patch), as: UTF8.self)
        #expect(json == #"{"assignee":null,"priority":"high"}"#)
        #expect(try self.patch(json) == patch)
    }

    @Test("null for a required field, an unknown field or a wrong type is a validation error naming it")
    func mergePatchRefusals() throws {
        #expect(throws: TaskError.validation(field: "title", reason: "the title cannot be null; leave it out to keep it")) {
            try patch(#"{"title": null}"#).changes()
        }
        #expect(throws: TaskError.validation(field: "colour", reason: "a task has no such field")) { try patch(#"{"colour": "red"}"#) }
        #expect(throws: TaskError.validation(field: "priority", reason: "the priority must be a string")) { try patch(#"{"priority": 3}"#) }
        #expect(throws: TaskError.validation(field: "body", reason: "the body is not valid JSON (UTF-8) of the documented shape")) {
            try patch("{\"title\": \"\u{FF}")
        }
        #expect(throws: TaskError.self) { try patch(#"{"status": "finished"}"#).changes() }
    }

    @Test("a create request needs a title and defaults the rest")
    func createTask() throws {
        let draft = try WireJSON.decodeBody(CreateTaskRequest.self, from: Data(#"{"title": " Fix it ", "due_date": "2026-12-24"}"#.utf8)).draft()
        #expect(draft.title == "Fix it")
        #expect(draft.status == .open)
        #expect(draft.dueDate == CalendarDate(year: 2026, month: 12, day: 24))
        #expect(throws: TaskError.validation(field: "title", reason: "the title is required")) {
            try WireJSON.decodeBody(CreateTaskRequest.self, from: Data(#"{"notes": "x"}"#.utf8))
        }
        #expect(throws: TaskError.validation(field: "title", reason: "the title must be a string, not null")) {
            try WireJSON.decodeBody(CreateTaskRequest.self, from: Data(#"{"title": null}"#.utf8))
        }
    }

    @Test("a request body with a field it does not take is refused naming the field, never half-read")
    func unknownFields() throws {
        #expect(throws: TaskError.validation(field: "colour", reason: "colour is not a field of this request, which takes key, name")) {
            try WireJSON.decodeBody(CreateTeamRequest.self, from: Data(#"{"key": "CORE", "name": "Core", "colour": "red"}"#.utf8))
        }
        #expect(throws: TaskError.self) { try WireJSON.decodeBody(CreateTokenRequest.self, from: Data(#"{"name": "ci", "x": 42}"#.utf8)) }
        #expect(throws: TaskError.self) { try WireJSON.decodeBody(CreateTaskRequest.self, from: Data(#"{"title": "T", "due": "2026-01-01"}"#.utf8)) }
        #expect(try WireJSON.decodeBody(MemberRoleRequest.self, from: Data(#"{"role": "viewer"}"#.utf8)).role == "viewer")
    }

    @Test("a body naming a field twice is refused naming it, however the second is spelled; the same name in two objects is fine")
    func duplicateNames() throws {
        // JSONDecoder kept the first title and JSONSerialization (as Python or a proxy) the
        // last: the server applied one while anything in front of it read the other.
        #expect(throws: TaskError.validation(field: "title", reason: "the title is given twice: send each field once")) {
            try patch(#"{"title": "Shown to the proxy", "priority": "low", "title": "Applied"}"#)
        }
        #expect(throws: TaskError.validation(field: "due_date", reason: "the due_date is given twice: send each field once")) {
            try patch(#"{"due_date": null, "\u0064ue_date": "2026-01-01"}"#)
        }
        #expect(JSONDuplicateNames.first(in: Array(#"{"a": {"b": 1, "c": [{"d": 1}, {"d": 2, "d": 3}]}}"#.utf8)) == "a.c.1.d")
        #expect(JSONDuplicateNames.first(in: Array(#"{"a": {"x": 1}, "b": {"x": 1}, "c": ["x", "x"], "x": "\"x\": 1"}"#.utf8)) == nil)
        #expect(JSONDuplicateNames.first(in: Array(#"{"a": "unterminated"#.utf8)) == nil)
        #expect(JSONDuplicateNames.first(in: Array("}]]{\"".utf8)) == nil)
        #expect(try patch(#"{"title": "Once", "notes": "title"}"#).changes().title == "Once")
    }
}

@Suite("Documents decode to what they were made of")
struct DocumentRoundTripTests {
    static let noon = Date(timeIntervalSince1970: 1_773_144_000)
    static let ann = User(id: UserID(1), email: "ann@example.com", displayName: "Ann", isDisabled: false, createdAt: noon)
    static let team = Team(id: TeamID(3), key: try! TeamKey("CORE"), name: "Core", createdAt: noon)

    func roundTrip<Document: Codable & Equatable>(_ document: Document) throws -> Document {
        let decoded = try WireJSON.makeDecoder().decode(Document.self, from: try WireJSON.makeEncoder().encode(document))
        #expect(decoded == document)
        return decoded
    }

    @Test("a task document rebuilds the task")
    func task() throws {
        let task = TaskItem(
            id: TaskID(9), teamID: Self.team.id, key: TaskKey(team: Self.team.key, number: 7), title: "Fix", notes: "n", status: .inProgress,
            priority: .high, dueDate: CalendarDate(year: 2026, month: 3, day: 1), assigneeID: Self.ann.id, category: nil, externalID: "X-1",
            createdBy: Self.ann.id, createdAt: Self.noon, updatedBy: Self.ann.id, updatedAt: Self.noon, version: 3)
        let document = try roundTrip(
            TaskDocument(
                task, users: UserDirectory(members: [Member(user: Self.ann, role: .owner)]), today: CalendarDate(year: 2026, month: 3, day: 10)!))
        #expect(document.overdue)
        #expect(try document.task(teamID: Self.team.id) { $0 == Self.ann.email ? Self.ann.id : nil } == task)
    }

    @Test("a member and a removal write the user's fields alike, byte for byte as before they shared them")
    func memberBytes() throws {
        let encoder = WireJSON.makeEncoder()
        let user = #""created_at":"2026-03-10T12:00:00.000000Z","disabled":false,"display_name":"Ann","email":"ann@example.com""#
        let member = String(decoding: try encoder.encode(MemberDocument(Member(user: Self.ann, role: .viewer))), as: UTF8.self)
        #expect(member == #"{"# + user + #","role":"viewer","user_id":1}"#)
        let removal = MemberRemovalDocument(MemberRemoval(team: Self.team.key, user: Self.ann, unassignedTasks: 2))
        #expect(String(decoding: try encoder.encode(removal), as: UTF8.self) == #"{"# + user + #","team":"CORE","unassigned_tasks":2,"user_id":1}"#)
    }

    @Test("users, teams, members and changes rebuild their values")
    func others() throws {
        #expect(try roundTrip(UserDocument(Self.ann)).user == Self.ann)
        #expect(try roundTrip(TeamDocument(Self.team, role: .admin)).membership() == TeamMembership(team: Self.team, role: .admin))
        #expect(
            try roundTrip(MemberDocument(Member(user: Self.ann, role: .viewer))).member() == Member(user: Self.ann, role: .viewer)
        )
        let removal = MemberRemoval(team: Self.team.key, user: Self.ann, unassignedTasks: 2)
        #expect(try roundTrip(MemberRemovalDocument(removal)).removal() == removal)
        let change = TaskChange(
            kind: .updated, key: TaskKey(team: Self.team.key, number: 7), taskID: TaskID(9), version: 2, actorID: Self.ann.id, at: Self.noon,
            sequence: 12)
        #expect(try roundTrip(ChangeDocument(change, actor: Self.ann.email, title: nil)).change(actorID: Self.ann.id) == change)
        _ = try roundTrip(TaskPageDocument(tasks: [], nextCursor: JSONNullable("abc")))
    }
}

extension ProblemDocument {
    /// The same problem under another `code` (a server newer than the client may send one).
    fileprivate func with(code: String) -> ProblemDocument {
        var copy = self
        copy.code = code
        return copy
    }
}
