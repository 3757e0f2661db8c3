import Foundation
import MastheadCrypto
import MastheadGooglePlay
import MastheadJSON
import MastheadTestSupport
import Testing

/// The service account's key file.
struct GoogleServiceAccountTests {
    /// The fixture's key file with `changes`: a value replaces a field's (raw JSON), nil removes it.
    static func keyFile(_ changes: [String: String?]) throws -> [UInt8] {
        let root = try JSONDocument(parsing: GooglePlayTestKeys.serviceAccountKeyFile()).root
        var fields: [(String, String)] = []
        for (key, value) in root.members {
            var raw = JSONWriter()
            raw.string(value.string ?? "")
            fields.append((key.string, raw.text))
        }
        for (name, value) in changes {
            if let index = fields.firstIndex(where: { $0.0 == name }) {
                if let value { fields[index].1 = value } else { fields.remove(at: index) }
            } else if let value {
                fields.append((name, value))
            }
        }
        return Array(("{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}").utf8)
    }

    static func refusal(_ bytes: [UInt8]) -> GooglePlayError? {
        do {
            _ = try GoogleServiceAccount(keyFile: bytes)
            return nil
        } catch { return error }
    }

    @Test func keyFile_readsTheEmailTheKeyIdAndTheKey() throws {
        let account = try GoogleServiceAccount(keyFile: GooglePlayTestKeys.serviceAccountKeyFile())
        #expect(account.clientEmail == GooglePlayTestKeys.serviceAccountEmail)
        #expect(account.privateKeyId == GooglePlayTestKeys.serviceAccountKeyId)
        #expect(try account.privateKey.publicKey.modulus == GooglePlayTestKeys.serviceAccountKey().publicKey.modulus)
    }

    @Test func keyFile_namesEveryMissingField() throws {
        #expect(
            Self.refusal(try Self.keyFile(["client_email": nil, "private_key": nil]))
                == .invalidServiceAccount(reason: "missing or empty (or not a string): $.client_email, $.private_key"))
        #expect(
            Self.refusal(try Self.keyFile(["private_key_id": #""""#]))
                == .invalidServiceAccount(reason: "missing or empty (or not a string): $.private_key_id"))
        #expect(
            Self.refusal(try Self.keyFile(["client_email": "7"])) == .invalidServiceAccount(reason: "missing or empty (or not a string): $.client_email"))
    }

    @Test func keyFile_ignoresTokenURI_andOtherFields() throws {
        let account = try GoogleServiceAccount(keyFile: Self.keyFile(["token_uri": #""http://attacker.example/token""#, "unknown": "[1,2]"]))
        #expect(account.clientEmail == GooglePlayTestKeys.serviceAccountEmail)
        #expect(try GoogleServiceAccount(keyFile: Self.keyFile(["token_uri": nil])).privateKeyId == GooglePlayTestKeys.serviceAccountKeyId)
    }

    @Test func keyFile_refusesAnotherType_aBadKey_andNotJSON_neverQuotingTheKey() throws {
        #expect(Self.refusal(try Self.keyFile(["type": #""authorized_user""#])) == .invalidServiceAccount(reason: #"$.type is not "service_account""#))
        let short = try Self.keyFile(["private_key": JSONString.quoted(GooglePlayTestKeys.text("short-key.pem"))])
        #expect(
            Self.refusal(short)
                == .invalidServiceAccount(reason: "$.private_key: unusable RSA key: a 1024-bit modulus; at least 2048 bits are required"))
        let pkcs1 = try Self.keyFile(["private_key": JSONString.quoted(GooglePlayTestKeys.text("other-key-pkcs1.pem"))])
        let error = try #require(Self.refusal(pkcs1))
        let keyLine = try GooglePlayTestKeys.text("other-key-pkcs1.pem").split(separator: "\n")[1]
        #expect(!error.description.contains(keyLine))
        #expect(Self.refusal(Array("[]".utf8)) == .invalidServiceAccount(reason: "$ is not a JSON object"))
        guard case .invalidServiceAccount(let reason)? = Self.refusal(Array("{\"private_key\":".utf8)) else {
            Issue.record("not refused")
            return
        }
        #expect(reason.hasPrefix("not JSON"))
    }
}

/// JSON string literals for the tests.
enum JSONString {
    static func quoted(_ text: String) -> String {
        var writer = JSONWriter()
        writer.string(text)
        return writer.text
    }
}
