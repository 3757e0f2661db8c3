import COpenAPIDocument
import Masthead

/// The service's HTTP contract as an OpenAPI 3.1 document: every route, parameter, body, answer
/// and error code, served at `GET /openapi.json`.
///
/// The document is `Sources/COpenAPIDocument/openapi.json`, compiled into the binary by that C
/// target (C23's `#embed`) rather than shipped as a resource bundle, so the installed binary
/// needs nothing beside it. Edit that file when a route, parameter, body or error code changes;
/// its `info.version` is ``versionPlaceholder``, filled in here with ``MastheadVersion/current``.
/// `OpenAPIDocumentTests` checks that it parses, that every reference resolves, that its
/// operations are the router's and that it names every error code with its status.
enum OpenAPIDocument {
    /// The JSON string `openapi.json` holds as its `info.version`, replaced by the version's.
    static let versionPlaceholder = #""@MASTHEAD_VERSION@""#

    /// The document, pretty-printed JSON, with the version filled in.
    static let json: String = {
        let bytes = UnsafeBufferPointer(start: masthead_openapi_json(), count: masthead_openapi_json_length())
        return String(decoding: bytes, as: UTF8.self).replacing(versionPlaceholder, with: #""\#(MastheadVersion.current)""#)
    }()
}
