import Foundation
import Masthead
import MastheadHTTP
import MastheadJSON
@testable import MastheadService
import MastheadTestSupport
import Synchronization
import Testing

/// The OpenAPI document: well formed, served without a token, and true to the router and the README.
struct OpenAPIDocumentTests {
    /// One operation of the document: an upper-case method and a path template (`/v1/users/{userId}/receipts`).
    struct Operation: Hashable, CustomStringConvertible {
        var method: String
        var path: String
        var description: String { "\(method) \(path)" }

        /// The path with every template variable written `{}`, to compare templates that name them differently.
        var shape: Operation { Operation(method: method, path: path.replacing(/\{[^}]*\}/, with: "{}")) }
    }

    static let methods: Set<String> = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    static func document() throws -> JSONValue { try JSONDocument(parsing: OpenAPIDocument.json).root }

    /// Every (method, path template) pair of the document's `paths`, in document order.
    static func operations(in document: JSONValue) -> [Operation] {
        guard let paths = document["paths"] else { return [] }
        var operations: [Operation] = []
        for (path, item) in paths.members {
            for (method, _) in item.members where methods.contains(method.string) {
                operations.append(Operation(method: method.string.uppercased(), path: path.string))
            }
        }
        return operations
    }

    /// The operation object of a pair.
    static func operation(_ operation: Operation, in document: JSONValue) -> JSONValue? {
        document["paths"]?[operation.path]?[operation.method.lowercased()]
    }

    /// The value a local reference (`#/components/schemas/Error`) points to, or nil.
    static func resolve(_ reference: String, in document: JSONValue) -> JSONValue? {
        guard reference.hasPrefix("#/") else { return nil }
        var value: JSONValue? = document
        for token in reference.dropFirst(2).split(separator: "/", omittingEmptySubsequences: false) {
            value = value?[String(token).replacing("~1", with: "/").replacing("~0", with: "~")]
        }
        return value
    }

    /// Every `$ref` in the value, with the JSON path where it is.
    static func references(in value: JSONValue, path: String = "$") -> [(path: String, target: String)] {
        switch value.kind {
        case .object:
            return value.members.flatMap { key, member -> [(path: String, target: String)] in
                let memberPath = JSONPath.member(path, key.string)
                if key.string == "$ref" { return [(memberPath, member.string ?? "")] }
                return references(in: member, path: memberPath)
            }
        case .array:
            return value.elements.enumerated().flatMap { index, element in references(in: element, path: JSONPath.element(path, index)) }
        default:
            return []
        }
    }

    /// Answers one request through the router, with everything the response carries.
    static func respond(_ harness: ServiceHarness, _ method: String, _ target: String, token: String?) -> HTTPResponse {
        let headers = token.map { [(name: "Authorization", value: "Bearer \($0)")] } ?? []
        let result = Mutex<HTTPResponse?>(nil)
        let done = DispatchSemaphore(value: 0)
        harness.router.handle(HTTPRequest(method: method, target: target, headers: headers)) { response in
            result.withLock { $0 = response }
            done.signal()
        }
        done.wait()
        return result.withLock { $0! }
    }

    /// The path template with an example id in place of each variable.
    static func target(_ template: String) -> String {
        template.replacing("{userId}", with: "u1").replacing("{publicationId}", with: "the-monthly").replacing("{issueId}", with: "2020-01")
            .replacing("{appAccountToken}", with: "3f2504e0-4f89-41d3-9a0c-0305e82c3301").replacing("{grantId}", with: "g-1")
            .replacing("{licenceId}", with: "l1").replacing("{deliveryId}", with: "1")
    }

    /// The token the route of a path template needs: the admin token for an admin route, else the API token.
    static func token(forPath template: String) -> String {
        ServiceRouter.routes.first { $0.path == template }?.access == .adminToken ? "admin-token" : "api-token"
    }

    @Test func document_isOpenAPI31_withEveryReferenceResolved() throws {
        let document = try Self.document()
        #expect(document["openapi"]?.string?.hasPrefix("3.1.") == true)
        #expect(document["info"]?["title"]?.string == "Masthead")
        #expect(document["info"]?["version"]?.string?.isEmpty == false)
        let references = Self.references(in: document)
        #expect(references.count > 50)
        for reference in references {
            #expect(Self.resolve(reference.target, in: document) != nil, "\(reference.path): \(reference.target) points nowhere")
        }
    }

    @Test func document_everyOperationAnswers_andHeadMirrorsGet() throws {
        let document = try Self.document()
        let operations = Self.operations(in: document)
        #expect(operations.count >= 10)
        for operation in operations {
            #expect((Self.operation(operation, in: document)?["responses"]?.count ?? 0) > 0, "\(operation) has no response")
        }
        let gets = Set(operations.filter { $0.method == "GET" }.map(\.path))
        let heads = Set(operations.filter { $0.method == "HEAD" }.map(\.path))
        #expect(gets == heads, "every GET route answers HEAD too")
    }

    @Test func openAPIJSON_isServedWithoutToken() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        let response = Self.respond(harness, "GET", "/openapi.json", token: nil)
        #expect(response.status == 200)
        #expect(response.headers.contains { $0.name == "Content-Type" && $0.value == "application/json" })
        let isTheDocument = response.body == Array(OpenAPIDocument.json.utf8)
        #expect(isTheDocument, "the body is not OpenAPIDocument.json")
    }

    /// Over a live server: GET answers the document, HEAD its head, neither needs a token, and a
    /// GET sent with `Expect: 100-continue` is not refused for want of one.
    @Test func openAPIJSON_getAndHead_overHTTP_withoutToken() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        let server = try ServiceHTTPTests.serve(harness)
        defer { ServiceHTTPTests.stop(server) }
        let client = try TestClient(port: server.port)
        let document = try #require(client.request("GET", "/openapi.json"))
        #expect(document.status == 200)
        #expect(document.headers["content-type"] == "application/json")
        let isTheDocument = document.body == OpenAPIDocument.json
        #expect(isTheDocument, "the body is not OpenAPIDocument.json")
        client.send("HEAD /openapi.json HTTP/1.1\r\nHost: test\r\n\r\n")
        let head = try #require(client.response(bodyless: true))
        #expect(head.status == 200)
        #expect(head.headers["content-length"] == String(OpenAPIDocument.json.utf8.count))
        #expect(head.body.isEmpty)
        #expect(harness.router.headCheck(HTTPRequest(method: "GET", target: "/openapi.json")) == nil)
    }

    /// Each documented operation reaches a route (no 404 `not_found`, no 405), and every other
    /// method on a documented path does not.
    @Test func document_operations_areTheRoutersRoutes() throws {
        let harness = try ServiceHarness()
        defer { harness.close() }
        let operations = Self.operations(in: try Self.document())
        func routed(_ method: String, _ path: String) -> Bool {
            let response = Self.respond(harness, method, Self.target(path), token: Self.token(forPath: path))
            let code = (try? JSONDocument(parsing: response.body).root["error"]?["code"]?.string) ?? nil
            return response.status != 405 && code != "not_found"
        }
        for operation in operations {
            #expect(routed(operation.method, operation.path), "\(operation) has no route")
        }
        for path in Set(operations.map(\.path)) {
            for method in ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH"] where !operations.contains(Operation(method: method, path: path)) {
                #expect(!routed(method, path), "\(method) \(path) is routed but not documented")
            }
        }
    }

    /// The route table's routes are the document's operations, both ways (HEAD wherever GET is),
    /// and each operation's security is its route's access.
    @Test func document_operations_areTheRouteTable_bothWays() throws {
        let document = try Self.document()
        var table: [Operation: Route.Access] = [:]
        for route in ServiceRouter.routes {
            for method in route.methods + (route.allows("GET") ? ["HEAD"] : []) { table[Operation(method: method, path: route.path)] = route.access }
        }
        let documented = Set(Self.operations(in: document))
        #expect(documented.subtracting(table.keys).isEmpty, "in the document, not in the route table: \(documented.subtracting(table.keys))")
        #expect(Set(table.keys).subtracting(documented).isEmpty, "in the route table, not in the document: \(Set(table.keys).subtracting(documented))")
        for (operation, access) in table where documented.contains(operation) {
            // No `security` means the document's default, the API token.
            let schemes = Self.operation(operation, in: document)?["security"].map { $0.elements.flatMap { requirement in requirement.members.map { name, _ in name.string } } } ?? ["apiToken"]
            let expected: [String] =
                switch access {
                case .open, .sharedSecretInBody: []
                case .apiToken: ["apiToken"]
                case .adminToken: ["adminToken"]
                }
            #expect(schemes == expected, "\(operation): security \(schemes), route access \(access)")
        }
    }

    /// Each operation's answers as (status, description), a reference's own `description`
    /// overriding its component's (OpenAPI 3.1's Reference Object).
    static func responses(in document: JSONValue) -> [(operation: Operation, status: String, description: String)] {
        var answers: [(operation: Operation, status: String, description: String)] = []
        for operation in Self.operations(in: document) {
            guard let responses = Self.operation(operation, in: document)?["responses"] else { continue }
            for (status, response) in responses.members {
                let target = response["$ref"]?.string.flatMap { Self.resolve($0, in: document) } ?? response
                answers.append((operation, status.string, response["description"]?.string ?? target["description"]?.string ?? ""))
            }
        }
        return answers
    }

    /// Every code the service's errors have (the `examples` of each type in `ServiceFailures.types`,
    /// the HTTP layer's included) is in the document: with the status it is answered with, in an operation's answer that
    /// names it, or (a code any request may get, or none) in the document's description.
    @Test func document_namesEveryErrorCode_withItsStatus() throws {
        let document = try Self.document()
        let responses = Self.responses(in: document)
        let overview = try #require(document["info"]?["description"]?.string)
        for type in ServiceFailures.types {
            #expect(type.anyExamples.isEmpty == (type == HintedFailure.self), "\(type) has no examples")
        }
        var statuses: [String: Set<Int>] = [:]
        for type in ServiceFailures.types {
            for error in type.anyExamples { statuses[error.code, default: []].insert(error.status) }
        }
        for (code, codeStatuses) in statuses.sorted(by: { $0.key < $1.key }) {
            let answers = responses.filter { $0.description.contains("`\(code)`") }
            if answers.isEmpty {
                #expect(overview.contains("`\(code)`"), "\(code) is nowhere in the document")
                for status in codeStatuses {
                    #expect(overview.contains("\(status) `\(code)`") || overview.contains("`\(code)` (\(status))"), "\(code) is described without its status \(status)")
                }
            } else {
                let documented = Set(answers.compactMap { Int($0.status) })
                #expect(codeStatuses.isSubset(of: documented), "\(code) is \(codeStatuses), documented under \(documented.sorted())")
            }
        }
    }

    /// Every type of the service's sources that conforms to `ServiceFailure` is in
    /// `ServiceFailures.types`, so that its codes are held to the document too.
    @Test func serviceFailures_listEveryConformingType() throws {
        let sources = ServiceHarness.root.appendingPathComponent("Sources/MastheadService")
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        var declared: Set<String> = []
        for case let file as URL in files where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            for line in text.split(separator: "\n") {
                let words = line.split(whereSeparator: { $0 == " " || $0 == ":" || $0 == "," || $0 == "{" })
                // A declaration: `enum Name: …, ServiceFailure …` (an access level or `final` first, perhaps).
                let declaration = words.drop { ["public", "package", "internal", "fileprivate", "private", "final"].contains($0) }
                guard let kind = declaration.first, ["enum", "struct", "class", "actor"].contains(kind), declaration.count > 2,
                    declaration.dropFirst(2).contains("ServiceFailure"), let name = declaration.dropFirst().first
                else { continue }
                declared.insert(String(name))
            }
        }
        #expect(declared.count >= 2)
        #expect(declared == Set(ServiceFailures.types.map { String(describing: $0) }))
    }

    /// The version in the document is the binary's, filled in where `openapi.json` holds its placeholder.
    @Test func document_version_isMastheadVersion() throws {
        #expect(try Self.document()["info"]?["version"]?.string == MastheadVersion.current)
        #expect(!OpenAPIDocument.json.contains(OpenAPIDocument.versionPlaceholder))
    }

    /// The README's endpoint table lists the document's operations (HEAD aside).
    @Test func document_operations_matchTheReadmeTable() throws {
        let readme = try String(contentsOf: ServiceHarness.root.appendingPathComponent("README.md"), encoding: .utf8)
        var rows: Set<Operation> = []
        for line in readme.split(separator: "\n") where line.hasPrefix("| ") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 4, Self.methods.contains(cells[1].lowercased()), cells[1] == cells[1].uppercased(),
                cells[2].hasPrefix("`/"), cells[2].hasSuffix("`")
            else { continue }
            let path = cells[2].dropFirst().dropLast().split(separator: "?", maxSplits: 1)[0]
            rows.insert(Operation(method: cells[1], path: String(path)).shape)
        }
        let documented = Set(Self.operations(in: try Self.document()).filter { $0.method != "HEAD" }.map(\.shape))
        #expect(!rows.isEmpty, "no `| METHOD | `/path` | … |` rows in README.md")
        #expect(rows.subtracting(documented).isEmpty, "in the README, not in the document: \(rows.subtracting(documented))")
        #expect(documented.subtracting(rows).isEmpty, "in the document, not in the README: \(documented.subtracting(rows))")
    }
}
