/// The errors of the consumption consent routes.
enum ConsumptionError: ServiceFailure {
    /// The body is not `{"consented": true}` or `{"consented": false}`: what is wrong.
    case invalidConsent(String)

    var status: Int { 400 }

    var code: String { "invalid_consent" }

    var message: String {
        switch self {
        case .invalidConsent(let reason): "invalid consent body: \(reason); send {\"consented\": true} or {\"consented\": false}"
        }
    }

    static var examples: [ConsumptionError] { [.invalidConsent("")] }
}
