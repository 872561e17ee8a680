import TaskCore
import Testing

/// The field a throwing expression names, or nil when it does not throw a validation error.
private func invalidField(_ body: () throws -> Void) -> String? {
    do {
        try body()
        return nil
    } catch TaskError.validation(let field, _) {
        return field
    } catch {
        return "unexpected \(error)"
    }
}

@Suite("Validation")
struct ValidationTests {
    @Test("a refused value is quoted whole up to 80 characters, a longer one cut with its size")
    func refusedValuesQuotedShort() throws {
        #expect(throws: TaskError.validation(field: "status", reason: "\"later\" is not one of open, in_progress, done")) {
            try TaskStatus(parsing: "later")
        }
        let huge = String(repeating: "S", count: 1_000_000)
        let refusals: [() throws -> Void] = [
            { _ = try TaskStatus(parsing: huge) }, { _ = try TaskPriority(parsing: huge) }, { _ = try CalendarDate(iso: huge, field: "dueDate") },
            { _ = try TaskKey(parsing: huge) },
        ]
        for refuse in refusals {
            do {
                try refuse()
                Issue.record("not refused")
            } catch TaskError.validation(_, let reason) {
                // Once the whole megabyte, in every refused row of an import's answer.
                #expect(reason.utf8.count < 300 && reason.contains("SSSS\"… (1000000 bytes)"), "\(reason.prefix(200))")
            }
        }
    }

    @Test("a refusal names its field as people say it, and a header as it is written")
    func spokenFields() {
        #expect(TaskError.validation(field: "dueDate", reason: "not a date").description == "invalid due date: not a date")
        #expect(TaskError.spoken("externalID") == "external id")
        #expect(TaskError.validation(field: "If-Match", reason: "not an entity tag").description == "invalid If-Match: not an entity tag")
        #expect(TaskError.spoken("Idempotency-Key") == "Idempotency-Key")
    }

    @Test("a title is 1-500 characters after trimming")
    func titleLength() throws {
        #expect(try TaskDraft(title: "  Ship it \n").title == "Ship it")
        #expect(try TaskDraft(title: String(repeating: "é", count: 500)).title.count == 500)
        #expect(invalidField { _ = try TaskDraft(title: String(repeating: "é", count: 501)) } == "title")
        #expect(invalidField { _ = try TaskDraft(title: " \t\n ") } == "title")
        #expect(invalidField { _ = try TaskChanges(title: "") } == "title")
    }

    @Test("a title's length is counted in code points, as the database's char_length counts it")
    func titleLengthInCodePoints() throws {
        // "कि" is one character of two code points (क and the vowel sign ि).
        let hindi = String(repeating: "कि", count: 225) + String(repeating: "क", count: 70)
        #expect(hindi.count == 295)
        #expect(hindi.unicodeScalars.count == 520)
        let flags = String(repeating: "🇩🇪", count: 251)
        // q with a dot above has no composed form: two code points however it is typed.
        let accents = String(repeating: "q\u{307}", count: 300)
        for title in [hindi, flags, accents] {
            #expect(title.count <= 500)
            #expect(TextRules.length(title) > 500)
            #expect(invalidField { _ = try TaskDraft(title: title) } == "title")
            #expect(invalidField { _ = try TaskChanges(title: title) } == "title")
        }
        #expect(throws: TaskError.validation(field: "title", reason: "a title has at most 500 characters (Unicode code points), got 502")) {
            try TaskDraft(title: flags)
        }
        #expect(try TaskDraft(title: String(repeating: "🇩🇪", count: 250)).title.unicodeScalars.count == 500)
        #expect(TextRules.length("e\u{301}") == 2)
        // é typed as e and U+0301 is composed before it is counted: 300 of them fit.
        let composed = try TaskDraft(title: String(repeating: "e\u{301}", count: 300)).title
        #expect(composed.unicodeScalars.elementsEqual(String(repeating: "\u{E9}", count: 300).unicodeScalars))
    }

    @Test("composing takes the byte shortcut only where NFC changes nothing, and otherwise gives Foundation's NFC")
    func composedIsNFC() {
        func nfc(_ text: String) -> [Unicode.Scalar] { Array(text.precomposedStringWithCanonicalMapping.unicodeScalars) }
        // Every code point below U+0300 (the shortcut's range) alone, and after each ASCII letter.
        for value in UInt32(1)..<0x300 {
            let scalar = Unicode.Scalar(value)!
            for text in [String(scalar), "a" + String(scalar), "Z" + String(scalar), String(scalar) + "e"] {
                #expect(Array(TextRules.composed(text).unicodeScalars) == nfc(text), "U+\(String(value, radix: 16))")
            }
        }
        for text in [
            "e\u{301}", "E\u{300}\u{301}", "\u{1100}\u{1161}", "q\u{307}", "\u{212B}", "\u{2FF}\u{300}", "\u{E9}\u{301}", "Задача",
            "\u{415}\u{308}", "日本語", "👩‍👩‍👧", "\u{340}", "\u{F900}",
        ] {
            #expect(Array(TextRules.composed(text).unicodeScalars) == nfc(text), "\(text.unicodeScalars.map(\.value))")
        }
        #expect(TextRules.composed("e\u{301}").unicodeScalars.count == 1)
        #expect(TextRules.holds(TextRules.folded("Cre\u{300}me BRU\u{302}L\u{C9}E"), "br\u{FB}l\u{E9}e"))
        #expect(!TextRules.holds("caf\u{E9}", "cafe"), "e is not inside é")
        #expect(TextRules.holds("q\u{307}", "q"), "code points, as LIKE compares: q is inside q and a dot above")
    }

    @Test("a text's length counted on its bytes is its number of Unicode scalars, for every kind of scalar")
    func lengthOnBytesIsScalarCount() {
        let samples = [
            "", "a", "plain ASCII title", "e\u{301}", "कि", "🇩🇪", "日本語のタイトル", "\u{10FFFF}\u{7F}\u{80}\u{7FF}\u{800}\u{FFFF}\u{10000}",
        ]
        var generator = SystemRandomNumberGenerator()
        let random = (0..<500).map { _ in
            String(
                String.UnicodeScalarView(
                    (0..<Int.random(in: 0...40, using: &generator)).compactMap { _ in
                        Unicode.Scalar(UInt32.random(in: 1...0x10FFFF, using: &generator))
                    }))
        }
        for text in samples + random {
            #expect(TextRules.length(text) == text.unicodeScalars.count, "\(text.debugDescription)")
        }
    }

    @Test("notes lose trailing white space scalar by scalar, keeping a combining mark after a space")
    func notesTrailingWhitespace() throws {
        #expect(try TaskFields.notes("line one\nline two \t\n\u{3000}") == "line one\nline two")
        #expect(try TaskFields.notes(" \u{301}") == " \u{301}")
        #expect(try TaskFields.notes(" \n ") == "")
    }

    @Test(
        "only real dates in YYYY-MM-DD form are dates",
        arguments: [
            ("2024-02-29", true), ("2023-02-29", false), ("1900-02-29", false), ("2000-02-29", true),
            ("2026-04-31", false), ("2026-13-01", false), ("2026-00-10", false), ("2026-1-5", false),
            ("26-01-05", false), ("2026/01/05", false), ("tomorrow", false), ("", false), ("2026-01-05", true),
        ])
    func isoDates(text: String, valid: Bool) {
        #expect(invalidField { _ = try CalendarDate(iso: text) } == (valid ? nil : "dueDate"))
    }

    @Test("a date prints as ISO and survives the day-number round trip")
    func dateArithmetic() throws {
        let date = try CalendarDate(iso: "2024-02-29")
        #expect(date.description == "2024-02-29")
        #expect(date.adding(days: 1).description == "2024-03-01")
        #expect(CalendarDate(year: 1970, month: 1, day: 1)!.daysSinceEpoch == 0)
        #expect(CalendarDate(year: 1969, month: 12, day: 31)!.daysSinceEpoch == -1)
        for days in stride(from: Int64(-800_000), through: 800_000, by: 997) {
            #expect(CalendarDate(daysSinceEpoch: days).daysSinceEpoch == days)
        }
        #expect(CalendarDate(year: 33, month: 7, day: 4)!.description == "0033-07-04")
    }

    @Test("named values parse ignoring case, spaces and hyphens, and name their field when wrong")
    func namedValues() throws {
        #expect(try TaskStatus(parsing: "In Progress") == .inProgress)
        #expect(try TaskStatus(parsing: "in-progress") == .inProgress)
        #expect(try TaskPriority(parsing: " URGENT ") == .urgent)
        #expect(try Role(parsing: "Admin") == .admin)
        #expect(invalidField { _ = try TaskStatus(parsing: "closed") } == "status")
        #expect(invalidField { _ = try TaskPriority(parsing: "p1") } == "priority")
        #expect(invalidField { _ = try Role(parsing: "boss") } == "role")
        #expect(invalidField { _ = try TaskSort(parsing: "random") } == "sort")
        #expect(invalidField { _ = try ImportConflictPolicy(parsing: "merge") } == "onConflict")
        #expect(Role.viewer < .member && Role.member < .admin && Role.admin < .owner)
    }

    @Test("team keys are 2-10 letters and digits starting with a letter, stored uppercase")
    func teamKeys() throws {
        #expect(try TeamKey("core").rawValue == "CORE")
        #expect(try TeamKey("Q3PLAN").rawValue == "Q3PLAN")
        #expect(try TeamKey("a1").rawValue == "A1")
        #expect(try TeamKey("zZ09az").rawValue == "ZZ09AZ")
        #expect(try TeamKey("TENCHARS10").rawValue == "TENCHARS10")
        // Bytes next to the letters and digits (@ [ ` { / :), a letter that upper-cases to ASCII
        // but is not ASCII (KELVIN SIGN), and ASCII letters with a combining mark.
        for bad in [
            "C", "ELEVENCHARS", "3D", "CO RE", "CO-RE", "ÉQUIPE", "ıb", "straße", "ﬁx", "A@", "A[", "A`", "A{", "A/", "A:", "\u{212A}B",
            "ab\u{0301}", "",
        ] {
            #expect(invalidField { _ = try TeamKey(bad) } == "team", "\(bad)")
        }
        #expect(try TeamKey(" q3plan ").rawValue == "Q3PLAN")
        #expect(invalidField { _ = try TaskKey(parsing: "ıb-1") } == "task", "upper-cased, it was IB-1")
    }

    @Test("task keys read as TEAM-N and print the same way")
    func taskKeys() throws {
        let key = try TaskKey(parsing: "core-42")
        #expect(key == TaskKey(team: try TeamKey("CORE"), number: 42))
        #expect(key.description == "CORE-42")
        for bad in ["CORE42", "CORE-", "CORE-0", "CORE--1", "-4", "CORE-x"] {
            #expect(invalidField { _ = try TaskKey(parsing: bad) } == "task")
        }
    }

    @Test("an email never reaches another through case mapping: KELVIN SIGN stays, is refused as an address; É still lower-cases")
    func emailCaseFolding() throws {
        let kelvin = "\u{212A}ate@example.com"
        #expect("\u{212A}".lowercased() == "k", "the collision this guards against")
        #expect(UserFields.normalizedEmailKey(kelvin) != "kate@example.com")
        #expect(UserFields.normalizedEmailKey("\u{212A}ATE@Example.com") == "\u{212A}ate@example.com")
        #expect(invalidField { _ = try UserFields.email(kelvin) } == "email")
        #expect(try UserFields.email("ÉLODIE@Example.com") == "élodie@example.com")
        #expect(try UserFields.email("\u{130}rem@example.com") == "i\u{307}rem@example.com", "dotted I lower-cases to i and a dot, not to i")
        #expect(try UserFields.email("\u{130}rem@example.com") != "irem@example.com")
    }

    @Test("emails are trimmed, lowercased and need a local part and a dotted domain")
    func emails() throws {
        #expect(try UserFields.email("  Ann@Example.COM ") == "ann@example.com")
        for bad in ["ann", "@example.com", "ann@", "ann@example", "a b@example.com", "a@@example.com", "ann@.com"] {
            #expect(invalidField { _ = try UserFields.email(bad) } == "email")
        }
        #expect(UserRef("#12") == .id(UserID(12)))
        #expect(UserRef("12") == .id(UserID(12)))
        #expect(UserRef("ann@example.com") == .email("ann@example.com"))
    }

    @Test("emails and names refuse control characters and bidi controls, naming the field and the code point; other letters stay")
    func hiddenControlsRefused() throws {
        let controls: [(Unicode.Scalar, String)] = [
            ("\u{1B}", "control character U+001B"), ("\u{7}", "control character U+0007"), ("\u{7F}", "control character U+007F"),
            ("\u{85}", "control character U+0085"), ("\u{9B}", "control character U+009B"), ("\u{202E}", "bidi control U+202E"),
            ("\u{2066}", "bidi control U+2066"), ("\u{202A}", "bidi control U+202A"), ("\u{2069}", "bidi control U+2069"),
        ]
        for (scalar, named) in controls {
            let character = String(Character(scalar))
            let email = "e\(character)[31m@example.com"
            #expect(
                throws: TaskError.validation(
                    field: "email",
                    reason: "\(TaskError.quoting(email)) holds the \(named), which no email address can hold; type the address again without it")
            ) { _ = try UserFields.email(email) }
            // U+0085 (NEL) is a line break too: a name refuses it as one, with that message.
            let reason =
                scalar == "\u{85}"
                ? "a name is one line of 1 to \(UserFields.nameMaxLength) characters" : "a name cannot hold the \(named); type it again without it"
            #expect(throws: TaskError.validation(field: "name", reason: reason)) { _ = try UserFields.name("Ann\(character) Lee") }
            #expect(invalidField { _ = try UserFields.name("Co\(character)re", field: "teamName") } == "teamName")
        }
        #expect(invalidField { _ = try UserFields.email("ann\t@example.com") } == "email")
        #expect(throws: TaskError.validation(field: "name", reason: "a name is one line of 1 to 200 characters")) { _ = try UserFields.name("a\nb") }
        #expect(try UserFields.email("JOSÉ@Exämple.de") == "josé@exämple.de")
        #expect(try UserFields.email("山田@例え.日本") == "山田@例え.日本")
        #expect(try UserFields.email("ann😀@example.com") == "ann😀@example.com")
        for name in ["Élodie Müller", "日本チーム", "Launch 🚀 crew", "\u{200B}zero width\u{200D}joined", "مرحبا"] {
            #expect(try UserFields.name(name) == name)
        }
    }

    @Test("optional text fields: empty means none, one line, bounded length")
    func optionalTextFields() throws {
        let draft = try TaskDraft(title: "T", notes: "keep  \n", category: "  ", externalID: " ext-1 ")
        #expect(draft.category == nil && draft.externalID == "ext-1" && draft.notes == "keep")
        #expect(invalidField { _ = try TaskDraft(title: "T", category: "a\nb") } == "category")
        #expect(invalidField { _ = try TaskChanges(externalID: .set(String(repeating: "x", count: 201))) } == "externalID")
        #expect(invalidField { _ = try TaskDraft(title: "T", notes: String(repeating: "x", count: 10_001)) } == "notes")
        #expect(try TaskChanges(category: .set("")).category == .set(nil))
    }

    @Test("a NUL character is refused in every text field, naming the field, in a reason that reads alone")
    func nulIsRefused() throws {
        #expect(invalidField { _ = try TaskDraft(title: "a\u{0}b") } == "title")
        #expect(invalidField { _ = try TaskDraft(title: "T", notes: "x\u{0}") } == "notes")
        #expect(invalidField { _ = try TaskDraft(title: "T", category: "c\u{0}") } == "category")
        #expect(invalidField { _ = try TaskDraft(title: "T", externalID: "\u{0}") } == "externalID")
        #expect(invalidField { _ = try TaskDraft(title: "T", assignee: .email("a\u{0}b@example.com")) } == "assignee")
        #expect(invalidField { _ = try TaskChanges(assignee: .set(.email("a\u{0}b@example.com"))) } == "assignee")
        #expect(invalidField { _ = try UserFields.email("a\u{0}@example.com") } == "email")
        #expect(invalidField { _ = try UserFields.name("Ann\u{0}") } == "name")
        #expect(throws: TaskError.validation(field: "externalID", reason: "a NUL character (U+0000) in the external id cannot be stored")) {
            _ = try TaskDraft(title: "T", externalID: "\u{0}")
        }
    }

    @Test("trimming removes Unicode white space at both ends and keeps the rest, like Foundation's")
    func trimming() {
        for text in ["", " ", "a", " a ", "\u{3000}\tword one\u{A0}\n", "\u{FEFF}x", "e\u{301} ", " 👩‍💻", "\r\n"] {
            #expect(TextRules.trimmed(text) == text.trimmingCharacters(in: .whitespacesAndNewlines), "\(Array(text.unicodeScalars))")
        }
    }

    @Test("trimming agrees with Foundation's for every ASCII character at either end (those ends are judged on bytes)")
    func trimmingASCIIEnds() {
        for byte in UInt8(0)..<0x80 {
            let character = String(UnicodeScalar(byte))
            for text in [character + "x" + character, character + "x", "x" + character, character, "é" + character, character + "é"] {
                #expect(TextRules.trimmed(text) == text.trimmingCharacters(in: .whitespacesAndNewlines), "\(Array(text.unicodeScalars))")
            }
        }
    }

    @Test("the email key is trimmed and lowercased, whatever the letters; a lowercase ASCII address is kept as given")
    func emailKeys() {
        for (text, key) in [
            ("ann@example.com", "ann@example.com"), (" Ann@Example.COM\t", "ann@example.com"),
            ("ÄNN@example.com", "änn@example.com"), ("änn@example.com", "änn@example.com"), ("ANN", "ann"), ("", ""),
        ] {
            #expect(UserFields.normalizedEmailKey(text) == key, "\(text)")
            #expect(UserFields.normalizedEmailKey(text) == text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased())
        }
    }
}
