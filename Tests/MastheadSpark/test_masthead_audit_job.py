"""Unit checks of the Spark audit job's pure parts (no Spark needed):

    python3 -m unittest discover -s Tests/MastheadSpark
"""

import argparse
import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "Sources", "MastheadSpark"))

import masthead_audit_job as job  # noqa: E402

#: A summary table as `masthead audit` printed it (2,004 lines of a generated population with grants).
SUMMARY = """\
audit summary
  lines read                        2004
  users                             2001
  rejected lines                    3
  unknown products                  0 transaction(s)
  (user, publication)               1738
  as of                             2021-03-31T23:59:59Z      2021-06-30T23:59:59Z
  by status (lines)
    active                          1074                      965
    gracePeriod                     1                         1
    billingRetry                    5                         6
    expired                         616                       729
    none                            42                        37
  by product (entitled / lines; a line counts under its latest auto-renewable product, else the pass or free product that covers (or last covered) the instant, else (single issues) or (none))
    (none)                          0 / 21                    0 / 8
    (single issues)                 0 / 21                    0 / 29
    com.example.monthly             324 / 530                 298 / 529
    com.example.monthly.premium     381 / 580                 340 / 582
    com.example.pass.1m             0 / 13                    0 / 12
    com.example.pass.3m             9 / 18                    9 / 23
    com.example.reader              361 / 555                 319 / 555
  access from (lines)
    App Store only                  1098                      990
    grants only                     4                         3
    both                            2                         1
  grants by source (held by the users)
    comp                            3
    print                           5
  reconciliation (issues per instant, by the product of their line)
    overGranted                     23                        47
      com.example.monthly           8                         20
      com.example.reader            5                         14
      com.example.monthly.premium   8                         11
      (single issues)               1                         1
      com.example.pass.3m           1                         1
    underGranted                    152                       143
      com.example.monthly.premium   52                        56
      com.example.monthly           55                        52
      com.example.reader            43                        33
      com.example.pass.1m           1                         1
      com.example.pass.3m           1                         1
    heldAfterEntitlementEnded       367                       542
      com.example.reader            367                       542
    unknown grants                  users 10, publications 1, issues 1
"""


#: The same summary as `masthead audit --summary-json` wrote it.
with open(os.path.join(os.path.dirname(__file__), "summary.json"), encoding="utf-8") as _file:
    SUMMARY_JSON = _file.read()


def summary():
    """A fresh copy of the summary, read as the job reads a partition's."""
    return job.read_summary(SUMMARY_JSON)


class HashTests(unittest.TestCase):
    def test_fnv1a64_matchesPublishedVectors_andSwiftShardHash(self):
        # The FNV reference vectors; "" and "a" are also pinned for Swift in ShardTests.
        self.assertEqual(job.fnv1a64(b""), 0xCBF29CE484222325)
        self.assertEqual(job.fnv1a64(b"a"), 0xAF63DC4C8601EC8C)
        self.assertEqual(job.fnv1a64(b"foobar"), 0x85944171F73967E8)

    def test_fnv1a64_hashesUTF8Bytes_notCodePoints(self):
        self.assertEqual(job.fnv1a64("é".encode()), job.fnv1a64(b"\xc3\xa9"))
        self.assertNotEqual(job.fnv1a64("é".encode()), job.fnv1a64("e\u0301".encode()))

    def test_partitionOf_isTheHashModuloTheCount(self):
        for user in (b"user-0", b"user-17", "ü".encode(), b"1234"):
            self.assertEqual(job.partition_of(user, 7), job.fnv1a64(user) % 7)


