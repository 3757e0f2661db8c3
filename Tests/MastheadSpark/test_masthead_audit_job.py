"""Unit checks of the Spark audit job's pure parts (no Spark needed):

    python3 -m unittest discover -s Tests/MastheadSpark
"""

import json
import os
import sys
import unittest
from array import array

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
        self.assertEqual(job.fnv1a64(""), 0xCBF29CE484222325)
        self.assertEqual(job.fnv1a64("a"), 0xAF63DC4C8601EC8C)
        self.assertEqual(job.fnv1a64("foobar"), 0x85944171F73967E8)

    def test_fnv1a64_hashesUTF8Bytes_notCodePoints(self):
        self.assertEqual(job.fnv1a64("é"), job.fnv1a64("\u00e9"))
        self.assertNotEqual(job.fnv1a64("é"), job.fnv1a64("e\u0301"))

    def test_partitionOf_isTheHashModuloTheCount(self):
        for user in ("user-0", "user-17", "ü", "1234"):
            self.assertEqual(job.partition_of(user, 7), job.fnv1a64(user) % 7)


class UserIdTests(unittest.TestCase):
    def test_receiptsUserId_leadingIdAndParsedIdAgree(self):
        self.assertEqual(job.receipts_user_id('{"user_id":"user-1","receipt":{}}'), "user-1")
        self.assertEqual(job.receipts_user_id('{"receipt": {}, "user_id": "user-1"}'), "user-1")
        self.assertEqual(job.receipts_user_id('{"user_id":"a\\u00e9","receipt":{}}'), "a\u00e9")

    def test_receiptsUserId_skipsOneByteOrderMark_asMastheadDoesOnEveryLine(self):
        # masthead accepts such a line as its user's, so it must go to that user's partition.
        self.assertEqual(job.receipts_user_id('\ufeff{"user_id":"user-1","receipt":{}}'), "user-1")
        self.assertEqual(job.receipts_user_id('\ufeff{"receipt": {}, "user_id": "user-2"}'), "user-2")
        # A second mark is not skipped by masthead: the line is rejected (partition 0).
        self.assertIsNone(job.receipts_user_id('\ufeff\ufeff{"user_id":"user-1","receipt":{}}'))

    def test_receiptsUserId_numberIsItsText(self):
        self.assertEqual(job.receipts_user_id('{"user_id": 4.20, "receipt": {}}'), "4.20")
        self.assertEqual(job.receipts_user_id('{"user_id": -7, "receipt": {}}'), "-7")

    def test_receiptsUserId_noneWithoutOne(self):
        for line in ('{"user_id": "", "receipt": {}}', '{"receipt": {}}', '{"user_id": "x", ', "[1]", '{"user_id": true}'):
            self.assertIsNone(job.receipts_user_id(line), line)

    def test_isBlank_spacesAndTabsBeforeCR(self):
        self.assertTrue(job.is_blank(" \t\r"))
        self.assertFalse(job.is_blank("\r\r"))

    def test_grantsUserId_headerOnlyAtLineOne(self):
        self.assertEqual(job.grants_user_id("user_id,publication,issue_id", 1), ("header", None))
        self.assertEqual(job.grants_user_id("user_id,publication,issue_id", 2), ("grant", "user_id"))

    def test_grantsUserId_csvAndJSONLines(self):
        self.assertEqual(job.grants_user_id(" u-1 , the-monthly , 2020-09 ,\r", 3), ("grant", "u-1"))
        self.assertEqual(job.grants_user_id('{"user_id": 12, "publication": "p", "issue_id": "i"}', 3), ("grant", "12"))
        self.assertEqual(job.grants_user_id(" \t", 3), ("blank", None))
        for line in ('"u",p,i', "u,p", "u,,i", "a,b,c,d,e", '{"publication": "p"}'):
            self.assertEqual(job.grants_user_id(line, 3), ("invalid", None), line)


class IdentifierTests(unittest.TestCase):
    """A user id is its exact UTF-8 bytes: two spellings of one name (precomposed and decomposed,
    U+00C5 and U+212B ANGSTROM SIGN) and look-alikes (Cyrillic, fullwidth) are two users, read
    without normalisation and hashed apart."""

    PAIRS = [("caf\u00e9", "cafe\u0301"), ("\u00c5sa", "\u212bsa"), ("caf\u00e9", "c\u0430f\u00e9"), ("caf\u00e9", "\uff43\uff41\uff46\u00e9")]

    def test_userIds_ofTwoSpellings_areReadAsTheirBytes_andHashedApart(self):
        for first, second in self.PAIRS:
            for user in (first, second):
                raw = '{"user_id":"%s","receipt":{}}' % user
                escaped = json.dumps({"receipt": {}, "user_id": user})
                self.assertEqual(job.receipts_user_id(raw).encode("utf-8"), user.encode("utf-8"))
                self.assertEqual(job.receipts_user_id(escaped).encode("utf-8"), user.encode("utf-8"))
                self.assertEqual(job.grants_user_id(f"{user},the-monthly,2020-03", 2)[1].encode("utf-8"), user.encode("utf-8"))
            self.assertNotEqual(job.fnv1a64(first), job.fnv1a64(second))
            self.assertTrue(any(job.partition_of(first, n) != job.partition_of(second, n) for n in range(2, 9)), (first, second))

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


class TrailerTests(unittest.TestCase):
    def test_trailer_givesRejectedAndGrantLinesTheirInputNumbers(self):
        receipts = array("q", [4, 9, 12])
        grants = array("q", [0, 3, 40])
        self.assertEqual(job._trailer("-:2: missing field $.user_id (line 1)", "/t/g", receipts, grants),
                         "#reject 9\t{receipts}:9: missing field $.user_id (line 1)\n")
        self.assertEqual(job._trailer("/t/g:3: unknown publication x", "/t/g", receipts, grants),
                         "#grant 40\t{grants}:40: unknown publication x\n")
        self.assertEqual(
            job._trailer("/t/g: 5 grant(s) of 2 user(s) without a receipt line, not reconciled (first: line 2, user u-1)", "/t/g", receipts, grants),
            "#unknown-users 5 2 3\tu-1\n")


if __name__ == "__main__":
    unittest.main()
