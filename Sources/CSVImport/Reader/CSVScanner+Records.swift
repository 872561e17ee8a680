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
                if limitIsFinal {
                    if invalidByte != nil { throw invalidUTF8Error() }
                    return try finishAtEndOfInput()
                }
                try refill()
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
                    return try finishRecord(lineBreakAt: index, next: next)
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
                    } else if limitIsFinal {
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
                    return try finishRecord(lineBreakAt: position, next: next)
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
        guard record.byteCount - fieldStartInRecord > options.maxFieldBytes else { return }
        settleFieldStartColumn()
        throw CSVError(
            kind: .fieldTooLarge(limit: options.maxFieldBytes), line: fieldStartLine,
            column: fieldStartColumn ?? 1, field: record.fieldCount + 1, byteOffset: fieldStartOffset)
    }

    /// Ends the current field at the delimiter in `chunk[index]` and starts the next one.
    private mutating func endField(delimiterAt index: Int) {
        record.endField()
        position = index + 1
        state = .fieldStart
        if extraFieldPlace == nil, let expected = expectedFieldCount, record.fieldCount == expected {
            extraFieldPlace = (line, column(at: index + 1))
        }
    }

    /// Remembers the record's first quote problem at `chunk[index]`; it is thrown, with the
    /// record, once the record is complete.
    private mutating func noteRecordProblem(_ kind: CSVError.Kind, at index: Int) {
        guard recordProblem == nil else { return }
        settleFieldStartColumn()
        recordProblem = CSVError(
            kind: kind, line: line, column: column(at: index), field: record.fieldCount + 1,
            byteOffset: offset(index))
    }

    /// Ends the record at the line break `chunk[index..<next]`.
    private mutating func finishRecord(lineBreakAt index: Int, next: Int) throws(CSVError) -> CSVRecord {
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
            let column = fieldStartColumn ?? 1
            throw CSVError(
                kind: .unterminatedQuote(openedAtLine: fieldStartLine, openedAtColumn: column),
                line: fieldStartLine, column: column, field: record.fieldCount + 1, byteOffset: fieldStartOffset)
        case .fieldStart, .unquoted, .afterClosingQuote:
            record.endField()
            if let expected = expectedFieldCount, record.fieldCount < expected {
                settleFieldStartColumn()
                shortRecordEndPlace = (line, column(at: position))
            }
            return try completeRecord()
        }
    }

    /// Hands the finished record over, resets for the next one, and throws the record's
    /// problem (a quote problem first, then a wrong field count) with the record attached.
    private mutating func completeRecord() throws(CSVError) -> CSVRecord {
        let record = self.record.takeRecord(line: recordLine, byteOffset: offset(position))
        state = .recordStart
        let extraField = extraFieldPlace
        let shortEnd = shortRecordEndPlace
        extraFieldPlace = nil
        shortRecordEndPlace = nil

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
            line: place?.line ?? record.line, column: place?.column ?? 1,
            field: record.count > expected ? expected + 1 : nil, byteOffset: offset(position), record: record)
    }

    /// The error for the invalid UTF-8 at `limit`.
    private mutating func invalidUTF8Error() -> CSVError {
        settleFieldStartColumn()
        let field = state == .recordStart ? nil : record.fieldCount + 1
        return CSVError(
            kind: .invalidUTF8(byte: invalidByte ?? 0), line: line, column: column(at: limit),
            field: field, byteOffset: offset(limit))
    }
}
