#!/usr/bin/env python3
"""masthead audit on Apache Spark: one audit of a receipts file split across executors by user.

    python3 masthead_audit_job.py --catalog DIR --receipts INPUT --at RFC3339 [--at ...]
        --output DIR [--grants FILE] [--masthead PATH] [--master URL]

The receipts (and grants) lines are read as bytes, split at `\n` only, and partitioned by a
stable hash of `user_id` -- 64-bit FNV-1a of its UTF-8 bytes, modulo the number of partitions, the
rule of `masthead audit --shard K/N` (part K is partition K - 1). Each line keeps its place (its
input split and its line within the split, which order lines as their line numbers do; the splits'
counts of lines, gathered on the way, turn places into line numbers for messages). Each partition
is audited by its Python worker: the lines are written to a local file as they arrive, put in
order (grants first, then by place), the grants written to a temporary file and the receipts lines
streamed into `masthead audit --catalog DIR --receipts - --at ... [--grants TMP] --summary-json
TMP`; masthead's results are the partition's lines, and its messages (with places for line
numbers), its JSON summary and its exit status go to the driver by an accumulator.

OUTPUT/part-NNNNN hold the results, in input order within each part; taken together they are
the lines of `masthead audit` of the whole input (as a multiset: the single audit writes them in
input order, the parts in input order per partition). OUTPUT/summary.json is the sum of the
partitions' JSON summaries (the layout of `--summary-json`), OUTPUT/summary.txt that sum laid out
as the single audit lays out its summary table; OUTPUT/messages.txt the rejected lines and
unplaced grants with the input's own names and line numbers, in the single audit's order. The
messages and the table also go to standard error. The exit status is the audit's: 1 when a line was
rejected, else 0; a partition whose masthead fails (any other exit, or no summary) fails the job.

masthead and the catalog must be at the same paths on every executor.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from array import array

FNV_OFFSET = 0xCBF29CE484222325
FNV_PRIME = 0x00000100000001B3
MASK64 = 0xFFFFFFFFFFFFFFFF

#: The width of a summary cell, as `AuditSummary.rendered` pads it.
COLUMN_WIDTH = 26
#: Exit status of a usage error, as masthead's.
EX_USAGE = 64


def fnv1a64(data):
    """64-bit FNV-1a of `data`, a user id's UTF-8 bytes (masthead's `Shard.hash`)."""
    value = FNV_OFFSET
    for byte in data:
        value = ((value ^ byte) * FNV_PRIME) & MASK64
    return value


def partition_of(user_id, partitions):
    """The partition of a user id's UTF-8 bytes: the hash modulo the count (part `K` of
    `--shard K/N` is `K - 1`)."""
    return fnv1a64(user_id) % partitions


def _json_text(line):
    """The line's JSON value, numbers kept as their text; None when it is not JSON."""
    try:
        return json.loads(line, parse_int=str, parse_float=str)
    except ValueError:
        return None


def _id_bytes(value, allow_empty):
    """A user id's UTF-8 bytes as masthead reads one: a string or a number's text, valid Unicode."""
    if not isinstance(value, str) or (not value and not allow_empty):
        return None
    try:
        return value.encode("utf-8")
    except UnicodeEncodeError:
        return None


def is_blank(line):
    """Whether masthead skips the receipts line (bytes): only spaces and tabs (before a final CR)."""
    return not line.removesuffix(b"\r").strip(b" \t")


#: A line that starts with its user id, as `masthead generate` writes them: when masthead accepts
#: such a line (no duplicate key, valid JSON), its user is that string. The class leaves out the
#: quote, the backslash (escapes) and control characters; bytes from 0x80 up are the UTF-8 of the
#: id's other characters, taken as they are.
LEADING_USER_ID = re.compile(rb'\{"user_id":"([^"\\\x00-\x1f]+)"')


#: The byte-order mark (its UTF-8 bytes) masthead's JSON reader skips at the start of each line's document.
BYTE_ORDER_MARK = b"\xef\xbb\xbf"


