#!/usr/bin/env python3
"""masthead audit on Apache Spark: one audit of a receipts file split across executors by user.

    python3 masthead_audit_job.py --catalog DIR --receipts INPUT --at RFC3339 [--at ...]
        --output DIR [--grants FILE] [--masthead PATH] [--master URL]

The receipts (and grants) lines are partitioned by a stable hash of `user_id` -- 64-bit FNV-1a of
its UTF-8 bytes, modulo the number of partitions, the rule of `masthead audit --shard K/N` (part
K is partition K - 1) -- and sorted within each partition by line number, grants first. Each
partition is piped (RDD.pipe) through this file's part runner, which writes the partition's
grants to a temporary file and streams its receipts lines into
`masthead audit --catalog DIR --receipts - --at ... [--grants TMP]`, passing masthead's results
through and appending its messages, summary and exit status as trailer lines (`#...`, which no
JSON line starts with).

OUTPUT/part-NNNNN hold the results, in input order within each part; taken together they are
the lines of `masthead audit` of the whole input (as a multiset: the single audit writes them in
input order, the parts in input order per partition). OUTPUT/summary.txt is the sum of the
partitions' summaries, rendered as the single audit renders its summary; OUTPUT/messages.txt the
rejected lines and unplaced grants with the input's own names and line numbers, in the single
audit's order. Both also go to standard error. The exit status is the audit's: 1 when a line was
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
    """A summary that is not laid out as `masthead audit` lays it out."""


def parse_summary(lines):
    """The counts of one summary table (`masthead audit`'s standard error from `audit summary`).

    Returns a dict: `lines`, `users`, `rejected`, `signed` (None or (count, suffix)),
    `unknown_products`, `output_lines`, `instants`, `states` ({state: [count per instant]} in
    order), `products` ({product: [[entitled, lines] per instant]}), `reconciled` (bool),
    `findings` ({kind: {product: [count per instant]}} with kinds in order), `unknown_grants`
    ([users, publications, issues]).
    """
    if not lines or lines[0] != "audit summary":
        raise SummaryError("no 'audit summary' heading")

    def cells_of(line):
        return line[width:]

    first = next((line for line in lines if line.startswith("  lines read ")), None)
    if first is None:
        raise SummaryError("no 'lines read' row")
    width = len(first) - len(first.split()[-1])
    summary = {
        "signed": None, "states": {}, "products": {}, "reconciled": False, "findings": {},
        "unknown_grants": [0, 0, 0],
    }
    section = None
    kind = None

    def columns(line):
        rest = cells_of(line)
        count = len(summary["instants"])
        return [rest[i * COLUMN_WIDTH:(i + 1) * COLUMN_WIDTH].strip() for i in range(count)]

    def number(text):
        if not re.fullmatch(r"\d+", text):
            raise SummaryError(f"not a count: {text!r}")
        return int(text)

    for line in lines[1:]:
        label = line[:width].rstrip()
        single = cells_of(line).strip()
        if line.startswith("  by status "):
            section = "states"
        elif line.startswith("  by product "):
            section = "products"
        elif line.startswith("  reconciliation "):
            section = "findings"
            summary["reconciled"] = True
        elif label == "  lines read":
            summary["lines"] = number(single)
        elif label == "  users":
            summary["users"] = number(single)
        elif label == "  rejected lines":
            summary["rejected"] = number(single)
        elif label == "  signed data":
            match = re.fullmatch(r"(\d+) user\(s\), (.*)", single)
            if not match:
                raise SummaryError(f"signed data: {single!r}")
            summary["signed"] = (int(match.group(1)), match.group(2))
        elif label == "  unknown products":
            summary["unknown_products"] = number(single.removesuffix(" transaction(s)"))
        elif label == "  (user, publication)":
            summary["output_lines"] = number(single)
        elif label == "  as of":
            summary["instants"] = cells_of(line).split()
        elif label in ("  shard", "  lines of other shards"):
            raise SummaryError("a shard's summary")
        elif section == "states" and label.startswith("    "):
            summary["states"][label.strip()] = [number(c) for c in columns(line)]
        elif section == "products" and label.startswith("    "):
            pairs = []
            for cell in columns(line):
                match = re.fullmatch(r"(\d+) / (\d+)", cell)
                if not match:
                    raise SummaryError(f"product cell: {cell!r}")
                pairs.append([int(match.group(1)), int(match.group(2))])
            summary["products"][label[4:]] = pairs
        elif section == "findings" and label == "    unknown grants":
            match = re.fullmatch(r"users (\d+), publications (\d+), issues (\d+)", single)
            if not match:
                raise SummaryError(f"unknown grants: {single!r}")
            summary["unknown_grants"] = [int(g) for g in match.groups()]
        elif section == "findings" and label.startswith("      "):
            summary["findings"][kind][label[6:]] = [number(c) for c in columns(line)]
        elif section == "findings" and label.startswith("    "):
            kind = label.strip()
            summary["findings"][kind] = {}
        else:
            raise SummaryError(f"unexpected row: {line!r}")
    for key in ("lines", "users", "rejected", "unknown_products", "output_lines", "instants"):
        if key not in summary:
            raise SummaryError(f"no {key} row")
    return summary


def add_summaries(total, other):
    """The counts of two partitions of one audit together (per instant, never across instants)."""
    if total["instants"] != other["instants"]:
        raise SummaryError("summaries of different instants")
    count = len(total["instants"])
    result = {
        "instants": total["instants"],
        "reconciled": total["reconciled"] or other["reconciled"],
        "unknown_grants": [a + b for a, b in zip(total["unknown_grants"], other["unknown_grants"])],
    }
    for key in ("lines", "users", "rejected", "unknown_products", "output_lines"):
        result[key] = total[key] + other[key]
    signed = [s for s in (total["signed"], other["signed"]) if s]
    result["signed"] = (sum(s[0] for s in signed), signed[0][1]) if signed else None
    result["states"] = {
        state: [a + b for a, b in zip(total["states"].get(state, [0] * count), other["states"].get(state, [0] * count))]
        for state in list(total["states"]) + [s for s in other["states"] if s not in total["states"]]
    }
    products = {}
    for source in (total["products"], other["products"]):
        for product, pairs in source.items():
            into = products.setdefault(product, [[0, 0] for _ in range(count)])
            for index, (entitled, lines) in enumerate(pairs):
                into[index][0] += entitled
                into[index][1] += lines
    result["products"] = products
    findings = {}
    for source in (total["findings"], other["findings"]):
        for kind, per_product in source.items():
            into = findings.setdefault(kind, {})
            for product, counts in per_product.items():
                into[product] = [a + b for a, b in zip(into.get(product, [0] * count), counts)]
    result["findings"] = findings
    return result


def render_summary(summary):
    """The summary table, laid out as `masthead audit` lays it out (`AuditSummary.rendered`)."""
    rows = []

    def row(label, cells=()):
        rows.append((label, list(cells)))

    row("audit summary")
    row("  lines read", [str(summary["lines"])])
    row("  users", [str(summary["users"])])
    row("  rejected lines", [str(summary["rejected"])])
    if summary["signed"]:
        row("  signed data", [f"{summary['signed'][0]} user(s), {summary['signed'][1]}"])
    row("  unknown products", [f"{summary['unknown_products']} transaction(s)"])
    row("  (user, publication)", [str(summary["output_lines"])])
    row("  as of", summary["instants"])
    row("  by status (lines)")
    for state, counts in summary["states"].items():
        row(f"    {state}", [str(c) for c in counts])
    row("  by product (entitled / lines; a line counts under its latest auto-renewable product, else the pass or free product "
        "that covers (or last covered) the instant, else (single issues) or (none))")
    for product in sorted(summary["products"]):
        row(f"    {product}", [f"{e} / {n}" for e, n in summary["products"][product]])
    any_finding = any(any(any(counts) for counts in per.values()) for per in summary["findings"].values())
    if any_finding or sum(summary["unknown_grants"]) > 0 or summary["reconciled"]:
        row("  reconciliation (issues per instant, by the product of their line)")
        for kind, per_product in summary["findings"].items():
            totals = [sum(column) for column in zip(*per_product.values())] if per_product else [0] * len(summary["instants"])
            row(f"    {kind}", [str(t) for t in totals])
            worst_first = sorted(per_product, key=lambda p: (-per_product[p][-1], -max(per_product[p]), p))
            for product in worst_first:
                row(f"      {product}", [str(c) for c in per_product[product]])
        users, publications, issues = summary["unknown_grants"]
        row("    unknown grants", [f"users {users}, publications {publications}, issues {issues}"])
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
    `#other\\tTEXT`, `#summary\\tROW` and `#status CODE` (`#failed\\tMESSAGE` when masthead failed)."""
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
        command = [args.masthead, "audit", "--catalog", args.catalog, "--receipts", "-"]
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
        if "audit summary" not in messages or status not in (0, 1):
            text = "; ".join(messages) or "no message"
            if grants_path:
                text = re.sub(re.escape(grants_path) + r":(\d+):", lambda m: f"{args.grants_name}:{grant_lines[int(m.group(1)) - 1]}:", text)
            out.write(f"#failed\tmasthead audit exited with status {status}: {text}\n")
            return
        start = messages.index("audit summary")
        for message in messages[:start]:
            out.write(_trailer(message, grants_path, receipt_lines, grant_lines))
        for line in messages[start:]:
            out.write(f"#summary\t{line}\n")
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
    """Adds up the partitions' summaries and messages, writes OUTPUT/summary.txt and
    OUTPUT/messages.txt, prints them to standard error and returns the exit status."""
    rejected, grant_problems, others = [], [], []
    unknown = None
    total = None
    status = 0
    for lines in trailers:
        summary_lines = []
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
                summary_lines.append(rest)
            elif head.startswith("#status "):
                status = max(status, int(head.split()[1]))
            else:
                others.append(rest)
        part = parse_summary(summary_lines)
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
    sys.stderr.write(text + rendered)
    return 1 if status == 1 or total["rejected"] > 0 else 0


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
