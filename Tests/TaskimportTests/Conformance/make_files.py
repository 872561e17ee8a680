#!/usr/bin/env python3
"""Writes the conformance files in files/ (run from anywhere; the output is checked in).

Each file has the columns External ID, Title, Notes, Category (in some order, with some
separator and encoding) and exercises one edge of CSV as spreadsheets and scripts write it.
manifest.json says how each is read; python_reference.py reads each with Python's csv module.
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "files")
CHUNK = 64 * 1024  # the reader's default read size: boundaries fall at its multiples


def quote(field, delimiter=","):
    if any(c in field for c in (delimiter, '"', "\r", "\n")) or field != field.strip(" ") or field == "":
        return '"' + field.replace('"', '""') + '"'
    return field


def row(fields, delimiter=",", end="\r\n"):
    return delimiter.join(quote(f, delimiter) for f in fields) + end


def write(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


def main():
    os.makedirs(OUT, exist_ok=True)
    header = ["External ID", "Title", "Notes", "Category"]
    manifest = []

    # Quotes: doubled quotes, delimiters and quotes at either end, empty quoted fields.
    text = row(header)
    samples = [
        ("q1", 'Say "hi"', '"', "a,b"), ("q2", '""', '"quoted" start', ""), ("q3", "end quote\"", ",", '"'),
        ("q4", "comma, inside", "", "x"), ("q5", '"""', 'a""b', "c"), ("q6", "plain", "plain notes", "plain"),
    ]
    for s in samples:
        text += row(s)
    text += '"q7","fully quoted","""",""\r\n' + 'q8,"",x,y\r\n'.replace('""', '"t"')
    write("quotes.csv", text.encode())
    manifest.append({"file": "quotes.csv"})

    # Line breaks inside quoted fields, LF / CRLF / CR, and mixed record ends.
    text = row(header, end="\n")
    text += row(["n1", "two\nlines", "a\r\nb\rc\n\nd", "x"], end="\n")
    text += row(["n2", "t", "\r\n", ""], end="\r\n")
    text += row(["n3", "t3", "ends with break\n", "y"], end="\r")
    text += row(["n4", "t4", "\n\nstarts with breaks", "z"], end="\n")
    text += row(["n5", "last", "no final break", "w"], end="")
    write("line-breaks.csv", text.encode())
    manifest.append({"file": "line-breaks.csv"})

    # A UTF-8 BOM, CRLF, text beyond ASCII, white space the import trims.
    text = row(["Title", "External ID", "Category", "Notes"])
    text += row(["Café 日本 😀", "u1", "Ünïcode", "e\u0301 decomposed"])
    text += row(["  padded title\t", "u2", "  padded category ", "notes with trailing space   "])
    text += row(["\u00a0nbsp ends\u00a0", "u3", "", "\u05e9\u05dc\u05d5\u05dd RTL"])
    text += row(["👩‍💻 ZWJ", "u4", "🇩🇪", "tab\tinside"])
    write("utf8-bom.csv", b"\xef\xbb\xbf" + text.encode())
    manifest.append({"file": "utf8-bom.csv"})

    # Rows of empty cells and blank lines, as spreadsheets leave them.
    text = row(header) + row(["e1", "first", "", ""]) + ",,,\r\n\r\n" + row(["e2", "second", "", ""]) + ",,,\r\n,,,\r\n\r\n"
    write("empty-rows.csv", text.encode())
    manifest.append({"file": "empty-rows.csv"})

    # Excel's Unicode Text: UTF-16LE, byte-order mark, tabs, CRLF.
    text = row(header, "\t")
    text += row(["w1", "Tab\tin title", "multi\r\nline", "Ops"], "\t")
    text += row(["w2", "日本語 🚀", "", ""], "\t")
    text += row(["w3", "quote \" inside", "x", "y"], "\t")
    write("excel-unicode-text.txt", "\ufeff".encode("utf-16-le") + text.encode("utf-16-le"))
    manifest.append({"file": "excel-unicode-text.txt", "delimiter": "\t", "encoding": "utf-16"})

    # European Excel: Windows-1252, sep=;, semicolons, trailing empty rows.
    text = "sep=;\r\n" + row(header, ";")
    text += row(["c1", "Café €5", "Zoë; \"lead\"", "Fïnance"], ";")
    text += row(["c2", "Straße", "", ""], ";")
    text += ";;;\r\n;;;\r\n"
    write("excel-windows-1252.csv", text.encode("cp1252"))
    manifest.append({"file": "excel-windows-1252.csv", "delimiter": ";", "encoding": "windows-1252", "options": ["--encoding", "windows-1252"]})

    # Read-buffer boundaries: a CRLF, a doubled quote, a 4-byte character, a quote that opens and
    # one that closes a field land across each multiple of 64 KiB.
    constructs = ["\r\n", '""', "😀", "open", "close", "é"]
    body = bytearray(row(header).encode())
    number = 0
    for index, construct in enumerate(constructs):
        boundary = CHUNK * (index + 1)
        while True:
            number += 1
            line = row([f"b{number}", f"row {number}", "filler " * (number % 9), "c"]).encode()
            if len(body) + len(line) + 200 > boundary:
                break
            body += line
        number += 1
        # Pad the title so that the construct's first byte is the last one before the boundary.
        if construct == "\r\n":
            prefix = f"b{number},boundary crlf ".encode()
            body += prefix + b"p" * (boundary - 1 - len(body) - len(prefix) - 4) + b",n,c\r\n"
        elif construct == '""':
            prefix = f'b{number},"boundary doubled '.encode()
            body += prefix + b"q" * (boundary - 1 - len(body) - len(prefix)) + b'"" quote",n,c\r\n'
        elif construct == "open":
            prefix = f"b{number},boundary opening quote ".encode()
            body += prefix + b"o" * (boundary - 2 - len(body) - len(prefix)) + b',"opened, across",c\r\n'
        elif construct == "close":
            prefix = f'b{number},"boundary closing quote, '.encode()
            body += prefix + b"c" * (boundary - 1 - len(body) - len(prefix)) + b'",n,c\r\n'
        else:
            encoded = construct.encode()
            prefix = f"b{number},boundary {len(encoded)}-byte ".encode()
            body += prefix + b"m" * (boundary - 1 - len(body) - len(prefix)) + encoded + b" split,n,c\r\n"
    write("buffer-boundaries.csv", bytes(body))
    manifest.append({"file": "buffer-boundaries.csv"})

    # Standard input in small pieces: the same bytes arrive a few at a time.
    for name, piece in [("line-breaks.csv", 1), ("quotes.csv", 3), ("utf8-bom.csv", 2), ("excel-unicode-text.txt", 3)]:
        entry = dict(next(m for m in manifest if m["file"] == name))
        entry["stdin_piece"] = piece
        manifest.append(entry)

    with open(os.path.join(HERE, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    main()