def receipts_user_id(line):
    """The `user_id` of a receipts line (its bytes) as masthead reads it -- a non-empty string, or
    a number's text -- as UTF-8 bytes, or None when it has none (masthead rejects the line;
    partition 0 reports it, as the first shard does). Where a line goes matters only for the lines
    masthead accepts. One byte-order mark at the start of the line is skipped, as masthead skips it
    on every line. A line that does not start with a plain `{"user_id":"..."` is parsed whole."""
    line = line.removeprefix(BYTE_ORDER_MARK)
    leading = LEADING_USER_ID.match(line)
    if leading:
        return leading.group(1)
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        return None
    root = _json_text(text)
    return _id_bytes(root.get("user_id"), allow_empty=False) if isinstance(root, dict) else None


def grants_user_id(line, first_line):
    """What a grants line (its bytes) is to masthead: ("blank", None), ("header", None) (a CSV
    first line of the file whose first field is `user_id`), ("grant", user id bytes), or
    ("invalid", None) (masthead stops the audit at such a line; partition 0 gets it)."""
    try:
        text = line.decode("utf-8").strip(" \t\r")
    except UnicodeDecodeError:
        return ("invalid", None)
    if not text:
        return ("blank", None)
    if text.startswith("{"):
        root = _json_text(text)
        user = _id_bytes(root.get("user_id"), allow_empty=True) if isinstance(root, dict) else None
        return ("grant", user) if user is not None else ("invalid", None)
    if '"' in text:
        return ("invalid", None)
    fields = [field.strip(" \t\r") for field in text.split(",")]
    if first_line and fields[0] == "user_id":
        return ("header", None)
    if len(fields) in (3, 4) and all(fields[:3]):
        return ("grant", fields[0].encode("utf-8"))
    return ("invalid", None)


# Summaries ----------------------------------------------------------------------------------------


class SummaryError(ValueError):
    """A summary that is not what `masthead audit --summary-json` writes for a whole (unsharded) audit."""


#: The members of a summary (`masthead audit --summary-json`, documented in Auditing.md) that hold one count.
COUNTS = ("linesRead", "users", "rejectedLines", "unknownProductTransactions", "userPublicationLines")
#: The members of a summary's `accessFrom`: lines with access from the App Store only, grants only, both.
ACCESS_SOURCES = ("appStoreOnly", "grantsOnly", "both")


def read_summary(text):
    """The summary `masthead audit --summary-json` wrote, checked: a dict with its members, every
    per-instant array as long as `instants`, every count a non-negative integer."""
    try:
        summary = json.loads(text)
    except ValueError as error:
        raise SummaryError(f"not JSON: {error}") from None
    if not isinstance(summary, dict):
        raise SummaryError("not a JSON object")
    if "shard" in summary:
        raise SummaryError("a shard's summary")
    instants = summary.get("instants")
    if not isinstance(instants, list) or not instants or not all(isinstance(i, str) for i in instants):
        raise SummaryError("instants: not a list of instants")

    def count(value, where):
        if type(value) is not int or value < 0:
            raise SummaryError(f"{where}: not a count: {value!r}")
        return value

    def per_instant(value, where):
        if not isinstance(value, list) or len(value) != len(instants):
            raise SummaryError(f"{where}: not {len(instants)} counts")
        return [count(v, where) for v in value]

    def member(value, name, kind, where):
        if not isinstance(value, dict) or not isinstance(value.get(name), kind):
            raise SummaryError(f"{where}.{name}: missing or of the wrong type")
        return value[name]

    for name in COUNTS:
        count(summary.get(name), name)
    signed = member(summary, "signedData", dict, "$")
    count(signed.get("users"), "signedData.users")
    member(signed, "signaturesVerified", bool, "signedData")
    for state, counts in member(summary, "byStatus", dict, "$").items():
        per_instant(counts, f"byStatus.{state}")
    for index, entry in enumerate(member(summary, "byProduct", list, "$")):
        member(entry, "product", str, f"byProduct[{index}]")
        per_instant(entry.get("entitled"), f"byProduct[{index}].entitled")
        per_instant(entry.get("lines"), f"byProduct[{index}].lines")
    access = member(summary, "accessFrom", dict, "$")
    for name in ACCESS_SOURCES:
        per_instant(access.get(name), f"accessFrom.{name}")
    for index, entry in enumerate(member(summary, "grantsBySource", list, "$")):
        member(entry, "source", str, f"grantsBySource[{index}]")
        count(entry.get("grants"), f"grantsBySource[{index}].grants")
    member(summary, "reconciled", bool, "$")
    for index, finding in enumerate(member(summary, "findings", list, "$")):
        member(finding, "kind", str, f"findings[{index}]")
        per_instant(finding.get("total"), f"findings[{index}].total")
        for inner, entry in enumerate(member(finding, "products", list, f"findings[{index}]")):
            member(entry, "product", str, f"findings[{index}].products[{inner}]")
            per_instant(entry.get("counts"), f"findings[{index}].products[{inner}].counts")
    grants = member(summary, "unknownGrants", dict, "$")
    for name in ("users", "publications", "issues"):
        count(grants.get(name), f"unknownGrants.{name}")
    return summary


