#!/usr/bin/env python3
"""masthead audit on Apache Spark: one audit of a receipts file split across executors by user.

    python3 masthead_audit_job.py --catalog DIR --receipts INPUT --at RFC3339 [--at ...]
        --output DIR [--grants FILE] [--masthead PATH] [--master URL]

The receipts (and grants) lines are partitioned by a stable hash of `user_id` -- 64-bit FNV-1a of
its UTF-8 bytes, modulo the number of partitions, the rule of `masthead audit --shard K/N` (part
K is partition K - 1) -- and sorted within each partition by line number, grants first. Each
partition is piped (RDD.pipe) through this file's part runner, which writes the partition's
grants to a temporary file and streams its receipts lines into
`masthead audit --catalog DIR --receipts - --at ... [--grants TMP] --summary-json TMP`, passing
masthead's results through and appending its messages, its JSON summary and its exit status as
trailer lines (`#...`, which no JSON line starts with).

OUTPUT/part-NNNNN hold the results, in input order within each part; taken together they are
the lines of `masthead audit` of the whole input (as a multiset: the single audit writes them in
input order, the parts in input order per partition). OUTPUT/summary.json is the sum of the
partitions' JSON summaries (the layout of `--summary-json`), OUTPUT/summary.txt that sum laid out
as the single audit lays out its summary table; OUTPUT/messages.txt the rejected lines and
unplaced grants with the input's own names and line numbers, in the single audit's order. The
messages and the table also go to standard error. The exit status is the audit's: 1 when a line was
rejected, else 0; a partition whose masthead fails (any other exit, or no summary) fails the job.

The job file, masthead and the catalog must be at the same paths on every executor; the part
runner is started with PYSPARK_PYTHON (else the driver's Python).
"""

import argparse
import json
import os
import re
import shlex
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


def fnv1a64(text):
    """64-bit FNV-1a of the UTF-8 bytes of `text` (masthead's `Shard.hash`)."""
    value = FNV_OFFSET
    for byte in text.encode("utf-8"):
        value = ((value ^ byte) * FNV_PRIME) & MASK64
    return value


def partition_of(user_id, partitions):
    """The partition of a user: the hash modulo the count (part `K` of `--shard K/N` is `K - 1`)."""
    return fnv1a64(user_id) % partitions


def _json_text(line):
    """The line's JSON value, numbers kept as their text; None when it is not JSON."""
    try:
        return json.loads(line, parse_int=str, parse_float=str)
    except ValueError:
        return None


def _id_text(value, allow_empty):
    """A user id as masthead reads one: a string or a number's text, valid Unicode."""
    if not isinstance(value, str) or (not value and not allow_empty):
        return None
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return None
    return value


def is_blank(line):
    """Whether masthead skips the receipts line: only spaces and tabs (before a final CR)."""
    return all(c in " \t" for c in line.removesuffix("\r"))


#: A line that starts with its user id, as `masthead generate` writes them: when masthead accepts
#: such a line (no duplicate key, valid JSON), its user is that string.
LEADING_USER_ID = re.compile(r'\{"user_id":"([^"\\\x00-\x1f]+)"')


#: The byte-order mark masthead's JSON reader skips at the start of each line's document.
BYTE_ORDER_MARK = "\ufeff"


def receipts_user_id(line):
    """The `user_id` of a receipts line as masthead reads it (a non-empty string, or a number's
    text), or None when it has none (masthead rejects the line; partition 0 reports it, as the
    first shard does). Where a line goes matters only for the lines masthead accepts. One
    byte-order mark at the start of the line is skipped, as masthead skips it on every line."""
    line = line.removeprefix(BYTE_ORDER_MARK)
    leading = LEADING_USER_ID.match(line)
    if leading:
        return leading.group(1)
    root = _json_text(line)
    return _id_text(root.get("user_id"), allow_empty=False) if isinstance(root, dict) else None


def grants_user_id(line, number):
    """What grants line `number` is to masthead: ("blank", None), ("header", None) (a CSV line 1
    whose first field is `user_id`), ("grant", user), or ("invalid", None) (masthead stops the
    audit at such a line; partition 0 gets it)."""
    text = line.strip(" \t\r")
    if not text:
        return ("blank", None)
    if text.startswith("{"):
        root = _json_text(text)
        user = _id_text(root.get("user_id"), allow_empty=True) if isinstance(root, dict) else None
        return ("grant", user) if user is not None else ("invalid", None)
    if '"' in text:
        return ("invalid", None)
    fields = [field.strip(" \t\r") for field in text.split(",")]
    if number == 1 and fields[0] == "user_id":
        return ("header", None)
    if len(fields) in (3, 4) and all(fields[:3]):
        return ("grant", fields[0])
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


