import Masthead
import MastheadStorage

/// Issues published through the API.
extension EntitlementService {
    /// Publishes or corrects an issue of a catalog publication; it survives restarts.
    func publish(_ issue: Issue, in publicationId: String, completion: @escaping @Sendable (Result<Void, any Error>) -> Void) {
        writer.submit({ store -> [Change] in
            try store.upsertIssue(publicationId: publicationId, issue: issue)
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