def _by_bytes(product):
    """The order masthead gives product ids: their UTF-8 bytes."""
    return product.encode("utf-8")


def _worst_first(entry):
    """The order of a finding's products: most at the last instant, then most at any, then by bytes."""
    return (-entry["counts"][-1], -max(entry["counts"]), _by_bytes(entry["product"]))


def add_summaries(total, other):
    """The summaries of two partitions of one audit together (per instant, never across
    instants), in the layout `masthead audit --summary-json` writes."""
    if total["instants"] != other["instants"]:
        raise SummaryError("summaries of different instants")

    def add(a, b):
        return [x + y for x, y in zip(a, b)]

    def merged(entries, names):
        by_product = {}
        for entry in entries:
            into = by_product.setdefault(entry["product"], {"product": entry["product"]})
            for name in names:
                into[name] = add(into[name], entry[name]) if name in into else list(entry[name])
        return list(by_product.values())

    def total_of(name):
        return total[name] + other[name]

    # The members in the order masthead writes them.
    result = {
        "instants": total["instants"], "linesRead": total_of("linesRead"), "users": total_of("users"),
        "rejectedLines": total_of("rejectedLines"),
        "signedData": {
            "users": total["signedData"]["users"] + other["signedData"]["users"],
            "signaturesVerified": total["signedData"]["signaturesVerified"] and other["signedData"]["signaturesVerified"],
        },
        "unknownProductTransactions": total_of("unknownProductTransactions"), "userPublicationLines": total_of("userPublicationLines"),
    }
    zero = [0] * len(total["instants"])
    states = list(total["byStatus"]) + [s for s in other["byStatus"] if s not in total["byStatus"]]
    result["byStatus"] = {s: add(total["byStatus"].get(s, zero), other["byStatus"].get(s, zero)) for s in states}
    result["byProduct"] = sorted(merged(total["byProduct"] + other["byProduct"], ("entitled", "lines")), key=lambda e: _by_bytes(e["product"]))
    result["accessFrom"] = {name: add(total["accessFrom"][name], other["accessFrom"][name]) for name in ACCESS_SOURCES}
    by_source = {}
    for entry in total["grantsBySource"] + other["grantsBySource"]:
        by_source[entry["source"]] = by_source.get(entry["source"], 0) + entry["grants"]
    result["grantsBySource"] = [{"source": source, "grants": by_source[source]} for source in sorted(by_source, key=_by_bytes)]
    result["reconciled"] = total["reconciled"] or other["reconciled"]
    findings = {}
    for finding in total["findings"] + other["findings"]:
        findings.setdefault(finding["kind"], []).append(finding)
    result["findings"] = [
        {
            "kind": kind,
            "total": [sum(column) for column in zip(*(f["total"] for f in parts))],
            "products": sorted(merged([p for f in parts for p in f["products"]], ("counts",)), key=_worst_first),
        }
        for kind, parts in findings.items()
    ]
    result["unknownGrants"] = {name: total["unknownGrants"][name] + other["unknownGrants"][name] for name in ("users", "publications", "issues")}
    return result


