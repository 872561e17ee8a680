"""Writes N rows of realistic task CSV in taskimport's (and taskctl export's) format.
Usage: make_tasks_csv.py [--retitle] N PATH
--retitle: the same rows with every title changed (W4's update of every row)."""
import csv
import random
import sys

WORDS = ("review deploy fix write plan update check migrate design test refactor document release "
         "invoice client backlog sprint budget report meeting onboarding").split()


def main():
    arguments = sys.argv[1:]
    retitle = arguments[0] == "--retitle"
    if retitle:
        arguments = arguments[1:]
    count, path = int(arguments[0]), arguments[1]
    rng = random.Random(42)
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["External ID", "Title", "Notes", "Status", "Priority", "Due Date", "Assignee", "Category"])
        for n in range(1, count + 1):
            title = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 8))).capitalize()
            if n % 50 == 0:
                title += ', "quoted"'
            if retitle:
                title = "Renamed: " + title
            notes = "" if n % 3 == 0 else f"Details for task {n}: " + " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 20)))
            if n % 97 == 0:
                notes += "\nSecond line of notes"
            writer.writerow([
                f"EXT-{n}", title, notes, ("open", "in_progress", "done")[n % 3],
                ("none", "low", "medium", "high", "urgent")[n % 5],
                f"2026-{1 + n % 12:02d}-{1 + n % 28:02d}" if n % 4 else "",
                "", "" if n % 5 == 0 else f"Area {n % 13}",
            ])


if __name__ == "__main__":
    main()
