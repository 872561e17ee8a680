import CSVImport
import Testing

@Suite("Header mapping")
struct HeaderMappingTests {
    @Test("canonical headers map to every field")
    func canonicalHeaders() throws {
        let header = ["Title", "Notes", "Status", "Priority", "Due Date", "Assignee", "Category", "External ID"]
        let mapping = try HeaderMapping(header: header)
        #expect(
            mapping.columns == [
                .title: 0, .notes: 1, .status: 2, .priority: 3, .dueDate: 4, .assignee: 5, .category: 6, .externalId: 7,
            ])
        #expect(mapping.unmappedColumns.isEmpty)
        #expect(mapping.unmappedColumnsWarning == nil)
    }

    @Test(
        "case, spaces, hyphens and underscores do not matter",
        arguments: [
            ("due_date", ImportField.dueDate), ("DUE-DATE", .dueDate), (" Due  Date ", .dueDate), ("dueDate", .dueDate),
            ("external_id", .externalId), ("ExternalId", .externalId), ("external-ID", .externalId),
            ("ASSIGNEE_EMAIL", .assignee), ("assigned to", .assignee), ("Task-Name", .title),
        ])
    func looseMatching(name: String, field: ImportField) throws {
        let mapping = try HeaderMapping(header: field == .title ? [name] : ["Title", name])
        #expect(mapping.column(for: field) != nil)
        #expect(mapping.unmappedColumns.isEmpty)
    }

    @Test("every documented synonym maps to its field", arguments: ImportField.allCases)
    func synonyms(field: ImportField) throws {
        for synonym in field.synonyms {
            let header = field == .title ? [synonym] : ["Title", synonym]
            let mapping = try HeaderMapping(header: header)
            #expect(mapping.column(for: field) == header.count - 1, "\(synonym)")
        }
    }

    @Test("Key is not an external id, because a Taskbase export's Key is the team's task key")
    func keyIsNotExternalID() throws {
        let mapping = try HeaderMapping(header: ["Key", "Title", "External ID"])
        #expect(mapping.column(for: .externalId) == 2)
        #expect(mapping.unmappedColumnNames == ["Key"])
    }

    @Test("unknown columns are named in a warning")
    func unknownColumns() throws {
        let mapping = try HeaderMapping(header: ["Name", "Color", "", "Estimate"])
        #expect(mapping.unmappedColumns == [1, 2, 3])
        #expect(mapping.unmappedColumnNames == ["Color", "column 3", "Estimate"])
        #expect(
            mapping.unmappedColumnsWarning
                == "ignoring columns that match no task field: \"Color\", \"column 3\", \"Estimate\"; import one with --map FIELD=HEADER")
    }

    @Test("a missing title column is an error before any row is read")
    func missingTitle() throws {
        let reader = makeReader(Array("Notes,Status\nsomething,open\n".utf8))
        let header = try #require(try reader.next())
        #expect(throws: HeaderMappingError.missingTitle(header: ["Notes", "Status"])) {
            try HeaderMapping(header: header.fields)
        }
        #expect(reader.bytesConsumed == "Notes,Status\n".utf8.count)
        let message = HeaderMappingError.missingTitle(header: ["Notes", "Status"]).description
        #expect(message.contains("the columns are \"Notes\", \"Status\""))
        #expect(message.contains("--map title=HEADER"))
    }

    @Test("two columns that map to one field are an error naming both")
    func duplicateField() {
        #expect(throws: HeaderMappingError.duplicateField(.title, columns: ["Title", "Name"])) {
            try HeaderMapping(header: ["Title", "Name", "Notes"])
        }
        #expect(throws: HeaderMappingError.duplicateField(.notes, columns: ["Notes", "notes"])) {
            try HeaderMapping(header: ["Title", "Notes", "notes"])
        }
        let message = HeaderMappingError.duplicateField(.dueDate, columns: ["Due", "Deadline"]).description
        #expect(message == "columns \"Due\", \"Deadline\" all map to due date; choose one with --map dueDate=HEADER")
    }

    @Test("an assignee by name and by email (Asana's Assignee, Assignee Email): the email column fills it, the name is unmapped")
    func assigneeByNameAndEmail() throws {
        let mapping = try HeaderMapping(header: ["Name", "Assignee", "Assignee Email", "Section"])
        #expect(mapping.column(for: .assignee) == 2)
        #expect(mapping.unmappedColumns == [1])
        // Two that are both addresses, or both names, are still for the user to choose.
        #expect(throws: HeaderMappingError.duplicateField(.assignee, columns: ["Assignee", "Owner"])) {
            try HeaderMapping(header: ["Title", "Assignee", "Owner"])
        }
        #expect(throws: HeaderMappingError.self) { try HeaderMapping(header: ["Title", "Assignee Email", "assignee_email"]) }
    }

    @Test("--map overrides win over synonyms, and the displaced column is unmapped")
    func overridesWin() throws {
        let mapping = try HeaderMapping(
            header: ["Title", "Name", "Ticket", "ID"],
            overrides: [try ColumnOverride(argument: "title=Name"), try ColumnOverride(argument: "external-id=Ticket")])
        #expect(mapping.column(for: .title) == 1)
        #expect(mapping.column(for: .externalId) == 2)
        #expect(mapping.unmappedColumnNames == ["Title", "ID"])
    }

    @Test("--map can take a column whose name is another field's synonym")
    func overrideTakesSynonymColumn() throws {
        let mapping = try HeaderMapping(
            header: ["Summary", "Task", "Owner"], overrides: [ColumnOverride(field: .notes, header: "Task")])
        #expect(mapping.columns == [.title: 0, .notes: 1, .assignee: 2])
    }

    @Test("--map matches its header exactly first, then loosely")
    func overrideHeaderMatching() throws {
        let loose = try HeaderMapping(header: ["Title", "Fällig am"], overrides: [try ColumnOverride(argument: "due=fällig_AM")])
        #expect(loose.column(for: .dueDate) == 1)
        #expect(throws: HeaderMappingError.overrideHeaderNotFound(.dueDate, header: "When", available: ["Title", "Date"])) {
            try HeaderMapping(header: ["Title", "Date"], overrides: [ColumnOverride(field: .dueDate, header: "When")])
        }
    }

    @Test("--map twice for one field, or one column for two fields, is an error")
    func conflictingOverrides() {
        #expect(throws: HeaderMappingError.conflictingOverrides(.title, headers: ["A", "B"])) {
            try HeaderMapping(
                header: ["A", "B"],
                overrides: [ColumnOverride(field: .title, header: "A"), ColumnOverride(field: .title, header: "B")])
        }
        #expect(throws: HeaderMappingError.columnMappedTwice(header: "A", fields: [.title, .notes])) {
            try HeaderMapping(
                header: ["A", "B"],
                overrides: [ColumnOverride(field: .title, header: "A"), ColumnOverride(field: .notes, header: "A")])
        }
    }

    @Test("--map values parse as FIELD=HEADER with any spelling of the field")
    func overrideParsing() throws {
        #expect(try ColumnOverride(argument: "dueDate=Fällig am") == ColumnOverride(field: .dueDate, header: "Fällig am"))
        #expect(try ColumnOverride(argument: "due_date=a=b") == ColumnOverride(field: .dueDate, header: "a=b"))
        #expect(try ColumnOverride(argument: "External ID=Ticket").field == .externalId)
        #expect(throws: HeaderMappingError.self) { try ColumnOverride(argument: "title") }
        #expect(throws: HeaderMappingError.self) { try ColumnOverride(argument: "title=") }
        #expect {
            try ColumnOverride(argument: "colour=Color")
        } throws: { error in
            (error as? HeaderMappingError)?.description.hasPrefix("--map colour=Color: unknown field \"colour\"") == true
        }
    }

    @Test("a mapped value is read from its column, and is nil when the record is short")
    func values() throws {
        let records = try readRecords(Array("Name,Due\nShip it,2026-12-01\n".utf8))
        let mapping = try HeaderMapping(header: records[0].fields)
        #expect(mapping.value(of: .title, in: records[1]) == "Ship it")
        #expect(mapping.value(of: .dueDate, in: records[1]) == "2026-12-01")
        #expect(mapping.value(of: .notes, in: records[1]) == nil)
    }
}

@Suite("Header names in messages")
struct HeaderNameMessageTests {
    @Test("invisible characters in header names are shown escaped as every message escapes them (TerminalText), with a hint")
    func invisibleCharacters() {
        let error = HeaderMappingError.missingTitle(header: ["\u{FEFF}Title", "No\u{0}tes", "Due\tDate", "Plain"])
        #expect(error.description.contains(#"the columns are "<U+FEFF>Title", "No\x00tes", "Due\tDate", "Plain""#), "\(error)")
        #expect(error.description.contains("<U+FEFF> is a byte-order mark, \\x00 a NUL"))
        #expect(
            HeaderMappingError.missingTitle(header: ["Tab\u{1B}[31m", "Zero\u{200B}width"]).description.contains(
                #""Tab\x1B[31m", "Zero<U+200B>width""#))
        #expect(!HeaderMappingError.missingTitle(header: ["Plain", "Café"]).description.contains("byte-order mark"))
    }
}