def render_summary(summary):
    """The summary table of a summary, laid out as `masthead audit` lays it out on standard error
    (`AuditSummary.rendered`)."""
    rows = []

    def row(label, cells=()):
        rows.append((label, list(cells)))

    row("audit summary")
    row("  lines read", [str(summary["linesRead"])])
    row("  users", [str(summary["users"])])
    row("  rejected lines", [str(summary["rejectedLines"])])
    signed = summary["signedData"]
    if signed["users"] > 0 or not signed["signaturesVerified"]:
        trust = "every signature verified" if signed["signaturesVerified"] else "signatures NOT verified (trusted as verified at ingest)"
        row("  signed data", [f"{signed['users']} user(s), {trust}"])
    row("  unknown products", [f"{summary['unknownProductTransactions']} transaction(s)"])
    row("  (user, publication)", [str(summary["userPublicationLines"])])
    row("  as of", summary["instants"])
    row("  by status (lines)")
    for state, counts in summary["byStatus"].items():
        row(f"    {state}", [str(c) for c in counts])
    row("  by product (entitled / lines; a line counts under its latest auto-renewable product, else the pass or free product "
        "that covers (or last covered) the instant, else (single issues) or (none))")
    for entry in sorted(summary["byProduct"], key=lambda e: _by_bytes(e["product"])):
        row(f"    {entry['product']}", [f"{e} / {n}" for e, n in zip(entry["entitled"], entry["lines"])])
    row("  access from (lines)")
    for name, label in zip(ACCESS_SOURCES, ("App Store only", "grants only", "both")):
        row(f"    {label}", [str(c) for c in summary["accessFrom"][name]])
    if summary["grantsBySource"]:
        row("  grants by source (held by the users)")
        for entry in sorted(summary["grantsBySource"], key=lambda e: _by_bytes(e["source"])):
            row(f"    {entry['source']}", [str(entry["grants"])])
    grants = summary["unknownGrants"]
    any_finding = any(any(entry["counts"]) for finding in summary["findings"] for entry in finding["products"])
    if any_finding or grants["users"] + grants["publications"] + grants["issues"] > 0 or summary["reconciled"]:
        row("  reconciliation (issues per instant, by the product of their line)")
        for finding in summary["findings"]:
            row(f"    {finding['kind']}", [str(t) for t in finding["total"]])
            for entry in sorted(finding["products"], key=_worst_first):
                row(f"      {entry['product']}", [str(c) for c in entry["counts"]])
        row("    unknown grants", [f"users {grants['users']}, publications {grants['publications']}, issues {grants['issues']}"])
    width = max(len(label) for label, cells in rows if cells) + 3
    out = []
    for label, cells in rows:
        line = label if not cells else label.ljust(width) + "".join(cell.ljust(COLUMN_WIDTH) for cell in cells)
        out.append(line.rstrip(" ") + "\n")
    return "".join(out)


# Numbering lines ----------------------------------------------------------------------------------

#: The files a record comes from, in the order a partition lists them: its grants, then its receipts.
GRANTS, RECEIPTS = 0, 1
#: The bits of a record's place (`place`) that hold the line within its split, and the split.
LINE_BITS, SPLIT_BITS = 40, 22


def place(kind, split, index):
    """A record's place as one integer: its file (`GRANTS`, `RECEIPTS`), the input split it was
    read from and its line within the split (from 0). Places order records as (file, line number)
    does, with no pass over the input to count each split's lines first."""
    if not (0 <= split < 1 << SPLIT_BITS and 0 <= index < 1 << LINE_BITS):
        raise ValueError(f"split {split}, line {index}: beyond what a place holds")
    return (kind << (SPLIT_BITS + LINE_BITS)) | (split << LINE_BITS) | index


class LineNumbers:
    """The line numbers (from 1) of a file's places, given the count of lines of each of its
    splits (every split from 0 on, blank lines counted)."""

    def __init__(self, counts):
        if sorted(counts) != list(range(len(counts))):
            raise RuntimeError(f"line counts of splits {sorted(counts)}, not of every split from 0")
        self.starts = []
        total = 0
        for split in range(len(counts)):
            self.starts.append(total)
            total += counts[split]

    def number(self, at):
        """The line number of place `at`."""
        split = (at >> LINE_BITS) & ((1 << SPLIT_BITS) - 1)
        return self.starts[split] + (at & ((1 << LINE_BITS) - 1)) + 1


