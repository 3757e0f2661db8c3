import Masthead
import MastheadStorage

/// Issues published through the API.
extension EntitlementService {
    /// Publishes or corrects an issue of a catalog publication; it survives restarts. With
    /// webhooks, the readers reported for the publication are due for the sweeper by the issue's
    /// publish instant (their readable count may change then).
    func publish(_ issue: Issue, in publicationId: String, completion: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        let reporting = !configuration.webhookURLs.isEmpty
        writer.submit({ store -> [Change] in
            try store.upsertIssue(publicationId: publicationId, issue: issue)
            if reporting {
                try store.lockReporting()
                try store.makeReportsDue(publicationId: publicationId, by: issue.published)
            }
            return [.issue(publicationId: publicationId, issueId: issue.id)]
        }) { [self] result in
            switch result {
            case .success:
                noteWrite(nil)
                republish([(publicationId, issue)])
                completion(.success(()))
            case .failure(let error):
                noteWrite(error)
                completion(.failure(error))
            }
        }
    }
}
