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

#: A summary as `masthead audit` printed it (2,004 lines of a generated population with grants).
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
        one = job.parse_summary(SUMMARY.splitlines())
        one["products"]["caf\u00e9"] = [[1, 2], [3, 4]]
        one["products"]["cafe\u0301"] = [[5, 6], [7, 8]]
        read = job.parse_summary(job.render_summary(one).splitlines())
        self.assertEqual(read["products"]["caf\u00e9"], [[1, 2], [3, 4]])
        self.assertEqual(read["products"]["cafe\u0301"], [[5, 6], [7, 8]])
        both = job.add_summaries(read, read)
        self.assertEqual(both["products"]["cafe\u0301"], [[10, 12], [14, 16]])
        self.assertEqual(len(both["products"]), len(one["products"]))


class SummaryTests(unittest.TestCase):
    def test_renderSummary_ofParsedSummary_isTheSameText(self):
        self.assertEqual(job.render_summary(job.parse_summary(SUMMARY.splitlines())), SUMMARY)

    def test_addSummaries_addsEveryCountPerInstant(self):
        one = job.parse_summary(SUMMARY.splitlines())
        two = job.parse_summary(job.render_summary(job.add_summaries(one, one)).splitlines())
        self.assertEqual(two["lines"], 2 * one["lines"])
        self.assertEqual(two["states"]["expired"], [2 * c for c in one["states"]["expired"]])
        self.assertEqual(two["products"]["com.example.reader"], [[2 * e, 2 * n] for e, n in one["products"]["com.example.reader"]])
        self.assertEqual(two["findings"]["underGranted"], {p: [2 * c for c in v] for p, v in one["findings"]["underGranted"].items()})
        self.assertEqual(two["unknown_grants"], [2 * n for n in one["unknown_grants"]])

    def test_renderSummary_ordersFindingsWorstFirst_afterAdding(self):
        one = job.parse_summary(SUMMARY.splitlines())
        other = job.parse_summary(SUMMARY.splitlines())
        other["findings"]["overGranted"] = {"com.example.pass.1m": [0, 100]}
        rows = job.render_summary(job.add_summaries(one, other)).splitlines()
        start = rows.index(next(r for r in rows if r.startswith("    overGranted")))
        self.assertTrue(rows[start + 1].startswith("      com.example.pass.1m "))

    def test_parseSummary_refusesAShardsSummary(self):
        rows = SUMMARY.splitlines()
        rows.insert(2, "  shard".ljust(len("  lines read") + 24) + "1/2")
        with self.assertRaises(job.SummaryError):
            job.parse_summary(rows)


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
