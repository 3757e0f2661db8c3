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

    var status: Int {
        switch self {
        case .invalidLicence, .invalidQuery: 400
        case .unknown, .notMember: 404
        case .full, .ended: 409
        }
    }

    var code: String {
        switch self {
        case .invalidLicence: "invalid_licence"
        case .invalidQuery: "invalid_query"
        case .unknown: "unknown_licence"
        case .notMember: "not_a_licence_member"
        case .full: "licence_full"
        case .ended: "licence_ended"
        }
    }

    var message: String {
        switch self {
        case .invalidLicence(let reason): "invalid licence: \(reason)"
        case .invalidQuery(let reason): reason
        case .unknown(let licenceId): "no licence \(licenceId)"
        case .notMember(let licenceId, let userId): "user \(userId) was never a member of licence \(licenceId)"
        case .full(let licenceId, let seats): "every seat of licence \(licenceId) is taken (\(seats))"
        case .ended(let licenceId, let end): "licence \(licenceId) ended at \(end)"
        }
    }

    static var examples: [LicenceError] {
        [
            .invalidLicence(""), .invalidQuery(""), .unknown(""), .notMember(licenceId: "", userId: ""), .full(licenceId: "", seats: 1),
            .ended(licenceId: "", end: ""),
        ]
    }
}