def receipts_records(partitions, line_counts):
    """The records of one split of the receipts (a `mapPartitionsWithIndex` function): each
    non-blank line as `(partition, (place, line))`; the split's count of lines goes to
    `line_counts` as `{(RECEIPTS, split): count}`."""
    def records(split, lines):
        count = 0
        for index, line in enumerate(lines):
            count = index + 1
            if is_blank(line):
                continue
            user = receipts_user_id(line)
            yield (0 if user is None else partition_of(user, partitions), (place(RECEIPTS, split, index), line))
        line_counts.add({(RECEIPTS, split): count})
    return records


def grants_records(partitions, line_counts):
    """The records of one split of the grants, as `receipts_records`'s, without blank lines and
    the header."""
    def records(split, lines):
        count = 0
        for index, line in enumerate(lines):
            count = index + 1
            kind, user = grants_user_id(line, first_line=split == 0 and index == 0)
            if kind in ("blank", "header"):
                continue
            yield (0 if user is None else partition_of(user, partitions), (place(GRANTS, split, index), line))
        line_counts.add({(GRANTS, split): count})
    return records


# The partition runner (on the executors) ----------------------------------------------------------

REJECTED = re.compile(r"-:(\d+): (.*)")
UNKNOWN_USERS = re.compile(
    r" (\d+) grant\(s\) of (\d+) user\(s\) without a receipt line, not reconciled \(first: line (\d+), user (.*)\)")
#: A grants line of a failed partition's message, until the driver knows its number.
GRANTS_LINE = re.compile(r"\{grants-line (\d+)\}")
#: The most bytes copied from a partition's store at once.
CHUNK = 1 << 20


class Part:
    """What each partition's audit needs: the masthead binary, the catalog, the instants, whether
    there are grants, and the variables of the environment masthead runs in that replace the
    executor's (the driver's `PATH`, `TMPDIR`, `LANG` and `LC_ALL`)."""

    def __init__(self, masthead, catalog, at, grants, environment):
        self.masthead, self.catalog, self.at, self.grants, self.environment = masthead, catalog, at, grants, environment


