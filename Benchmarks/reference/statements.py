"""Reads the statement dumps written by `taskbase-bench dump` (see StatementDump.swift)."""

NUMBER_MARKER = "777"


def load(path):
    """Returns [(sql, [value or None, ...]), ...]."""
    statements = []
    with open(path, "rb") as f:
        count = int(f.readline().split()[1])

        def block(tag):
            line = f.readline().decode()
            if line == "NULL\n":
                return None
            name, length = line.split()
            assert name == tag, line
            data = f.read(int(length)).decode()
            f.read(1)
            return data

        for _ in range(count):
            sql = block("SQL")
            params = [block("PARAM") for _ in range(int(f.readline().split()[1]))]
            statements.append((sql, params))
    return statements


def with_number(params, number):
    """The parameters with the varying task number substituted."""
    return [str(number) if value == NUMBER_MARKER else value for value in params]
