import Masthead

/// The colours and patterns of the timeline, one place for the chart and its legend.
enum Style {
    static func fill(_ kind: IntervalKind) -> String {
        switch kind {
        case .paid: "#2f6fb5"
        case .trial: "url(#hatch-trial)"
        case .introductoryOffer: "#7fa8d8"
        case .offer: "#5b8fc9"
        case .upgraded: "#9db4cf"
        case .nonRenewing: "#3f9a6b"
        case .free: "#69b3a2"
        case .grace: "url(#hatch-grace)"
        case .grant: "#8c6d31"
        }
    }

    /// The colour of a label written on a bar of that kind.
    static func labelColour(_ kind: IntervalKind) -> String {
        switch kind {
        case .paid, .nonRenewing, .free, .grant: "#ffffff"
        case .trial, .introductoryOffer, .offer, .upgraded, .grace: "#1a1a1a"
        }
    }

    static func fill(_ access: AccessStyle) -> String { access == .archive ? "#1d3557" : "#7b4fa0" }

    static let refundedFill = "#fde2e2"
    static let refundedStroke = "#c0392b"
    static let retryFill = "#fff1e6"
    static let retryStroke = "#d55e00"
    static let lapseFill = "url(#hatch-lapse)"
    static let asOfColour = "#d62728"
    static let upgradeColour = "#333333"

    /// The marker of a readable issue: colour and letter.
    static func marker(_ reason: AccessReason) -> (fill: String, letter: String) {
        switch reason {
        case .publishedDuringPeriod: ("#2a9d3f", "P")
        case .unlockedAtPeriodStart: ("#d98c00", "U")
        case .streaming: ("#7b4fa0", "S")
        case .singlePurchase: ("#1f78b4", "$")
        case .granted: ("#8c6d31", "G")
        case .free: ("#17a2b8", "F")
        }
    }

    static let definitions = """
        <defs>\
        <pattern id="hatch-trial" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">\
        <rect width="6" height="6" fill="#cfe0f3"/><rect width="2.5" height="6" fill="#2f6fb5"/></pattern>\
        <pattern id="hatch-grace" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">\
        <rect width="6" height="6" fill="#fbe3b0"/><rect width="2.5" height="6" fill="#e0a100"/></pattern>\
        <pattern id="hatch-lapse" width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(-45)">\
        <rect width="8" height="8" fill="#fdf0f1"/><rect width="2" height="8" fill="#e8a0a8"/></pattern>\
        </defs>
        """
}