def audit_partition(part, index, records, report):
    """Audits partition `index` from its `(partition, (place, line))` records, in any order:
    writes them to a file as they come, sorts their places (grants first, then by line), writes
    the grants in that order to a file (after a blank first line, so no grant is read as a
    header), streams the receipts lines in that order into `masthead audit --receipts -
    --summary-json TMP [--grants TMP]`, and yields masthead's result lines (bytes, without the
    newline). Before the first result it calls `report` with the partition's report, a list of
    `("reject", place, text)`, `("grant", place, text)`, `("unknown-users", grants, users, place,
    user)`, `("other", message)`, `("summary", JSON text)` and `("status", code)`. A masthead that
    fails (any exit but 0 and 1, or no summary) raises RuntimeError naming the partition, with
    `{grants-line PLACE}` for each grants line its message names."""
    environment = {**os.environ, **part.environment}
    folder = tempfile.mkdtemp(prefix="masthead-part-", dir=environment.get("TMPDIR"))
    try:
        places, ends = [], array("q")
        end = 0
        with open(os.path.join(folder, "lines"), "wb", buffering=CHUNK) as store:
            for _, (at, line) in records:
                store.write(line)
                store.write(b"\n")
                end += len(line) + 1
                places.append(at)
                ends.append(end)
        order = sorted(range(len(places)), key=places.__getitem__)
        grants = sum(1 for at in places if at >> (SPLIT_BITS + LINE_BITS) == GRANTS)
        with open(os.path.join(folder, "lines"), "rb") as store:
            grants_path = os.path.join(folder, "grants") if part.grants else None
            if grants_path:
                with open(grants_path, "wb") as file:
                    file.write(b"\n")
                    _copy(store.fileno(), _spans(order[:grants], ends), file.write)
            summary_path = os.path.join(folder, "summary.json")
            command = [part.masthead, "audit", "--catalog", part.catalog, "--receipts", "-", "--summary-json", summary_path]
            for instant in part.at:
                command += ["--at", instant]
            if grants_path:
                command += ["--grants", grants_path]
            results_path = os.path.join(folder, "results")
            with open(os.path.join(folder, "errors"), "w+b") as errors, open(results_path, "wb") as results:
                process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=results, stderr=errors, env=environment)
                try:
                    _copy(store.fileno(), _spans(order[grants:], ends), process.stdin.write)
                    process.stdin.close()
                except BrokenPipeError:
                    pass
                status = process.wait()
                errors.seek(0)
                messages = errors.read().decode("utf-8", errors="replace").splitlines()

        def receipts_place(number):
            return places[order[grants + number - 1]] if 1 <= number <= len(order) - grants else None

        def grants_place(number):
            return places[order[number - 2]] if 2 <= number <= grants + 1 else None

        if not os.path.exists(summary_path) or status not in (0, 1):
            text = "; ".join(messages) or "no message"
            if grants_path:
                text = re.sub(re.escape(grants_path) + r":(\d+):", lambda m: _grants_line(grants_place(int(m.group(1))), m.group(0)), text)
            raise RuntimeError(f"partition {index}: masthead audit exited with status {status}: {text}")
        # The messages come before the summary table, which the JSON summary stands for.
        start = messages.index("audit summary") if "audit summary" in messages else len(messages)
        entries = [_entry(message, grants_path, receipts_place, grants_place) for message in messages[:start]]
        with open(summary_path, encoding="utf-8") as file:
            entries.append(("summary", file.read()))
        entries.append(("status", status))
        report(entries)
        with open(results_path, "rb") as file:
            for line in file:
                yield line.removesuffix(b"\n")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _spans(order, ends):
    """The byte ranges of the store's records `order` (indices into `ends`, where each record
    ends), records next to each other in the file joined into one range."""
    start = stop = None
    for record in order:
        begin = ends[record - 1] if record else 0
        if begin == stop:
            stop = ends[record]
            continue
        if stop is not None:
            yield start, stop
        start, stop = begin, ends[record]
    if stop is not None:
        yield start, stop


def _copy(descriptor, spans, write):
    """Writes the byte ranges `spans` of the file open as `descriptor`, at most `CHUNK` bytes at a time."""
    for start, stop in spans:
        while start < stop:
            chunk = os.pread(descriptor, min(stop - start, CHUNK), start)
            if not chunk:
                raise RuntimeError(f"the partition's store ends at byte {start}, before {stop}")
            write(chunk)
            start += len(chunk)


def _grants_line(at, text):
    """A grants line of a failed partition's message: `{grants-line PLACE}:`, or the text as it is."""
    return text if at is None else f"{{grants-line {at}}}:"


def _entry(message, grants_path, receipts_place, grants_place):
    """One message of masthead's as a report entry, its lines as places."""
    rejected = REJECTED.fullmatch(message)
    if rejected:
        at = receipts_place(int(rejected.group(1)))
        if at is not None:
            return ("reject", at, rejected.group(2))
    if grants_path and message.startswith(grants_path + ":"):
        rest = message[len(grants_path) + 1:]
        unknown = UNKNOWN_USERS.fullmatch(rest)
        if unknown and grants_place(int(unknown.group(3))) is not None:
            grants, users, first, user = unknown.groups()
            return ("unknown-users", int(grants), int(users), grants_place(int(first)), user)
        problem = re.fullmatch(r"(\d+): (.*)", rest)
        if problem and grants_place(int(problem.group(1))) is not None:
            return ("grant", grants_place(int(problem.group(1))), problem.group(2))
    return ("other", message)


# The driver ---------------------------------------------------------------------------------------


class Usage(Exception):
    """A usage error (exit 64)."""


class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise Usage(f"{self.prog}: {message}")