# The part runner (on the executors) -----------------------------------------------------------

REJECTED = re.compile(r"-:(\d+): (.*)")
UNKNOWN_USERS = re.compile(
    r" (\d+) grant\(s\) of (\d+) user\(s\) without a receipt line, not reconciled \(first: line (\d+), user (.*)\)")


def run_part(args):
    """Audits one partition read from standard input (`g<LINE>\\t<grants line>` records, then
    `r<LINE>\\t<receipts line>` records): masthead's results to standard output, then trailer
    lines `#reject LINE\\tMESSAGE`, `#grant LINE\\tMESSAGE`, `#unknown-users GRANTS USERS LINE\\tUSER`,
    `#other\\tTEXT`, `#summary\\tJSON` (the partition's `--summary-json`, on one line) and
    `#status CODE` (`#failed\\tMESSAGE` when masthead failed)."""
    source = sys.stdin.buffer
    out = sys.stdout
    folder = tempfile.mkdtemp(prefix="masthead-part-")
    try:
        grants_path = os.path.join(folder, "grants") if args.grants_name is not None else None
        # Line 1 of the partition's grants file is blank, so no grant there is read as a header.
        grant_lines = array("q", [0])
        record = source.readline()
        if grants_path:
            with open(grants_path, "wb") as grants:
                grants.write(b"\n")
                while record.startswith(b"g"):
                    tab = record.index(b"\t")
                    grant_lines.append(int(record[1:tab]))
                    grants.write(record[tab + 1:])
                    record = source.readline()
        summary_path = os.path.join(folder, "summary.json")
        command = [args.masthead, "audit", "--catalog", args.catalog, "--receipts", "-", "--summary-json", summary_path]
        for instant in args.at:
            command += ["--at", instant]
        if grants_path:
            command += ["--grants", grants_path]
        receipt_lines = array("q")
        with open(os.path.join(folder, "errors"), "w+b") as errors:
            process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=None, stderr=errors)
            try:
                while record:
                    tab = record.index(b"\t")
                    receipt_lines.append(int(record[1:tab]))
                    process.stdin.write(record[tab + 1:])
                    record = source.readline()
                process.stdin.close()
            except BrokenPipeError:
                pass
            status = process.wait()
            errors.seek(0)
            messages = errors.read().decode("utf-8", errors="replace").splitlines()
        out.flush()
        if not os.path.exists(summary_path) or status not in (0, 1):
            text = "; ".join(messages) or "no message"
            if grants_path:
                text = re.sub(re.escape(grants_path) + r":(\d+):", lambda m: f"{args.grants_name}:{grant_lines[int(m.group(1)) - 1]}:", text)
            out.write(f"#failed\tmasthead audit exited with status {status}: {text}\n")
            return
        # The messages come before the summary table, which the JSON summary stands for.
        start = messages.index("audit summary") if "audit summary" in messages else len(messages)
        for message in messages[:start]:
            out.write(_trailer(message, grants_path, receipt_lines, grant_lines))
        with open(summary_path, encoding="utf-8") as file:
            out.write(f"#summary\t{json.dumps(json.load(file), ensure_ascii=False, separators=(',', ':'))}\n")
        out.write(f"#status {status}\n")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _trailer(message, grants_path, receipt_lines, grant_lines):
    """One message of masthead's as a trailer line, with the input's own line numbers."""
    rejected = REJECTED.fullmatch(message)
    if rejected:
        line = receipt_lines[int(rejected.group(1)) - 1]
        return f"#reject {line}\t{{receipts}}:{line}: {rejected.group(2)}\n"
    if grants_path and message.startswith(grants_path + ":"):
        rest = message[len(grants_path) + 1:]
        unknown = UNKNOWN_USERS.fullmatch(rest)
        if unknown:
            grants, users, first, user = unknown.groups()
            return f"#unknown-users {grants} {users} {grant_lines[int(first) - 1]}\t{user}\n"
        problem = re.fullmatch(r"(\d+): (.*)", rest)
        if problem:
            line = grant_lines[int(problem.group(1)) - 1]
            return f"#grant {line}\t{{grants}}:{line}: {problem.group(2)}\n"
    return f"#other\t{message}\n"


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


def part_arguments(argv):
    parser = Parser(prog="masthead_audit_job.py --part")
    parser.add_argument("--masthead", required=True)
    parser.add_argument("--catalog", required=True)
    parser.add_argument("--at", required=True, action="append")
    parser.add_argument("--grants-name")
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


