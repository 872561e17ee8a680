extension CSVScanner {
    /// How far the start of the input is read ahead to find the header line's separator.
    static let firstLineLookahead = 64 * 1024

    /// Settles how the input is read, before its first chunk: a byte-order mark (which chooses
    /// the encoding and is dropped), the transcoder for an encoding other than UTF-8, a first
    /// line `sep=X` (which sets the separator and is no record), or the separator counted on
    /// the header line. What was read ahead waits in `pending`.
    mutating func start() throws(CSVError) {
        var raw: [UInt8] = []
        try readAhead(into: &raw, until: { $0.count >= 4 })
        var encoding = options.encoding
        var byteOrderMark = 0
        if raw.starts(with: [0xEF, 0xBB, 0xBF]) {
            encoding = .utf8
            byteOrderMark = 3
        } else if raw.starts(with: [0xFF, 0xFE]) {
            encoding = .utf16LE
            byteOrderMark = 2
        } else if raw.starts(with: [0xFE, 0xFF]) {
            encoding = .utf16BE
            byteOrderMark = 2
        } else if encoding == .utf16 {
            encoding = raw.count >= 2 && raw[0] == 0 && raw[1] != 0 ? .utf16BE : .utf16LE
        }

        var text: [UInt8]
        var skipped = 0
        if let transcoder = Transcoder(
            encoding: encoding, pending: raw[byteOrderMark...], fileOffset: byteOrderMark, chunkSize: options.chunkSize)
        {
            self.transcoder = transcoder
            text = []
        } else {
            text = Array(raw[byteOrderMark...])
            skipped = byteOrderMark
        }
        try readAhead(into: &text, until: Self.holdsFirstLine)

        if encoding != .utf16LE, encoding != .utf16BE, byteOrderMark == 0, let utf16 = Self.utf16WithoutByteOrderMark(text) {
            throw CSVError(
                kind: .wrongEncoding(reading: encoding, looksLike: utf16), line: 1, character: 1, field: nil, byteOffset: 0)
        }
        var delimiter = options.delimiter
        var origin = CSVInputFormat.DelimiterOrigin.option
        if let sepLine = Self.sepLine(text) {
            guard let named = CSVDelimiter(byte: sepLine.separator) else {
                throw CSVError(
                    kind: .unsupportedSeparator(String(decoding: [sepLine.separator], as: UTF8.self)), line: 1,
                    character: sepLine.separatorIndex + 1, field: nil, byteOffset: skipped + sepLine.separatorIndex)
            }
            delimiter = named
            origin = .sepLine
            text.removeFirst(sepLine.length)
            skipped += sepLine.length
            line = 2
        } else if options.detectsDelimiter, let counted = Self.mostFrequentDelimiter(inFirstLineOf: text) {
            delimiter = counted
            origin = .detected
        }

        self.delimiter = delimiter.byte
        unquotedStops = StopBytes(delimiter.byte, ASCII.quote, ASCII.lineFeed, ASCII.carriageReturn)
        format = CSVInputFormat(
            encoding: encoding, byteOrderMark: byteOrderMark > 0, delimiter: delimiter, delimiterOrigin: origin)
        pending = text
        pendingStart = 0
        chunkStartOffset = skipped
        lineStartOffset = skipped
        checkpointOffset = skipped
    }

    /// Appends bytes from the source (through the transcoder) to `bytes` until `isEnough`
    /// says so, the look-ahead limit is reached, or the input ends.
    private mutating func readAhead(into bytes: inout [UInt8], until isEnough: ([UInt8]) -> Bool) throws(CSVError) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 1)
        defer { buffer.deallocate() }
        while !isEnough(bytes), bytes.count < Self.firstLineLookahead {
            let want = min(buffer.count, Self.firstLineLookahead - bytes.count)
            let count = try read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<want]))
            if count == 0 { return }
            bytes.append(contentsOf: buffer[..<count])
        }
    }

    /// Whether `bytes` hold a whole first line: an LF, or a CR with a byte after it.
    private static func holdsFirstLine(_ bytes: [UInt8]) -> Bool {
        guard let index = bytes.firstIndex(where: { $0 == ASCII.lineFeed || $0 == ASCII.carriageReturn }) else { return false }
        return bytes[index] == ASCII.lineFeed || index + 1 < bytes.count
    }

    /// The first line `sep=X` (optionally quoted, optionally followed by more X, as Excel pads
    /// it to the sheet's width), case ignored: its separator byte, where that is, and the
    /// line's length with its line break.
    static func sepLine(_ bytes: [UInt8]) -> (separator: UInt8, separatorIndex: Int, length: Int)? {
        var index = 0
        let quoted = bytes.first == ASCII.quote
        if quoted { index = 1 }
        guard bytes.count >= index + 5,
            String(decoding: bytes[index..<index + 4], as: UTF8.self).lowercased() == "sep="
        else { return nil }
        let separatorIndex = index + 4
        let separator = bytes[separatorIndex]
        guard separator < 0x80, separator != ASCII.lineFeed, separator != ASCII.carriageReturn, separator != ASCII.quote else {
            return nil
        }
        index = separatorIndex + 1
        if quoted {
            guard index < bytes.count, bytes[index] == ASCII.quote else { return nil }
            index += 1
        }
        while index < bytes.count, bytes[index] == separator { index += 1 }
        if index == bytes.count { return (separator, separatorIndex, index) }
        switch bytes[index] {
        case ASCII.lineFeed:
            return (separator, separatorIndex, index + 1)
        case ASCII.carriageReturn:
            let next = index + 1 < bytes.count && bytes[index + 1] == ASCII.lineFeed ? index + 2 : index + 1
            return (separator, separatorIndex, next)
        default:
            return nil
        }
    }

    /// The separator of `,` `;` tab `|` that occurs most often outside quotes on the first line
    /// that is not empty (empty lines before the header are skipped, as the reader skips them;
    /// ties in that order); nil when none does.
    static func mostFrequentDelimiter(inFirstLineOf bytes: [UInt8]) -> CSVDelimiter? {
        var start = 0
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            guard byte == ASCII.lineFeed || byte == ASCII.carriageReturn else { break }
            start = index
        }
        var counts = [Int](repeating: 0, count: CSVDelimiter.allCases.count)
        var inQuotes = false
        for byte in bytes[start...] {
            if byte == ASCII.quote {
                inQuotes.toggle()
            } else if !inQuotes {
                if byte == ASCII.lineFeed || byte == ASCII.carriageReturn { break }
                if let index = CSVDelimiter.allCases.firstIndex(where: { $0.byte == byte }) { counts[index] += 1 }
            }
        }
        guard let best = counts.max(), best > 0, let index = counts.firstIndex(of: best) else { return nil }
        return CSVDelimiter.allCases[index]
    }

    /// UTF-16LE or UTF-16BE when the first line is ASCII text with a NUL byte beside each
    /// letter, as UTF-16 without a byte-order mark reads when taken for UTF-8.
    static func utf16WithoutByteOrderMark(_ bytes: [UInt8]) -> TextEncoding? {
        let sample = bytes.prefix(512)
        guard sample.count >= 4 else { return nil }
        var evenNULs = 0
        var oddNULs = 0
        for (index, byte) in sample.enumerated() where byte == 0 {
            if index % 2 == 0 { evenNULs += 1 } else { oddNULs += 1 }
        }
        let pairs = sample.count / 2
        if oddNULs * 4 >= pairs * 3, evenNULs * 4 < pairs { return .utf16LE }
        if evenNULs * 4 >= pairs * 3, oddNULs * 4 < pairs { return .utf16BE }
        return nil
    }
}