class UserIdTests(unittest.TestCase):
    def test_receiptsUserId_leadingIdAndParsedIdAgree(self):
        self.assertEqual(job.receipts_user_id(b'{"user_id":"user-1","receipt":{}}'), b"user-1")
        self.assertEqual(job.receipts_user_id(b'{"receipt": {}, "user_id": "user-1"}'), b"user-1")
        self.assertEqual(job.receipts_user_id(b'{"user_id":"a\\u00e9","receipt":{}}'), "a\u00e9".encode())

    def test_receiptsUserId_leadingScan_takesUTF8BytesAsTheyAre(self):
        line = '{"user_id":"caf\u00e9 \u212b\U0001f600","receipt":{}}'.encode()
        self.assertEqual(job.receipts_user_id(line), "caf\u00e9 \u212b\U0001f600".encode())
        self.assertEqual(job.receipts_user_id(line), job.receipts_user_id(json.dumps(json.loads(line)).encode()))

    def test_receiptsUserId_fallsBackToParsing_whereTheScanIsUnsure(self):
        # Escapes, spaces, another first key, a number: the line is parsed whole, as masthead reads it.
        for line, user in (
            (b'{"user_id":"a\\"b","receipt":{}}', b'a"b'),
            (b'{"user_id":"a\\\\b","receipt":{}}', b"a\\b"),
            (b'{"user_id":"\\u0075ser-1","receipt":{}}', b"user-1"),
            (b'{ "user_id":"user-1","receipt":{}}', b"user-1"),
            (b'{"user_id" : "user-1","receipt":{}}', b"user-1"),
            (b'{"user_id":12,"receipt":{}}', b"12"),
        ):
            self.assertEqual(job.receipts_user_id(line), user, line)
        # An empty id, a control character inside the id, an escaped lone surrogate: no user (partition 0).
        for line in (b'{"user_id":"","receipt":{}}', b'{"user_id":"a\tb","receipt":{}}', b'{"user_id":"\\ud800","receipt":{}}'):
            self.assertIsNone(job.receipts_user_id(line), line)

    def test_receiptsUserId_skipsOneByteOrderMark_asMastheadDoesOnEveryLine(self):
        # masthead accepts such a line as its user's, so it must go to that user's partition.
        self.assertEqual(job.receipts_user_id(b'\xef\xbb\xbf{"user_id":"user-1","receipt":{}}'), b"user-1")
        self.assertEqual(job.receipts_user_id(b'\xef\xbb\xbf{"receipt": {}, "user_id": "user-2"}'), b"user-2")
        # A second mark is not skipped by masthead: the line is rejected (partition 0).
        self.assertIsNone(job.receipts_user_id(b'\xef\xbb\xbf\xef\xbb\xbf{"user_id":"user-1","receipt":{}}'))

    def test_receiptsUserId_numberIsItsText(self):
        self.assertEqual(job.receipts_user_id(b'{"user_id": 4.20, "receipt": {}}'), b"4.20")
        self.assertEqual(job.receipts_user_id(b'{"user_id": -7, "receipt": {}}'), b"-7")

    def test_receiptsUserId_noneWithoutOne(self):
        for line in (b'{"user_id": "", "receipt": {}}', b'{"receipt": {}}', b'{"user_id": "x", ', b"[1]", b'{"user_id": true}', b"\xff{}"):
            self.assertIsNone(job.receipts_user_id(line), line)

    def test_isBlank_spacesAndTabsBeforeCR(self):
        self.assertTrue(job.is_blank(b" \t\r"))
        self.assertTrue(job.is_blank(b""))
        self.assertFalse(job.is_blank(b"\r\r"))
        self.assertFalse(job.is_blank(b" x"))

    def test_grantsUserId_headerOnlyAtTheFirstLine(self):
        self.assertEqual(job.grants_user_id(b"user_id,publication,issue_id", first_line=True), ("header", None))
        self.assertEqual(job.grants_user_id(b"user_id,publication,issue_id", first_line=False), ("grant", b"user_id"))

    def test_grantsUserId_csvAndJSONLines(self):
        self.assertEqual(job.grants_user_id(b" u-1 , the-monthly , 2020-09 ,\r", False), ("grant", b"u-1"))
        self.assertEqual(job.grants_user_id(b'{"user_id": 12, "publication": "p", "issue_id": "i"}', False), ("grant", b"12"))
        self.assertEqual(job.grants_user_id(b" \t", False), ("blank", None))
        for line in (b'"u",p,i', b"u,p", b"u,,i", b"a,b,c,d,e", b'{"publication": "p"}', b"\xff,p,i"):
            self.assertEqual(job.grants_user_id(line, False), ("invalid", None), line)


