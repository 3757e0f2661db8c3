/// The errors of the licence routes.
enum LicenceError: ServiceFailure {
    /// The body of a licence is not what it should be: where and why.
    case invalidLicence(String)
    /// A query parameter of the member list is not what it should be: which and why.
    case invalidQuery(String)
    /// No licence has this id.
    case unknown(String)
    /// The user is not, and never was, a member of the licence.
    case notMember(licenceId: String, userId: String)
    /// Every seat of the licence is taken.
    case full(licenceId: String, seats: Int)
    /// The licence ended at this instant: nobody joins it any more.
    case ended(licenceId: String, end: String)

    var rendering: (status: Int, code: String, message: String) {
        switch self {
        case .invalidLicence(let reason): (400, "invalid_licence", "invalid licence: \(reason)")
        case .invalidQuery(let reason): (400, "invalid_query", reason)
        case .unknown(let licenceId): (404, "unknown_licence", "no licence \(licenceId)")
        case .notMember(let licenceId, let userId): (404, "not_a_licence_member", "user \(userId) was never a member of licence \(licenceId)")
        case .full(let licenceId, let seats): (409, "licence_full", "every seat of licence \(licenceId) is taken (\(seats))")
        case .ended(let licenceId, let end): (409, "licence_ended", "licence \(licenceId) ended at \(end)")
        }
    }

    static var examples: [LicenceError] {
        [
            .invalidLicence(""), .invalidQuery(""), .unknown(""), .notMember(licenceId: "", userId: ""), .full(licenceId: "", seats: 1),
            .ended(licenceId: "", end: ""),
        ]
    }
}
