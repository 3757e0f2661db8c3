/// The errors of the consumption consent routes.
enum ConsumptionError: ServiceFailure {
    /// The body is not `{"consented": true}` or `{"consented": false}`: what is wrong.
    case invalidConsent(String)

    var rendering: (status: Int, code: String, message: String) {
        switch self {
        case .invalidConsent(let reason):
            (400, "invalid_consent", "invalid consent body: \(reason); send {\"consented\": true} or {\"consented\": false}")
        }
    }

    static var examples: [ConsumptionError] { [.invalidConsent("")] }
}