class IdentifierTests(unittest.TestCase):
    """A user id is its exact UTF-8 bytes: two spellings of one name (precomposed and decomposed,
    U+00C5 and U+212B ANGSTROM SIGN) and look-alikes (Cyrillic, fullwidth) are two users, read
    without normalisation and hashed apart."""

    PAIRS = [("caf\u00e9", "cafe\u0301"), ("\u00c5sa", "\u212bsa"), ("caf\u00e9", "c\u0430f\u00e9"), ("caf\u00e9", "\uff43\uff41\uff46\u00e9")]

    def test_userIds_ofTwoSpellings_areReadAsTheirBytes_andHashedApart(self):
        for first, second in self.PAIRS:
            for user in (first, second):
                raw = ('{"user_id":"%s","receipt":{}}' % user).encode()
                escaped = json.dumps({"receipt": {}, "user_id": user}).encode()
                self.assertEqual(job.receipts_user_id(raw), user.encode("utf-8"))
                self.assertEqual(job.receipts_user_id(escaped), user.encode("utf-8"))
                self.assertEqual(job.grants_user_id(f"{user},the-monthly,2020-03".encode(), False)[1], user.encode("utf-8"))
            self.assertNotEqual(job.fnv1a64(first.encode()), job.fnv1a64(second.encode()))
            self.assertTrue(any(job.partition_of(first.encode(), n) != job.partition_of(second.encode(), n) for n in range(2, 9)), (first, second))

    def test_summaries_keepProductsOfTwoSpellingsApart(self):
        one = summary()
        one["byProduct"] += [
            {"product": "caf\u00e9", "entitled": [1, 3], "lines": [2, 4]},
            {"product": "cafe\u0301", "entitled": [5, 7], "lines": [6, 8]},
        ]
        read = job.read_summary(json.dumps(one, ensure_ascii=False))
        both = job.add_summaries(read, read)
        products = {entry["product"]: entry for entry in both["byProduct"]}
        self.assertEqual(products["caf\u00e9"]["lines"], [4, 8])
        self.assertEqual(products["cafe\u0301"]["entitled"], [10, 14])
        self.assertEqual(len(both["byProduct"]), len(one["byProduct"]))
        rows = job.render_summary(both).splitlines()
        self.assertIn("    caf\u00e9".ljust(len(rows[1]) - len("4008")) + "2 / 4".ljust(26) + "6 / 8", rows)


class SummaryTests(unittest.TestCase):
    def test_renderSummary_ofMastheadsJSON_isItsTable(self):
        self.assertEqual(job.render_summary(summary()), SUMMARY)

    def test_addSummaries_addsEveryCountPerInstant(self):
        one = summary()
        two = job.read_summary(json.dumps(job.add_summaries(one, one)))
        self.assertEqual(two["linesRead"], 2 * one["linesRead"])
        self.assertEqual(two["byStatus"]["expired"], [2 * c for c in one["byStatus"]["expired"]])
        reader = [entry for entry in two["byProduct"] if entry["product"] == "com.example.reader"][0]
        self.assertEqual((reader["entitled"], reader["lines"]), ([722, 638], [1110, 1110]))
        under = [finding for finding in two["findings"] if finding["kind"] == "underGranted"][0]
        self.assertEqual(under["total"], [304, 286])
        self.assertEqual(under["products"][0], {"product": "com.example.monthly.premium", "counts": [104, 112]})
        self.assertEqual(two["unknownGrants"], {"users": 20, "publications": 2, "issues": 2})
        self.assertEqual([f["kind"] for f in two["findings"]], ["overGranted", "underGranted", "heldAfterEntitlementEnded"])

    def test_addSummaries_addsAccessSourcesPerInstant_andGrantsPerSource(self):
        other = summary()
        other["grantsBySource"] = [{"source": "gift", "grants": 1}, {"source": "print", "grants": 2}]
        both = job.read_summary(json.dumps(job.add_summaries(summary(), other)))
        self.assertEqual(both["accessFrom"], {"appStoreOnly": [2196, 1980], "grantsOnly": [8, 6], "both": [4, 2]})
        self.assertEqual(both["grantsBySource"], [
            {"source": "comp", "grants": 3}, {"source": "gift", "grants": 1}, {"source": "print", "grants": 7}])
        rows = job.render_summary(both).splitlines()
        self.assertIn("    gift".ljust(len(rows[1]) - len("4008")) + "1", rows)

    def test_renderSummary_ordersFindingsWorstFirst_afterAdding(self):
        other = summary()
        other["findings"][0]["products"] = [{"product": "com.example.pass.1m", "counts": [0, 100]}]
        other["findings"][0]["total"] = [0, 100]
        rows = job.render_summary(job.add_summaries(summary(), other)).splitlines()
        start = rows.index(next(r for r in rows if r.startswith("    overGranted")))
        self.assertTrue(rows[start].endswith(" 147"), rows[start])
        self.assertTrue(rows[start + 1].startswith("      com.example.pass.1m "))

    def test_readSummary_refusesAShardsSummary(self):
        sharded = json.loads(SUMMARY_JSON)
        sharded["shard"] = "1/2"
        with self.assertRaises(job.SummaryError):
            job.read_summary(json.dumps(sharded))

    def test_readSummary_refusesWhatMastheadDoesNotWrite(self):
        def changed(change):
            value = json.loads(SUMMARY_JSON)
            change(value)
            return json.dumps(value)
        for text in (
            "audit summary",
            "[]",
            changed(lambda v: v.pop("users")),
            changed(lambda v: v.update(rejectedLines=-1)),
            changed(lambda v: v.update(linesRead=True)),
            changed(lambda v: v["byStatus"].update(active=[1])),
            changed(lambda v: v["byProduct"][0].update(lines=[1, "2"])),
            changed(lambda v: v["findings"][1]["products"][0].pop("counts")),
            changed(lambda v: v.update(instants=[])),
            changed(lambda v: v["accessFrom"].update(grantsOnly=[1])),
            changed(lambda v: v["grantsBySource"][0].pop("grants")),
        ):
            with self.assertRaises(job.SummaryError, msg=text[:80]):
                job.read_summary(text)


