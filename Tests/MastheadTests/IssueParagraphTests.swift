import Masthead
import Testing

/// R16: the one-paragraph answer to "why can't this reader read this issue" (or "why can they"),
/// true for every issue of seed 000's Tables 6-1 and 6-2, and exact for the key cases.
struct IssueParagraphTests {
    static let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]

    /// The Monthly as the shipped catalog titles it: "January 2020" and so on.
    static let publication = Publication(
        id: "the-monthly", title: "The Monthly",
        issues: (1...12).map { month in
            Issue(id: String(format2020: month), title: "\(months[month - 1]) 2020", published: Mock.instant("2020-\(month)-01T00:00"))
        })

    static func evaluate(_ transactions: [Transaction], grants: [Grant] = [], at: String) -> PublicationEntitlement {
        Mock.engine(publication).evaluate(PurchaseHistory(transactions: transactions, grants: grants), publication: publication, at: Mock.instant(at))
    }

    /// Table 6-1 as of 2 July: May fell in the lapse, and the resubscription unlocked June instead (R11).
    @Test func R11_issuePublishedDuringLapse_namesTheLapse_andWhatTheResubscriptionUnlocked() {
        let result = Self.evaluate(SeedTimelineTests.table61, at: "2020-07-02T00:00")
        #expect(
            result.paragraph(aboutIssue: "2020-05")
                == "May 2020 (2020-05), published 2020-05-01, cannot be read as of 2020-07-02 UTC: published during a lapse "
                + "(2020-04-20 12:00 → 2020-06-17 12:00). The subscription lapsed on 2020-04-20 12:00 and the resubscription on "
                + "2020-06-17 12:00 (transaction t3, monthly) unlocked only the latest issue published by then, June 2020, not May 2020.")
    }

    @Test func R11_issueUnlockedByTheResubscription_namesIt_andThatItStays() {
        let result = Self.evaluate(SeedTimelineTests.table61, at: "2020-07-02T00:00")
        #expect(
            result.paragraph(aboutIssue: "2020-06")
                == "June 2020 (2020-06), published 2020-06-01, can be read as of 2020-07-02 UTC: unlocked when period #1 started "
                + "(2020-06-17 12:00). The resubscription on 2020-06-17 12:00 (transaction t3, monthly) unlocked the latest issue "
                + "published by then, June 2020. Archive access keeps it, also after the subscription ends.")
    }

    @Test func R11_issuePublishedDuringAPeriod_namesThePeriodAndThePurchase() {
        let result = Self.evaluate(SeedTimelineTests.table61, at: "2020-07-02T00:00")
        #expect(
            result.paragraph(aboutIssue: "2020-03")
                == "March 2020 (2020-03), published 2020-03-01, can be read as of 2020-07-02 UTC: published during period #0. "
                + "Period #0, started by the purchase on 2020-02-20 12:00 (transaction t1, monthly), ran until 2020-04-20 12:00. "
                + "Archive access keeps every issue published during a period, also after the subscription ends.")
    }

    @Test func R11_issueBeforeTheSubscription_namesTheFirstPeriodAndWhatItUnlocked() {
        let result = Self.evaluate(SeedTimelineTests.table61, at: "2020-07-02T00:00")
        #expect(
            result.paragraph(aboutIssue: "2020-01")
                == "January 2020 (2020-01), published 2020-01-01, cannot be read as of 2020-07-02 UTC: published before the subscription "
                + "started (2020-02-20 12:00). The first period began with the purchase on 2020-02-20 12:00 (transaction t1, monthly), "
                + "which unlocked only the latest issue published by then, February 2020, not January 2020.")
    }

    @Test func R10_unpublishedIssue_saysWhenItComesOut() {
        let result = Self.evaluate(SeedTimelineTests.table61, at: "2020-07-02T00:00")
        #expect(
            result.paragraph(aboutIssue: "2020-08")
                == "August 2020 (2020-08), to be published 2020-08-01, cannot be read as of 2020-07-02 UTC: not yet published. "
                + "Whether it can be read once published depends on what the reader has then.")
    }

    /// A renewal Apple fully refunded five days in: April, published in the time it paid for, names the refund.
    @Test func R5_1_refundedIssue_namesTheRefundItsDateAndTransaction() {
        var refunded = Mock.renewal("t2", "monthly", "2020-03-20T11:58", "2020-04-20T12:00", original: "t1", cancelled: "2020-03-25T09:30")
        refunded.revocationType = .refundFull
        let history = [Mock.renewal("t1", "monthly", "2020-02-20T12:00", "2020-03-20T12:00"), refunded]
        let result = Self.evaluate(history, at: "2020-07-02T00:00")
        #expect(
            result.paragraph(aboutIssue: "2020-04")
                == "April 2020 (2020-04), published 2020-04-01, cannot be read as of 2020-07-02 UTC: the purchase was refunded "
                + "(transaction t2). Apple refunded transaction t2 (monthly) on 2020-03-25 09:30; a refunded purchase gives nothing, "
                + "not even the issues published in the time it would have paid for (2020-03-20 11:58 to 2020-04-20 12:00).")
    }

    /// A cancellation that does not say how Apple revoked the renewal is not called a refund.
    @Test func R5_1_revocationWithoutItsType_saysRevoked_notRefunded() {
        let history = [
            Mock.renewal("t1", "monthly", "2020-02-20T12:00", "2020-03-20T12:00"),
            Mock.renewal("t2", "monthly", "2020-03-20T11:58", "2020-04-20T12:00", original: "t1", cancelled: "2020-03-25T09:30"),
        ]
        let result = Self.evaluate(history, at: "2020-07-02T00:00")
        #expect(
            result.paragraph(aboutIssue: "2020-04")
                == "April 2020 (2020-04), published 2020-04-01, cannot be read as of 2020-07-02 UTC: the purchase was refunded "
                + "(transaction t2). Apple revoked transaction t2 (monthly) on 2020-03-25 09:30; a revoked purchase gives nothing, "
                + "not even the issues published in the time it would have paid for (2020-03-20 11:58 to 2020-04-20 12:00).")
    }

    /// A reader with an issue grant for March asked about April: nothing covers this issue,
    /// though the grant covers another of the publication; a reader with nothing at all is told
    /// nothing covers the publication.
    @Test func notSubscribed_saysThisIssue_whenTheReaderHoldsAnotherIssue() {
        let march = Grant(
            grantId: "mg-7", source: "makeGood", scope: .issues(publication: "the-monthly", issueIds: ["2020-03"]), start: Mock.instant("2020-03-10T00:00"))
        #expect(
            Self.evaluate([], grants: [march], at: "2020-07-02T00:00").paragraph(aboutIssue: "2020-04")
                == "April 2020 (2020-04), published 2020-04-01, cannot be read as of 2020-07-02 UTC: no subscription, purchase or grant "
                + "gives it. Nothing this reader bought or was given covers this issue.")
        #expect(
            Self.evaluate([], at: "2020-07-02T00:00").paragraph(aboutIssue: "2020-04")
                == "April 2020 (2020-04), published 2020-04-01, cannot be read as of 2020-07-02 UTC: no subscription, purchase or grant "
                + "gives it. Nothing this reader bought or was given covers The Monthly.")
    }

    /// R17: an issue the publisher's grant gives, and one whose grant was revoked.
    @Test func R17_grantedIssue_andRevokedGrant_areNamed() {
        let given = Grant(
            grantId: "mg-7", source: "makeGood", scope: .issues(publication: "the-monthly", issueIds: ["2020-03"]), start: Mock.instant("2020-03-10T00:00"))
        var revoked = given
        revoked.revokedAt = Mock.instant("2020-05-02T00:00")
        #expect(
            Self.evaluate([], grants: [given], at: "2020-07-02T00:00").paragraph(aboutIssue: "2020-03")
                == "March 2020 (2020-03), published 2020-03-01, can be read as of 2020-07-02 UTC: given by make-good mg-7. "
                + "The publisher's issue grant gives it once published, until the grant is revoked.")
        // Every reason is named, the main one first.
        let twice = Grant(
            grantId: "mg-8", source: "makeGood", scope: .issues(publication: "the-monthly", issueIds: ["2020-03"]), start: Mock.instant("2020-03-10T00:00"))
        #expect(
            Self.evaluate(SeedTimelineTests.table61, grants: [twice], at: "2020-07-02T00:00").paragraph(aboutIssue: "2020-03")?
                .hasSuffix("also after the subscription ends. Other reasons: given by make-good mg-8.") == true)
        #expect(
            Self.evaluate([], grants: [revoked], at: "2020-07-02T00:00").paragraph(aboutIssue: "2020-03")
                == "March 2020 (2020-03), published 2020-03-01, cannot be read as of 2020-07-02 UTC: make-good mg-7 was revoked on "
                + "2020-05-02 00:00. A revoked grant gives nothing from its revocation on (2020-05-02); what an archive grant gave before it stays readable.")
    }

    /// R17: a period a print grant began is named by the grant.
    @Test func R17_periodBegunByAGrant_namesTheGrant() {
        let print = Grant(
            grantId: "g-1", source: "print", scope: .span(publications: ["the-monthly"], access: .archive, window: nil),
            start: Mock.instant("2020-02-10T00:00"), end: Mock.instant("2020-09-01T00:00"))
        let result = Self.evaluate([], grants: [print], at: "2020-07-02T00:00")
        #expect(
            result.paragraph(aboutIssue: "2020-02")
                == "February 2020 (2020-02), published 2020-02-01, can be read as of 2020-07-02 UTC: unlocked when period #0 started "
                + "(2020-02-10 00:00), under print subscription g-1, 2020-02-10 – 2020-08-31. Print subscription g-1 starting on "
                + "2020-02-10 unlocked the latest issue published by then, February 2020. Archive access keeps it, also after print subscription g-1 ends.")
    }

    /// R17: archive access a complimentary grant gave is named by the grant, not as a
    /// subscription: what it keeps, and the lapse after it ended.
    @Test func R17_archiveFromAGrant_namesTheGrant_notASubscription() {
        let comp = Grant(
            grantId: "c-1", source: "comp", scope: .span(publications: ["the-monthly"], access: .archive, window: nil),
            start: Mock.instant("2020-02-10T00:00"), end: Mock.instant("2020-05-10T00:00"))
        let result = Self.evaluate([], grants: [comp], at: "2020-07-02T00:00")
        #expect(
            result.paragraph(aboutIssue: "2020-03")
                == "March 2020 (2020-03), published 2020-03-01, can be read as of 2020-07-02 UTC: published during period #0, under "
                + "complimentary access c-1, 2020-02-10 – 2020-05-09. Period #0, started by complimentary access c-1 starting on 2020-02-10, "
                + "ran until 2020-05-10. Archive access keeps every issue published during a period, also after complimentary access c-1 ends.")
        #expect(
            result.paragraph(aboutIssue: "2020-06")
                == "June 2020 (2020-06), published 2020-06-01, cannot be read as of 2020-07-02 UTC: published during a lapse "
                + "(2020-05-10 00:00 → still lapsed). Complimentary access c-1 ended on 2020-05-10 and no period has started since.")
    }

    /// Table 6-2 (streaming): during the billing lapse nothing is readable, and the paragraph says since when.
    @Test func R12_streamingLapse_saysSinceWhen() {
        let result = Self.evaluate(SeedTimelineTests.table62, at: "2020-04-25T00:00")
        #expect(
            result.paragraph(aboutIssue: "2020-03")
                == "March 2020 (2020-03), published 2020-03-01, cannot be read as of 2020-04-25 UTC: streaming access is not active "
                + "(lapsed 2020-04-20 12:00). The last streaming period ended on 2020-04-20 12:00; streaming gives issues only while "
                + "a period is active, and gives them again once the reader resubscribes.")
    }

    /// R12: with a window of 2, an older issue names the active period and the window.
    @Test func R12_outsideTheWindow_namesThePeriodAndTheWindow() {
        let history = [Mock.renewal("w1", "reader2", "2020-02-20T12:00", "2020-08-20T12:00")]
        let result = Self.evaluate(history, at: "2020-07-02T00:00")
        #expect(
            result.paragraph(aboutIssue: "2020-03")
                == "March 2020 (2020-03), published 2020-03-01, cannot be read as of 2020-07-02 UTC: older than the latest 2 issues "
                + "streaming gives. Streaming period #0, started by the purchase on 2020-02-20 12:00 (transaction w1, reader2), runs "
                + "until 2020-08-20 12:00 and gives only the latest 2 published issues; this one is older.")
        #expect(
            result.paragraph(aboutIssue: "2020-07")
                == "July 2020 (2020-07), published 2020-07-01, can be read as of 2020-07-02 UTC: streaming, period #0 active, latest 2 issues. "
                + "Streaming period #0, started by the purchase on 2020-02-20 12:00 (transaction w1, reader2), runs until 2020-08-20 12:00. "
                + "Streaming gives the latest 2 published issues only while a period is active: once it ends, streaming no longer gives it.")
    }

    @Test func unknownIssue_hasNoParagraph() {
        #expect(Self.evaluate(SeedTimelineTests.table61, at: "2020-07-02T00:00").paragraph(aboutIssue: "2020-13") == nil)
    }

    /// Over seeded random histories (refunds and revocations of every type, grants of every
    /// kind): every issue has a paragraph that says "can" exactly when it is readable and holds
    /// the decision's reason in words.
    @Test(arguments: PropertyTests.seeds)
    func R16_everyIssueOfARandomHistory_hasAParagraphTrueToItsDecision(seed: UInt64) throws {
        var random = HistoryGenerator(seed: seed)
        let (transactions, renewals) = random.history()
        let at = random.instant()
        let result = PropertyTests.evaluate(transactions, renewals, grants: random.grants(), at: at)
        for (issue, access) in result.decisions {
            let paragraph = try #require(result.paragraph(aboutIssue: issue.id))
            #expect(paragraph.hasPrefix("\(issue.id), "), "seed \(seed) \(issue.id): \(paragraph)")
            #expect(paragraph.contains(access.isReadable ? ", can be read as of " : ", cannot be read as of "), "seed \(seed) \(issue.id): \(paragraph)")
            switch access {
            case .readable(let reasons): #expect(paragraph.contains(reasons[0].explanation(of: issue, in: result)), "seed \(seed) \(issue.id)")
            case .notReadable(let denial): #expect(paragraph.contains(denial.explanation), "seed \(seed) \(issue.id)")
            }
        }
    }

    /// Every issue at every row of Tables 6-1 and 6-2: the paragraph names the issue (title and
    /// id) and its publish date, and says "can" exactly when the decision is readable.
    @Test(arguments: SeedTimelineTests.table61Rows.map { ($0.at, true) } + SeedTimelineTests.table62Rows.map { ($0.at, false) })
    func R16_everyIssueOfTheSeedTimelines_hasATrueParagraph(at: String, archive: Bool) throws {
        let result = Self.evaluate(archive ? SeedTimelineTests.table61 : SeedTimelineTests.table62, at: at)
        for (issue, access) in result.decisions {
            let paragraph = try #require(result.paragraph(aboutIssue: issue.id))
            let month = Int(issue.id.suffix(2))!
            #expect(paragraph.hasPrefix("\(Self.months[month - 1]) 2020 (\(issue.id)), "), "\(at) \(issue.id): \(paragraph)")
            #expect(paragraph.contains("published 2020-\(issue.id.suffix(2))-01, "), "\(at) \(issue.id): \(paragraph)")
            let readable = paragraph.contains(", can be read as of ")
            let denied = paragraph.contains(", cannot be read as of ")
            #expect(readable != denied && readable == access.isReadable, "\(at) \(issue.id): \(paragraph)")
            switch access {
            case .readable(let reasons): #expect(paragraph.contains(reasons[0].explanation(of: issue, in: result)), "\(at) \(issue.id)")
            case .notReadable(let denial): #expect(paragraph.contains(denial.explanation), "\(at) \(issue.id)")
            }
            // One paragraph: no line breaks, ends with a full stop.
            #expect(!paragraph.contains("\n") && paragraph.hasSuffix("."), "\(at) \(issue.id): \(paragraph)")
        }
    }
}