def arguments(argv):
    parser = Parser(prog="masthead_audit_job.py", description="masthead audit on Apache Spark, partitioned by user.")
    parser.add_argument("--catalog", required=True, metavar="DIR")
    parser.add_argument("--receipts", required=True, metavar="INPUT", help="JSON lines, one user per line")
    parser.add_argument("--at", required=True, action="append", metavar="RFC3339", help="as-of instant; repeatable")
    parser.add_argument("--output", required=True, metavar="DIR", help="a local (or shared) folder that does not exist yet")
    parser.add_argument("--grants", metavar="FILE", help="CSV or JSON lines, partitioned like the receipts")
    parser.add_argument("--masthead", metavar="PATH", help="the masthead binary (default: masthead on PATH)")
    parser.add_argument("--master", metavar="URL", help="Spark master (default: spark.master, else local[*])")
    return parser.parse_args(argv)


def resolve_masthead(path):
    """The masthead binary: the path given, else `masthead` on PATH; absolute."""
    found = shutil.which(path or "masthead")
    if not found:
        raise Usage(f"masthead_audit_job.py: no masthead binary at '{path}'" if path else
                    "masthead_audit_job.py: no masthead on PATH; give --masthead PATH")
    return os.path.abspath(found)


def hadoop_path(path):
    """A path Hadoop reads: local paths made absolute, URLs (hdfs://, s3a://, file:) as given."""
    return path if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", path) else os.path.abspath(path)