class Counts:
    """An accumulator's stand-in: what was added, by key."""

    def __init__(self):
        self.value = {}

    def add(self, value):
        self.value.update(value)


#: A stand-in for masthead audit: each receipts line `bad…` rejected, every other one written back
#: as `out <line>`; each grants line holding `unknown` reported, and one line about the grants of
#: users without a receipt line (first: line 2); the receipts it read go to `<summary>.receipts`.
FAKE_MASTHEAD = """\
import sys
args = sys.argv[1:]
summary = args[args.index("--summary-json") + 1]
grants = args[args.index("--grants") + 1] if "--grants" in args else None
data = sys.stdin.buffer.read()
open(summary + ".receipts", "wb").write(data)
lines = data.split(b"\\n")[:-1]
for number, line in enumerate(lines, 1):
    if line.startswith(b"bad"):
        sys.stderr.write(f"-:{number}: bad line\\n")
    else:
        sys.stdout.buffer.write(b"out " + line + b"\\n")
if grants:
    held = open(grants, "rb").read().split(b"\\n")[:-1]
    if b"fail" in held[-1]:
        sys.stderr.write(f"{grants}:{len(held)}: cannot read\\n")
        sys.exit(65)
    for number, line in enumerate(held, 1):
        if b"unknown" in line:
            sys.stderr.write(f"{grants}:{number}: unknown publication\\n")
    sys.stderr.write(f"{grants}: 2 grant(s) of 1 user(s) without a receipt line, not reconciled (first: line 2, user u-9)\\n")
sys.stderr.write("audit summary\\n  lines read   3\\n")
open(summary, "w").write('{"linesRead":3}')
sys.exit(1 if any(line.startswith(b"bad") for line in lines) else 0)
"""


class PlaceTests(unittest.TestCase):
    def test_places_orderAsFileThenLineNumber(self):
        places = [job.place(job.RECEIPTS, 0, 0), job.place(job.GRANTS, 3, 7), job.place(job.RECEIPTS, 1, 0),
                  job.place(job.RECEIPTS, 0, 9), job.place(job.GRANTS, 0, 2)]
        self.assertEqual(sorted(places), [places[4], places[1], places[0], places[3], places[2]])
        with self.assertRaises(ValueError):
            job.place(job.RECEIPTS, 0, 1 << job.LINE_BITS)

    def test_lineNumbers_countEveryEarlierSplitsLines(self):
        numbers = job.LineNumbers({0: 3, 1: 2, 2: 4})
        self.assertEqual(numbers.number(job.place(job.RECEIPTS, 0, 0)), 1)
        self.assertEqual(numbers.number(job.place(job.RECEIPTS, 1, 1)), 5)
        self.assertEqual(numbers.number(job.place(job.GRANTS, 2, 3)), 9)
        with self.assertRaises(RuntimeError):
            job.LineNumbers({0: 3, 2: 4})

    def test_receiptsRecords_numberEveryLine_leaveBlankOnesOut_andCountTheSplitsLines(self):
        counts = Counts()
        lines = [b'{"user_id":"user-1","receipt":{}}', b" \t\r", b'{"receipt":{}}']
        records = list(job.receipts_records(5, counts)(3, iter(lines)))
        self.assertEqual(records, [
            (job.partition_of(b"user-1", 5), (job.place(job.RECEIPTS, 3, 0), lines[0])),
            (0, (job.place(job.RECEIPTS, 3, 2), lines[2]))])
        self.assertEqual(counts.value, {(job.RECEIPTS, 3): 3})

    def test_grantsRecords_takeAHeaderOnlyAtTheFirstSplitsFirstLine(self):
        counts = Counts()
        header = b"user_id,publication,issue_id"
        self.assertEqual(list(job.grants_records(3, counts)(0, iter([header, b""]))), [])
        self.assertEqual(list(job.grants_records(3, counts)(1, iter([header]))),
                         [(job.partition_of(b"user_id", 3), (job.place(job.GRANTS, 1, 0), header))])
        self.assertEqual(counts.value, {(job.GRANTS, 0): 2, (job.GRANTS, 1): 1})


