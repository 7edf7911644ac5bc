#!/usr/bin/env python3
"""Generates kubectl-capz's AKS version lifecycle data from the AKS release calendar.

Reads articles/aks/supported-kubernetes-versions.md of MicrosoftDocs/azure-aks-docs (a path on disk: this script
downloads nothing) and writes, per minor version, its GA month, end of (community) support, end of platform support
and LTS end. With --endoflife, cross-checks the result against endoflife.date's release-data
(releases/azure-kubernetes-service.json) and fails on a disagreement. See README.md next to this file.
"""

import argparse
import calendar
import json
import re
import sys

MONTHS = {name: number for number, name in enumerate(calendar.month_abbr) if name}
# The calendar's cells: "Mar 2026", "Aug 22, 2025", "Until 1.36 GA".
MONTH_YEAR = re.compile(r"^([A-Z][a-z]{2})[a-z]*\.? (\d{4})$")
DAY_MONTH_YEAR = re.compile(r"^([A-Z][a-z]{2})[a-z]*\.? (\d{1,2}), (\d{4})$")
UNTIL_GA = re.compile(r"^Until (\d+\.\d+) GA$")
MINOR = re.compile(r"^(\d+)\.(\d+)$")
# How far endoflife.date's release dates may be from the calendar's GA month: they take them from elsewhere (the
# first patch release in AKS's release tracker), the calendar is the AKS team's own plan.
GA_TOLERANCE_DAYS = 95


def month(cell):
    """A month cell as YYYY-MM."""
    match = MONTH_YEAR.match(cell.strip())
    if not match:
        raise ValueError(f"not a month: {cell!r}")
    return f"{int(match.group(2)):04}-{MONTHS[match.group(1)]:02}"


def end_date(cell):
    """An end-of-life cell as YYYY-MM-DD: "Unless an explicit date is provided, the End of Life (EOL) date is the
    last day of the specified month" (the calendar's note)."""
    cell = cell.strip()
    match = DAY_MONTH_YEAR.match(cell)
    if match:
        return f"{int(match.group(3)):04}-{MONTHS[match.group(1)]:02}-{int(match.group(2)):02}"
    year, number = map(int, month(cell).split("-"))
    return f"{year:04}-{number:02}-{calendar.monthrange(year, number)[1]:02}"


def last_day(year_month):
    year, number = map(int, year_month.split("-"))
    return f"{year_month}-{calendar.monthrange(year, number)[1]:02}"


def tables(text):
    """Every markdown table whose header starts with "Kubernetes version": (header cells, rows of cells)."""
    found = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index].strip()
        if line.startswith("| Kubernetes version |") and index + 1 < len(lines):
            header = cells(line)
            rows = []
            index += 2
            while index < len(lines) and lines[index].strip().startswith("|"):
                rows.append(cells(lines[index].strip()))
                index += 1
            found.append((header, rows))
        index += 1
    return found


def cells(line):
    return [cell.strip() for cell in line.strip("|").split("|")]


def minor_key(minor):
    major, number = MINOR.match(minor).groups()
    return (int(major), int(number))


def parse(text):
    """Per minor version: ga (YYYY-MM), endOfSupport, platformSupportUntil (the minor whose GA ends it), ltsEnd."""
    versions = {}
    found = tables(text)
    if not found:
        raise ValueError("no table with a 'Kubernetes version' column: is this the AKS release calendar?")
    for header, rows in found:
        column = {name: position for position, name in enumerate(header)}
        for required in ("AKS GA", "End of life"):
            if required not in column:
                raise ValueError(f"table {header}: no column {required!r}")
        for row in rows:
            minor = row[0]
            if not MINOR.match(minor):
                raise ValueError(f"not a minor version: {minor!r}")
            entry = versions.setdefault(minor, {"minor": minor})
            merge(entry, "ga", month(row[column["AKS GA"]]))
            merge(entry, "endOfSupport", end_date(row[column["End of life"]]))
            if "Platform support" in column:
                until = UNTIL_GA.match(row[column["Platform support"]])
                if not until:
                    raise ValueError(f"{minor}: platform support {row[column['Platform support']]!r}")
                merge(entry, "platformSupportUntil", until.group(1))
            if "LTS End of life" in column:
                merge(entry, "ltsEnd", end_date(row[column["LTS End of life"]]))
    for minor, entry in versions.items():
        # AKS's platform support is N-3: a minor leaves it when the fourth minor after it goes GA. The calendar says
        # so for its current rows; the LTS table's older rows follow the same policy.
        major, number = minor_key(minor)
        policy = f"{major}.{number + 4}"
        listed = entry.setdefault("platformSupportUntil", policy)
        if listed != policy:
            raise ValueError(f"{minor}: platform support until {listed} GA, not N+4 ({policy})")
    for entry in versions.values():
        # The calendar gives GA months: platform support is counted through the last day of the month the fourth
        # later minor goes GA in (unknown while that minor is not in the calendar).
        successor = versions.get(entry["platformSupportUntil"])
        entry["platformSupportEnd"] = last_day(successor["ga"]) if successor else None
    return [order(versions[minor]) for minor in sorted(versions, key=minor_key)]