def numbered_lines(sc, path):
    """The file's lines split at `\\n` only (as masthead splits them) with their numbers from 1."""
    lines = sc.newAPIHadoopFile(
        hadoop_path(path), "org.apache.hadoop.mapreduce.lib.input.TextInputFormat", "org.apache.hadoop.io.LongWritable",
        "org.apache.hadoop.io.Text", conf={"textinputformat.record.delimiter": "\n"})
    return lines.values().zipWithIndex().map(lambda pair: (pair[1] + 1, pair[0]))


def receipts_records(partitions):
    def record(numbered):
        number, line = numbered
        user = receipts_user_id(line)
        return ((0 if user is None else partition_of(user, partitions), 1, number), line)
    return record


def grants_records(partitions):
    def records(numbered):
        number, line = numbered
        kind, user = grants_user_id(line, number)
        if kind in ("blank", "header"):
            return []
        return [((0 if user is None else partition_of(user, partitions), 0, number), line)]
    return records


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

    class Trailers(AccumulatorParam):
        """The partitions' trailer lines by partition: a re-run task replaces its partition's."""

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
        records = numbered_lines(sc, args.receipts).filter(lambda numbered: not is_blank(numbered[1])).map(receipts_records(partitions))
        if args.grants:
            records = numbered_lines(sc, args.grants).flatMap(grants_records(partitions)).union(records)
        encoded = records.repartitionAndSortWithinPartitions(partitions, partitionFunc=lambda key: key[0]).map(
            lambda pair: f"{'g' if pair[0][1] == 0 else 'r'}{pair[0][2]}\t{pair[1]}")
        # The executors' Python, as Spark chooses it for its workers.
        python = os.environ.get("PYSPARK_PYTHON") or sys.executable
        command = [python, os.path.abspath(__file__), "--part", "--masthead", masthead, "--catalog", os.path.abspath(args.catalog)]
        for instant in args.at:
            command += ["--at", instant]
        if args.grants:
            command += ["--grants-name", args.grants]
        environment = {name: os.environ[name] for name in ("PATH", "TMPDIR", "LANG", "LC_ALL") if name in os.environ}
        trailers = sc.accumulator({}, Trailers())

        def results(index, lines):
            kept = []
            for line in lines:
                if line.startswith("#"):
                    if line.startswith("#failed\t"):
                        raise RuntimeError(f"partition {index}: {line[len('#failed'):].strip()}")
                    kept.append(line)
                else:
                    yield line
            trailers.add({index: kept})

        piped = encoded.pipe(shlex.join(command), env=environment, checkCode=True)
        try:
            piped.mapPartitionsWithIndex(results).saveAsTextFile(os.path.abspath(args.output))
        except Exception as error:
            shutil.rmtree(args.output, ignore_errors=True)
            failed = re.search(r"RuntimeError: (partition \d+: .*)", str(error))
            sys.stderr.write(f"masthead_audit_job.py: the audit failed: {failed.group(1) if failed else error}\n")
            return 1
        collected = trailers.value
    finally:
        sc.stop()
    if sorted(collected) != list(range(partitions)):
        raise RuntimeError(f"trailers of {len(collected)} of {partitions} partitions")
    return finish(args, [collected[index] for index in range(partitions)])


def finish(args, trailers):
    """Adds up the partitions' JSON summaries and their messages, writes OUTPUT/summary.json,
    OUTPUT/summary.txt (the total laid out as masthead's table) and OUTPUT/messages.txt, prints
    the messages and the table to standard error and returns the exit status."""
    rejected, grant_problems, others = [], [], []
    unknown = None
    total = None
    status = 0
    for lines in trailers:
        part = None
        for line in lines:
            head, _, rest = line.partition("\t")
            if head.startswith("#reject "):
                rejected.append((int(head.split()[1]), rest.replace("{receipts}", args.receipts, 1)))
            elif head.startswith("#grant "):
                grant_problems.append((int(head.split()[1]), rest.replace("{grants}", args.grants, 1)))
            elif head.startswith("#unknown-users "):
                grants, users, first = (int(n) for n in head.split()[1:])
                if unknown is None:
                    unknown = [grants, users, first, rest]
                else:
                    unknown[0] += grants
                    unknown[1] += users
                    if first < unknown[2]:
                        unknown[2:] = [first, rest]
            elif head == "#summary":
                part = read_summary(rest)
            elif head.startswith("#status "):
                status = max(status, int(head.split()[1]))
            else:
                others.append(rest)
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
        if argv[:1] == ["--part"]:
            run_part(part_arguments(argv[1:]))
            return 0
        return run_job(arguments(argv))
    except Usage as usage:
        sys.stderr.write(f"{usage}\n")
        return EX_USAGE


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