def run_job(args):
    masthead = resolve_masthead(args.masthead)
    preflight = [masthead, "audit", "--catalog", args.catalog, "--receipts", "/dev/null"]
    for instant in args.at:
        preflight += ["--at", instant]
    checked = subprocess.run(preflight, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if checked.returncode != 0:
        sys.stderr.write(checked.stderr)
        return checked.returncode
    for path in [args.receipts] + ([args.grants] if args.grants else []):
        if "://" not in path and not os.path.exists(path):
            raise Usage(f"masthead_audit_job.py: no such file: {path}")
    if os.path.exists(args.output):
        raise Usage(f"masthead_audit_job.py: --output {args.output} exists (the job writes a new folder)")

    from pyspark import AccumulatorParam, SparkConf, SparkContext

    class ByKey(AccumulatorParam):
        """Values by key (a partition's report, a split's count of lines): a task run again
        replaces its own."""

        def zero(self, value):
            return {}

        def addInPlace(self, a, b):
            a.update(b)
            return a

    conf = SparkConf().setAppName("masthead audit")
    if args.master:
        conf.setMaster(args.master)
    elif not conf.contains("spark.master"):
        conf.setMaster("local[*]")
    sc = SparkContext(conf=conf)
    sc.setLogLevel("WARN")
    try:
        partitions = max(1, sc.defaultParallelism)
        # Lines split at `\n` only, as masthead splits them, and kept as bytes.
        sc._jsc.hadoopConfiguration().set("textinputformat.record.delimiter", "\n")
        line_counts = sc.accumulator({}, ByKey())
        # Each file's records are put in their partitions by the Python worker that reads them
        # (`partitionBy` runs in the same worker as the function before it); the union of the two
        # files' shuffles, partitioned alike, keeps their partitions, so no line crosses between
        # the JVM and Python once more on its way from the one to the other.
        records = sc.textFile(hadoop_path(args.receipts), use_unicode=False).mapPartitionsWithIndex(
            receipts_records(partitions, line_counts)).partitionBy(partitions, partitionFunc=_itself)
        if args.grants:
            records = sc.textFile(hadoop_path(args.grants), use_unicode=False).mapPartitionsWithIndex(
                grants_records(partitions, line_counts)).partitionBy(partitions, partitionFunc=_itself).union(records)
        if records.getNumPartitions() != partitions:
            raise RuntimeError(f"{records.getNumPartitions()} partitions after the shuffle, not {partitions}")
        environment = {name: os.environ[name] for name in ("PATH", "TMPDIR", "LANG", "LC_ALL") if name in os.environ}
        part = Part(masthead, os.path.abspath(args.catalog), args.at, bool(args.grants), environment)
        reports = sc.accumulator({}, ByKey())

        def audited(index, records):
            return audit_partition(part, index, records, lambda entries: reports.add({index: entries}))

        try:
            records.mapPartitionsWithIndex(audited).saveAsTextFile(
                os.path.abspath(args.output))
        except Exception as error:
            shutil.rmtree(args.output, ignore_errors=True)
            failed = re.search(r"RuntimeError: (partition \d+: .*)", str(error))
            text = failed.group(1) if failed else str(error)
            if failed and args.grants:
                grants = LineNumbers(_split_counts(line_counts.value, GRANTS))
                text = GRANTS_LINE.sub(lambda m: f"{args.grants}:{grants.number(int(m.group(1)))}", text)
            sys.stderr.write(f"masthead_audit_job.py: the audit failed: {text}\n")
            return 1
        collected = reports.value
        counts = line_counts.value
    finally:
        sc.stop()
    if sorted(collected) != list(range(partitions)):
        raise RuntimeError(f"reports of {len(collected)} of {partitions} partitions")
    numbers = {kind: LineNumbers(_split_counts(counts, kind)) for kind in (GRANTS, RECEIPTS)}
    return finish(args, [collected[index] for index in range(partitions)], numbers)


def _itself(partition):
    """The partition of a record's key, which is its partition: one function for both files'
    shuffles, so their partitioners are equal and their union keeps the partitions."""
    return partition


def _split_counts(counts, kind):
    """The counts of lines of one file's splits, by split, from `{(file, split): count}`."""
    return {split: count for (of, split), count in counts.items() if of == kind}


def finish(args, reports, numbers):
    """Adds up the partitions' JSON summaries and their messages (their places numbered with
    `numbers[GRANTS]` and `numbers[RECEIPTS]`), writes OUTPUT/summary.json, OUTPUT/summary.txt
    (the total laid out as masthead's table) and OUTPUT/messages.txt, prints the messages and the
    table to standard error and returns the exit status."""
    rejected, grant_problems, others = [], [], []
    unknown = None
    total = None
    status = 0
    for entries in reports:
        part = None
        for entry in entries:
            kind = entry[0]
            if kind == "reject":
                line = numbers[RECEIPTS].number(entry[1])
                rejected.append((line, f"{args.receipts}:{line}: {entry[2]}"))
            elif kind == "grant":
                line = numbers[GRANTS].number(entry[1])
                grant_problems.append((line, f"{args.grants}:{line}: {entry[2]}"))
            elif kind == "unknown-users":
                _, grants, users, at, user = entry
                first = numbers[GRANTS].number(at)
                if unknown is None:
                    unknown = [grants, users, first, user]
                else:
                    unknown[0] += grants
                    unknown[1] += users
                    if first < unknown[2]:
                        unknown[2:] = [first, user]
            elif kind == "summary":
                part = read_summary(entry[1])
            elif kind == "status":
                status = max(status, entry[1])
            else:
                others.append(entry[1])
        if part is None:
            raise SummaryError("a partition without a summary")
        total = part if total is None else add_summaries(total, part)
    messages = [m for _, m in sorted(rejected)] + [m for _, m in sorted(grant_problems)]
    if unknown:
        messages.append(
            f"{args.grants}: {unknown[0]} grant(s) of {unknown[1]} user(s) without a receipt line, not reconciled "
            f"(first: line {unknown[2]}, user {unknown[3]})")
    messages += others
    text = "".join(m + "\n" for m in messages)
    rendered = render_summary(total)
    with open(os.path.join(args.output, "messages.txt"), "w", encoding="utf-8") as file:
        file.write(text)
    with open(os.path.join(args.output, "summary.txt"), "w", encoding="utf-8") as file:
        file.write(rendered)
    with open(os.path.join(args.output, "summary.json"), "w", encoding="utf-8") as file:
        file.write(json.dumps(total, ensure_ascii=False, separators=(",", ":")) + "\n")
    sys.stderr.write(text + rendered)
    return 1 if status == 1 or total["rejectedLines"] > 0 else 0


def main(argv):
    try:
        return run_job(arguments(argv))
    except Usage as usage:
        sys.stderr.write(f"{usage}\n")
        return EX_USAGE


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
