extension CSVScanner {
    /// Parses the next record, reading chunks as needed.
    ///
    /// Returns `nil` at the end of the input. A recoverable error consumes its record, so the
    /// next call goes on with the record after it; after any other error it returns `nil`.
    mutating func nextRecord() throws(CSVError) -> CSVRecord? {
        guard !finished else { return nil }
        do {
            if !started { try refill() }
            return try scanRecord()
        } catch {
            if !error.isRecoverable { finished = true }
            throw error
        }
    }

    /// The state machine: one pass over the bytes, the end of each run found eight bytes at a
    /// time and the run copied into the record at once.
    private mutating func scanRecord() throws(CSVError) -> CSVRecord? {
        let bytes = chunk
        let delimiter = self.delimiter
        let quote = ASCII.quote
        let lineFeed = ASCII.lineFeed
        let carriageReturn = ASCII.carriageReturn
        let unquotedStops = self.unquotedStops
        let quotedStops = self.quotedStops
        while true {
            if position == limit {
                if invalidLength > 0 {
                    try consumeInvalidSequence()
                } else if limitIsFinal {
                    return try finishAtEndOfInput()
                } else {
                    try refill()
                }
                continue
            }
            switch state {
            case .recordStart:
                let byte = bytes[position]
                if options.skipsBlankLines, byte == lineFeed || byte == carriageReturn {
                    guard let next = lineBreakEnd(at: position) else {
                        try refill()
                        continue
                    }
                    startLine(at: next)
                    position = next
                    emptyRowsSkipped += 1
                    continue
                }
                recordLine = line
                state = .fieldStart

            case .fieldStart:
                fieldStartOffset = offset(position)
                fieldStartLine = line
                fieldStartInRecord = record.byteCount
                if bytes[position] == quote {
                    fieldStartColumn = column(at: position)
                    position += 1
                    state = .quoted
                } else {
                    fieldStartColumn = nil
                    state = .unquoted
                }

            case .unquoted:
                let index = unquotedStops.firstIndex(in: bytes, from: position, to: limit)
                try appendToField(from: position, to: index)
                position = index
                guard index < limit else { continue }
                let byte = bytes[index]
                if byte == delimiter {
                    endField(delimiterAt: index)
                } else if byte == quote {
                    noteRecordProblem(.strayQuote, at: index)
                    try appendToField(from: index, to: index + 1)
                    position = index + 1
                } else {
                    guard let next = lineBreakEnd(at: index) else {
                        try refill()
                        continue
                    }
                    if let record = try finishRecord(lineBreakAt: index, next: next) { return record }
                }

            case .quoted:
                let index = quotedStops.firstIndex(in: bytes, from: position, to: limit)
                try appendToField(from: position, to: index)
                position = index
                guard index < limit else { continue }
                if bytes[index] == quote {
                    if index + 1 < limit {
                        if bytes[index + 1] == quote {
                            try appendToField(from: index, to: index + 1)
                            position = index + 2
                        } else {
                            position = index + 1
                            state = .afterClosingQuote
                        }
                    } else if nextByteIsKnown {
                        position = index + 1
                        state = .afterClosingQuote
                    } else {
                        try refill()
                    }
                } else {
                    guard let next = lineBreakEnd(at: index) else {
                        try refill()
                        continue
                    }
                    try appendToField(from: index, to: next)
                    startLine(at: next)
                    position = next
                }

            case .afterClosingQuote:
                let byte = bytes[position]
                if byte == delimiter {
                    endField(delimiterAt: position)
                } else if byte == lineFeed || byte == carriageReturn {
                    guard let next = lineBreakEnd(at: position) else {
                        try refill()
                        continue
                    }
                    if let record = try finishRecord(lineBreakAt: position, next: next) { return record }
                } else {
                    noteRecordProblem(.textAfterClosingQuote, at: position)
                    state = .unquoted
                }
            }
        }
    }

    /// Copies `chunk[start..<end]` into the current field and enforces the size limit.
    private mutating func appendToField(from start: Int, to end: Int) throws(CSVError) {
        guard end > start else { return }
        record.append(chunk + start, count: end - start)
        try checkFieldSize()
    }

    /// Throws when the current field has grown past the size limit.
    private mutating func checkFieldSize() throws(CSVError) {
        guard record.byteCount - fieldStartInRecord > options.maxFieldBytes else { return }
        settleFieldStartColumn()
        throw CSVError(
            kind: .fieldTooLarge(limit: options.maxFieldBytes), line: fieldStartLine,
            character: fieldStartColumn ?? 1, field: record.fieldCount + 1, byteOffset: fieldStartOffset)
    }

