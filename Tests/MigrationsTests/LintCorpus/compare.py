#!/usr/bin/env python3
"""Runs taskmigrate lint and squawk over every case of this corpus, side by side.

Usage: Tests/MigrationsTests/LintCorpus/compare.py [--markdown] [--squawk PATH] [--squawk-exclude RULES] [--taskmigrate PATH]

A case is a file, or a folder linted as one history, under risky/ (must be flagged) or safe/
(must pass). Prints each case with what each tool reported, then per tool: risky cases caught,
risky cases missed, safe cases flagged (false positives).

taskmigrate: `taskmigrate lint --offline FILE` (or `--dir FOLDER`); flagged when it exits 6.
squawk (pip install squawk-cli): `squawk --reporter=json --pg-version=15
--exclude=require-lock-timeout,require-statement-timeout [--assume-in-transaction] FILE`, with
--assume-in-transaction for every file not marked -- migrate:no-transaction (taskmigrate runs
each such file in a transaction, and sets lock_timeout and statement_timeout itself, which is
why the two timeout rules are excluded).

A risky case counts as caught by squawk when squawk reports one of the rules listed for the
expected hazard in SQUAWK_EQUIVALENTS; a risky case squawk reports only for an unrelated
reason (e.g. prefer-robust-stmts on a CONCURRENTLY inside a transaction) counts as "flagged
for another reason", not caught. A safe case is a false positive when a tool reports anything.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.abspath(__file__))
PACKAGE = os.path.abspath(os.path.join(ROOT, "..", "..", ".."))
SQUAWK_EXCLUDED = "require-lock-timeout,require-statement-timeout"

# The squawk rules that name the same hazard as each taskmigrate rule (squawk 2.70).
SQUAWK_EQUIVALENTS = {
    "create-index-not-concurrently": {"require-concurrent-index-creation", "disallowed-unique-constraint", "adding-serial-primary-key-field"},
    "drop-index-not-concurrently": {"require-concurrent-index-deletion"},
    "reindex-not-concurrently": {"require-concurrent-reindex"},
    "vacuum-full": {"prefer-repack"},
    "cluster": {"prefer-repack"},
    "add-column-not-null-without-default": {"adding-required-field"},
    "volatile-default": {"adding-field-with-default"},
    "alter-column-type": {"changing-column-type"},
    "constraint-without-not-valid": {"constraint-missing-not-valid", "adding-foreign-key-constraint", "ban-alter-domain-with-add-constraint"},
    "set-not-null": {"adding-not-nullable-field"},
    "drop-column": {"ban-drop-column"},
    "drop-table": {"ban-drop-table"},
    "rename-column": {"renaming-column"},
    "rename-table": {"renaming-table"},
    "drop-not-null": {"ban-drop-not-null"},
    "truncate": {"ban-truncate-cascade"},
    "drop-database": {"ban-drop-database"},
    "drop-schema": {"ban-drop-schema"},
    "drop-object": {"ban-drop-view", "ban-drop-function", "ban-drop-type", "ban-drop-domain", "ban-drop-sequence", "ban-drop-extension"},
    "concurrently-in-transaction": {"ban-concurrent-index-creation-in-transaction"},
    "prefer-text": {"prefer-text-field"},
    "ban-char": {"ban-char-field"},
    "prefer-bigint-id": {"prefer-bigint-over-int", "prefer-bigint-over-smallint"},
    "prefer-identity": {"prefer-identity"},
    "prefer-timestamptz": {"prefer-timestamp-tz"},
}


def cases():
    for kind in ("risky", "safe"):
        for name in sorted(os.listdir(os.path.join(ROOT, kind))):
            path = os.path.join(ROOT, kind, name)
            files = sorted(os.path.join(path, f) for f in os.listdir(path)) if os.path.isdir(path) else [path]
            with open(files[0], encoding="utf-8") as first:
                expected = first.readline().strip().removeprefix("-- expect: ")
            yield kind, os.path.relpath(path, ROOT), path, files, expected


def taskmigrate_rules(tool, path, files):
    arguments = [tool, "lint", "--offline", "--json"] + (["--dir", path] if os.path.isdir(path) else [path])
    run = subprocess.run(arguments, capture_output=True, text=True, env={**os.environ, "DATABASE_URL": ""})
    document = json.loads(run.stdout)
    return sorted({f["rule"] for f in document["findings"] if not f["allowed"]})


def squawk_rules(tool, files, excluded):
    rules = set()
    for file in files:
        with open(file, encoding="utf-8") as handle:
            in_transaction = "-- migrate:no-transaction" not in handle.read()
        arguments = [tool, "--reporter=json", "--pg-version=15"] + (["--exclude=" + excluded] if excluded else [])
        if in_transaction:
            arguments.append("--assume-in-transaction")
        run = subprocess.run(arguments + [file], capture_output=True, text=True)
        if run.stdout.strip():
            rules |= {v["rule_name"] for v in json.loads(run.stdout)}
        elif run.returncode not in (0, 1):
            sys.exit(f"squawk failed on {file}: {run.stderr.strip()}")
    return sorted(rules)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true", help="print the per-case table as Markdown")
    parser.add_argument("--squawk", default=shutil.which("squawk") or "squawk")
    parser.add_argument("--squawk-exclude", default=SQUAWK_EXCLUDED, help="squawk rules to exclude ('' for squawk's defaults)")
    parser.add_argument("--taskmigrate", default=os.path.join(PACKAGE, ".build", "debug", "taskmigrate"))
    options = parser.parse_args()
    version = subprocess.run([options.squawk, "--version"], capture_output=True, text=True).stdout.strip()

    totals = {tool: {"caught": 0, "other": 0, "missed": 0, "false positives": 0} for tool in ("taskmigrate", "squawk")}
    rows = []
    for kind, name, path, files, expected in cases():
        found = {"taskmigrate": taskmigrate_rules(options.taskmigrate, path, files), "squawk": squawk_rules(options.squawk, files, options.squawk_exclude)}
        for tool, rules in found.items():
            right = {expected} if tool == "taskmigrate" else SQUAWK_EQUIVALENTS.get(expected, set())
            if kind == "risky":
                totals[tool]["caught" if right & set(rules) else "other" if rules else "missed"] += 1
            elif rules:
                totals[tool]["false positives"] += 1
        rows.append((name, expected, ", ".join(found["taskmigrate"]) or "-", ", ".join(found["squawk"]) or "-"))

    if options.markdown:
        print("| case | expected | taskmigrate lint | squawk |")
        print("|---|---|---|---|")
        for row in rows:
            print("| " + " | ".join(f"`{cell}`" if cell not in ("-", "none") else cell for cell in row) + " |")
    else:
        for row in rows:
            print(f"{row[0]:<58} expect {row[1]:<36} taskmigrate: {row[2]:<36} squawk: {row[3]}")
    risky = sum(1 for row in rows if row[1] != "none")
    print(f"\n{risky} risky cases, {len(rows) - risky} safe cases; {version}, --exclude={options.squawk_exclude or '(none)'}")
    for tool, count in totals.items():
        print(
            f"{tool:<12} caught {count['caught']}/{risky}, flagged for another reason {count['other']}, missed {count['missed']},"
            f" false positives {count['false positives']}/{len(rows) - risky}"
        )


if __name__ == "__main__":
    main()