class PartitionTests(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.mkdtemp()
        self.masthead = os.path.join(self.folder, "masthead")
        with open(self.masthead, "w") as file:
            file.write(f"#!{sys.executable}\n{FAKE_MASTHEAD}")
        os.chmod(self.masthead, 0o755)

    def tearDown(self):
        shutil.rmtree(self.folder)

    def audit(self, records, grants=True):
        reports = []
        part = job.Part(self.masthead, "catalog", ["2021-03-31T23:59:59Z"], grants, {"TMPDIR": self.folder})
        results = list(job.audit_partition(part, 2, iter(records), reports.append))
        return results, reports

    def test_auditPartition_streamsLinesInPlaceOrder_whateverOrderTheyCameIn(self):
        R, G = job.RECEIPTS, job.GRANTS
        # Two splits' runs, the later one first, and grants among them, as a shuffle may bring them.
        records = [(2, (job.place(R, 1, 0), b"r-1-0")), (2, (job.place(R, 1, 4), b"bad-1-4")), (2, (job.place(G, 0, 5), b"g-0-5")),
                   (2, (job.place(R, 0, 2), b"r-0-2")), (2, (job.place(R, 0, 3), b"r-0-3")), (2, (job.place(G, 0, 1), b"unknown-0-1"))]
        results, reports = self.audit(records)
        self.assertEqual(results, [b"out r-0-2", b"out r-0-3", b"out r-1-0"])
        [entries] = reports
        self.assertEqual(entries, [
            ("reject", job.place(R, 1, 4), "bad line"),
            ("grant", job.place(G, 0, 1), "unknown publication"),
            ("unknown-users", 2, 1, job.place(G, 0, 1), "u-9"),
            ("summary", '{"linesRead":3}'),
            ("status", 1)])
        self.assertEqual(os.listdir(self.folder), ["masthead"], "the partition's files are removed")

    def test_auditPartition_withoutRecords_stillAuditsTheEmptyPartition(self):
        results, reports = self.audit([], grants=False)
        self.assertEqual(results, [])
        self.assertEqual(reports, [[("summary", '{"linesRead":3}'), ("status", 0)]])

    def test_auditPartition_failed_namesThePartition_andTheGrantsLineByPlace(self):
        records = [(2, (job.place(job.GRANTS, 1, 8), b"fail")), (2, (job.place(job.GRANTS, 0, 1), b"g")), (2, (job.place(job.RECEIPTS, 0, 0), b"r"))]
        with self.assertRaises(RuntimeError) as raised:
            self.audit(records)
        self.assertEqual(str(raised.exception),
                         f"partition 2: masthead audit exited with status 65: {{grants-line {job.place(job.GRANTS, 1, 8)}}}: cannot read")

    def test_finish_numbersMessagesByTheirLines_inTheAuditsOrder(self):
        R, G = job.RECEIPTS, job.GRANTS
        reports = [
            [("reject", job.place(R, 1, 0), "x"), ("grant", job.place(G, 0, 4), "unknown issue"), ("other", "note"),
             ("summary", SUMMARY_JSON), ("status", 1)],
            [("reject", job.place(R, 0, 5), "y"), ("unknown-users", 2, 1, job.place(G, 0, 3), "u-2"),
             ("unknown-users", 1, 1, job.place(G, 1, 0), "u-3"), ("summary", SUMMARY_JSON), ("status", 0)],
        ]
        numbers = {R: job.LineNumbers({0: 10, 1: 10}), G: job.LineNumbers({0: 6, 1: 1})}
        args = argparse.Namespace(receipts="users.jsonl", grants="grants.csv", output=self.folder)
        with contextlib.redirect_stderr(io.StringIO()):
            status = job.finish(args, reports, numbers)
        self.assertEqual(status, 1)
        with open(os.path.join(self.folder, "messages.txt"), encoding="utf-8") as file:
            self.assertEqual(file.read(), "users.jsonl:6: y\nusers.jsonl:11: x\ngrants.csv:5: unknown issue\n"
                             "grants.csv: 3 grant(s) of 2 user(s) without a receipt line, not reconciled (first: line 4, user u-2)\nnote\n")


if __name__ == "__main__":
    unittest.main()