    /// The invalid sequence at `limit`: the record it is in is refused (the first problem of a
    /// record is the one reported), the field gets U+FFFD in its place so the reject file shows
    /// where, and parsing goes on after it.
    private mutating func consumeInvalidSequence() throws(CSVError) {
        let index = limit
        let length = invalidLength
        if state == .recordStart {
            recordLine = line
            state = .fieldStart
        }
        if state == .fieldStart {
            fieldStartOffset = offset(index)
            fieldStartLine = line
            fieldStartInRecord = record.byteCount
            fieldStartColumn = nil
            state = .unquoted
        }
        if state == .afterClosingQuote {
            noteRecordProblem(.textAfterClosingQuote, at: index)
            state = .unquoted
        }
        settleFieldStartColumn()
        let bytes = Array(UnsafeBufferPointer(start: chunk + index, count: length))
        let kind: CSVError.Kind
        let fileOffset: Int
        if let transcoder, let problem = transcoder.nextProblem() {
            fileOffset = problem.fileOffset
            let guess = transcoder.encoding == .windows1252 && problem.bytes.contains(where: TextEncoding.undefinedInWindows1252.contains)
            kind = .undecodable(
                bytes: problem.bytes, encoding: transcoder.encoding, fileOffset: fileOffset, looksLike: guess ? .latin1 : nil)
        } else {
            fileOffset = offset(index)
            kind = .undecodable(bytes: bytes, encoding: .utf8, fileOffset: fileOffset, looksLike: TextEncoding.guess(badBytes: bytes))
        }
        noteRecordProblem(kind, at: index, byteOffset: fileOffset)
        withUnsafeBytes(of: Self.replacementCharacter) { replacement in
            record.append(replacement.baseAddress!.assumingMemoryBound(to: UInt8.self), count: replacement.count)
        }
        try checkFieldSize()
        _ = column(at: index)
        checkpointColumn += 1
        checkpointOffset = offset(index + length)
        position = index + length
        checkText(from: position)
    }

    /// U+FFFD in UTF-8.
    private static let replacementCharacter: (UInt8, UInt8, UInt8) = (0xEF, 0xBF, 0xBD)

    /// Ends the current field at the delimiter in `chunk[index]` and starts the next one.
    private mutating func endField(delimiterAt index: Int) {
        record.endField()
        position = index + 1
        state = .fieldStart
        if extraFieldPlace == nil, let expected = expectedFieldCount, record.fieldCount == expected {
            extraFieldPlace = (line, column(at: index + 1))
        }
    }

    /// Remembers the record's first problem at `chunk[index]`; it is thrown, with the record,
    /// once the record is complete.
    private mutating func noteRecordProblem(_ kind: CSVError.Kind, at index: Int, byteOffset: Int? = nil) {
        guard recordProblem == nil else { return }
        settleFieldStartColumn()
        recordProblem = CSVError(
            kind: kind, line: line, character: column(at: index), field: record.fieldCount + 1,
            byteOffset: byteOffset ?? offset(index))
    }

    /// Ends the record at the line break `chunk[index..<next]`; nil when it is skipped as empty.
    private mutating func finishRecord(lineBreakAt index: Int, next: Int) throws(CSVError) -> CSVRecord? {
        record.endField()
        if let expected = expectedFieldCount, record.fieldCount < expected {
            shortRecordEndPlace = (line, column(at: index))
        }
        startLine(at: next)
        position = next
        return try completeRecord()
    }

    /// At the end of the input: the last record (which had no line break), an unterminated
    /// quote, or nothing more.
    private mutating func finishAtEndOfInput() throws(CSVError) -> CSVRecord? {
        switch state {
        case .recordStart:
            finished = true
            return nil
        case .quoted:
            let character = fieldStartColumn ?? 1
            throw CSVError(
                kind: .unterminatedQuote(openedAtLine: fieldStartLine, openedAtCharacter: character),
                line: fieldStartLine, character: character, field: record.fieldCount + 1, byteOffset: fieldStartOffset)
        case .fieldStart, .unquoted, .afterClosingQuote:
            record.endField()
            if let expected = expectedFieldCount, record.fieldCount < expected {
                settleFieldStartColumn()
                shortRecordEndPlace = (line, column(at: position))
            }
            if let record = try completeRecord() { return record }
            finished = true
            return nil
        }
    }

    /// Hands the finished record over, resets for the next one, and throws the record's
    /// problem (a quote or encoding problem first, then a wrong field count) with the record
    /// attached; nil for a record of empty fields when those are skipped.
    private mutating func completeRecord() throws(CSVError) -> CSVRecord? {
        state = .recordStart
        let extraField = extraFieldPlace
        let shortEnd = shortRecordEndPlace
        extraFieldPlace = nil
        shortRecordEndPlace = nil
        if options.skipsEmptyRecords, self.record.byteCount == 0, recordProblem == nil {
            self.record.discardRecord()
            emptyRowsSkipped += 1
            return nil
        }
        let record = self.record.takeRecord(line: recordLine, byteOffset: offset(position))

        if var problem = recordProblem {
            recordProblem = nil
            if expectedFieldCount == nil, options.requiresSameFieldCount { expectedFieldCount = record.count }
            problem.record = record
            throw problem
        }
        guard let expected = expectedFieldCount else {
            if options.requiresSameFieldCount { expectedFieldCount = record.count }
            return record
        }
        guard record.count != expected else { return record }
        let place = record.count > expected ? extraField : shortEnd
        throw CSVError(
            kind: .raggedRow(expected: expected, found: record.count),
            line: place?.line ?? record.line, character: place?.column ?? 1,
            field: record.count > expected ? expected + 1 : nil, byteOffset: offset(position), record: record)
    }
}