def merge(entry, key, value):
    if entry.get(key, value) != value:
        raise ValueError(f"{entry['minor']}: {key} is {entry[key]} in one table and {value} in another")
    entry[key] = value


def order(entry):
    keys = ["minor", "ga", "endOfSupport", "platformSupportUntil", "platformSupportEnd", "ltsEnd"]
    return {key: entry.get(key) for key in keys}


def as_of(text):
    """The calendar's own date (its front matter's ms.date, MM/DD/YYYY), as YYYY-MM-DD."""
    match = re.search(r"^ms\.date:\s*(\d{2})/(\d{2})/(\d{4})\s*$", text, re.MULTILINE)
    return f"{match.group(3)}-{match.group(1)}-{match.group(2)}" if match else None


def days(date):
    import datetime

    return datetime.date.fromisoformat(date).toordinal()


def cross_check(versions, endoflife):
    """Disagreements with endoflife.date: end of support (their eol), LTS end (their eoes), GA (their releaseDate,
    within GA_TOLERANCE_DAYS of the calendar's GA month)."""
    problems = []
    releases = endoflife.get("releases", endoflife)
    for entry in versions:
        theirs = releases.get(entry["minor"])
        if theirs is None:
            continue
        for ours, their_key in (("endOfSupport", "eol"), ("ltsEnd", "eoes")):
            if theirs.get(their_key) and entry.get(ours) and theirs[their_key] != entry[ours]:
                problems.append(f"{entry['minor']}: {ours} {entry[ours]}, endoflife.date's {their_key} {theirs[their_key]}")
        released = theirs.get("releaseDate")
        if released and abs(days(released) - days(entry["ga"] + "-01")) > GA_TOLERANCE_DAYS:
            problems.append(f"{entry['minor']}: GA {entry['ga']}, endoflife.date's releaseDate {released}")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("calendar", help="articles/aks/supported-kubernetes-versions.md of MicrosoftDocs/azure-aks-docs")
    parser.add_argument("--commit", required=True, help="the azure-aks-docs commit the calendar was read at")
    parser.add_argument("--as-of", help="the calendar's date, YYYY-MM-DD (default: its ms.date)")
    parser.add_argument("--endoflife", help="endoflife.date's releases/azure-kubernetes-service.json, to cross-check")
    parser.add_argument("-o", "--output", help="where to write the data (default: stdout)")
    args = parser.parse_args()
    with open(args.calendar, encoding="utf-8") as file:
        text = file.read()
    versions = parse(text)
    date = args.as_of or as_of(text)
    if not date:
        sys.exit("no ms.date in the calendar: give --as-of")
    if args.endoflife:
        with open(args.endoflife, encoding="utf-8") as file:
            problems = cross_check(versions, json.load(file))
        if problems:
            sys.exit("the calendar and endoflife.date disagree:\n  " + "\n  ".join(problems))
    data = {
        "source": "MicrosoftDocs/azure-aks-docs articles/aks/supported-kubernetes-versions.md",
        "commit": args.commit,
        "asOf": date,
        "versions": versions,
    }
    out = json.dumps(data, indent=2) + "\n"
    if args.output:
        with open(args.output, "w", encoding="utf-8") as file:
            file.write(out)
    else:
        sys.stdout.write(out)


if __name__ == "__main__":
    main()
