#!/usr/bin/env python3
"""python_reference.py FILE DELIMITER ENCODING — the tasks Python's csv module reads in FILE.

Reads the bytes with Python's codecs and csv.reader (strict), then applies taskimport's
documented rules, written out here independently: a first line sep=X sets the separator and is
no row, rows whose every cell is empty are skipped, CR and CRLF inside a cell become LF, titles,
categories and external ids are trimmed of Unicode White_Space at both ends, notes at the end.
Prints a JSON list of {external_id, title, notes, category} in file order.
"""
import csv
import io
import json
import sys

# Unicode's White_Space property (what TaskCore trims); str.strip() also strips U+001C-001F.
WHITE_SPACE = "\t\n\u000b\u000c\r \u0085\u00a0\u1680" + "".join(chr(c) for c in range(0x2000, 0x200B)) + "\u2028\u2029\u202f\u205f\u3000"

CODECS = {"utf-8": "utf-8-sig", "utf-16": "utf-16", "windows-1252": "cp1252", "latin1": "latin-1"}


def main():
    path, delimiter, encoding = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(path, "rb") as f:
        text = f.read().decode(CODECS[encoding])
    if text[:4].lower() == "sep=":
        end = text.find("\n")
        delimiter = text[4]
        text = text[end + 1:] if end >= 0 else ""
    rows = list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True))
    rows = [r for r in rows if any(cell != "" for cell in r)]
    header = [name.strip().lower().replace(" ", "").replace("_", "") for name in rows[0]]
    column = {name: header.index(key) for name, key in
              [("external_id", "externalid"), ("title", "title"), ("notes", "notes"), ("category", "category")]}
    tasks = []
    for r in rows[1:]:
        cell = {name: r[index].replace("\r\n", "\n").replace("\r", "\n") for name, index in column.items()}
        category = cell["category"].strip(WHITE_SPACE)
        tasks.append({
            "external_id": cell["external_id"].strip(WHITE_SPACE),
            "title": cell["title"].strip(WHITE_SPACE),
            "notes": cell["notes"].rstrip(WHITE_SPACE),
            "category": category or None,
        })
    json.dump(tasks, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()
