/// The answers of the App Store Server API, read from their JSON bodies.
///
/// Every member is optional, as in Apple's models, but a member of the wrong JSON type is a
/// ``FormatError`` naming its path and line; unknown members are ignored. The signed tokens they
/// carry are returned as text, still to verify (``SignedDataVerifier``). They and their items are
/// made only by reading an answer, starting from the initialiser Swift gives a type whose members
/// all have defaults.
protocol ServerAPIResponse: SignedRoot {}
