import MastheadJSON

/// The body of Send Consumption Information, version 2 (Apple's `ConsumptionRequest`): what the
/// publisher tells the App Store about an In-App Purchase whose refund a customer asked for,
/// after a `CONSUMPTION_REQUEST` notification.
public struct ConsumptionRequest: Hashable, Sendable {
    /// Whether the app delivered the purchase and it works (Apple's `deliveryStatus`).
    public enum DeliveryStatus: String, CaseIterable, Hashable, Sendable {
        case delivered = "DELIVERED"
        case undeliveredQualityIssue = "UNDELIVERED_QUALITY_ISSUE"
        case undeliveredWrongItem = "UNDELIVERED_WRONG_ITEM"
        case undeliveredServerOutage = "UNDELIVERED_SERVER_OUTAGE"
        case undeliveredOther = "UNDELIVERED_OTHER"
    }

    /// The outcome the publisher prefers for the refund request (Apple's `refundPreference`).
    public enum RefundPreference: String, CaseIterable, Hashable, Sendable {
        case decline = "DECLINE"
        case grantFull = "GRANT_FULL"
        case grantProrated = "GRANT_PRORATED"
    }

    /// The most `consumptionPercentage` says: 100 % in milliunits.
    public static let maxConsumptionPercentage: Int32 = 100_000

    /// Whether the customer consented to the publisher sending consumption data.
    public var customerConsented: Bool
    /// The share of the purchase the customer consumed, in milliunits (0 to 100000); nil: not sent.
    public var consumptionPercentage: Int32?
    public var deliveryStatus: DeliveryStatus
    /// Nil: not sent (no preference).
    public var refundPreference: RefundPreference?
    /// Whether a free sample or trial of the content, or information about it, was provided before the purchase.
    public var sampleContentProvided: Bool

    /// Creates a request.
    public init(
        customerConsented: Bool, deliveryStatus: DeliveryStatus, sampleContentProvided: Bool, consumptionPercentage: Int32? = nil,
        refundPreference: RefundPreference? = nil
    ) {
        self.customerConsented = customerConsented
        self.deliveryStatus = deliveryStatus
        self.sampleContentProvided = sampleContentProvided
        self.consumptionPercentage = consumptionPercentage
        self.refundPreference = refundPreference
    }

    /// Why Apple would refuse the request as it stands (a `consumptionPercentage` outside 0 to
    /// 100000), or nil.
    public var problem: String? {
        guard let consumptionPercentage, !(0...Self.maxConsumptionPercentage).contains(consumptionPercentage) else { return nil }
        return "consumptionPercentage \(consumptionPercentage) is outside 0...\(Self.maxConsumptionPercentage) (milliunits)"
    }

    /// The JSON body, in Apple's field order; absent optional fields are left out.
    public var json: [UInt8] {
        var writer = JSONWriter(capacity: 160)
        writer.beginObject()
        writer.field("customerConsented", customerConsented)
        if let consumptionPercentage { writer.field("consumptionPercentage", Int64(consumptionPercentage)) }
        writer.field("deliveryStatus", deliveryStatus.rawValue)
        if let refundPreference { writer.field("refundPreference", refundPreference.rawValue) }
        writer.field("sampleContentProvided", sampleContentProvided)
        writer.endObject()
        return writer.bytes
    }
}
