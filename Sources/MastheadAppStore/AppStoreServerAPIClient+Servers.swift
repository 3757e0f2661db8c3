public import Masthead
import MastheadFormats

extension AppStoreServerAPIClient {
    /// Which of Apple's servers a call about a transaction id asks.
    public enum Servers: Hashable, Sendable {
        /// This environment's server only: the subscription's environment is known (polling,
        /// migration). A sandbox answer for a production id would be someone else's history.
        case only(Environment)
        /// Production, then the sandbox when production does not know the transaction id (error
        /// 4040005 or 4040010): the environment is unknown (restore). Production only when the
        /// verifier does not accept sandbox data.
        case productionThenSandbox
    }

    /// The server asked first, and whether a "not found" there is asked again in the sandbox.
    func route(_ servers: Servers) -> (first: Environment, fallsBackToSandbox: Bool) {
        switch servers {
        case .only(let environment): (environment, false)
        case .productionThenSandbox: (.production, verifier.app.environments.contains(.sandbox))
        }
    }
}
