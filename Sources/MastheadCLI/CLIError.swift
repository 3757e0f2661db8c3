package import MastheadFormats

/// Why a command stopped: a usage mistake (exit 64), unreadable input (66), bad data (1), an
/// invalid service configuration (78), or a service that cannot listen now (75).
package enum CLIError: Error, Sendable, CustomStringConvertible {
    /// The arguments are wrong; the message says which and how.
    case usage(String)
    /// A file could not be opened or read.
    case cannotRead(path: String, reason: String)
    /// A file could not be written.
    case cannotWrite(path: String, reason: String)
    /// An input file's content is invalid.
    case invalidInput(path: String, FormatError)
    /// An input file other than JSON receipts is invalid; the message names the file and line.
    case invalidData(String)
    /// The service's configuration cannot start it.
    case configuration(String)
    /// The service cannot listen now (its port is taken, its address not up yet): starting again
    /// later may succeed, so a supervisor should retry (EX_TEMPFAIL).
    case temporaryFailure(String)

    /// The process exit status for this error (sysexits.h where one fits).
    package var exitStatus: Int32 {
        switch self {
        case .usage: 64
        case .cannotRead: 66
        case .cannotWrite: 73
        case .invalidInput, .invalidData: 1
        case .configuration: 78
        case .temporaryFailure: 75
        }
    }

    package var description: String {
        switch self {
        case .usage(let message): message
        case .cannotRead(let path, let reason): "cannot read \(path): \(reason)"
        case .cannotWrite(let path, let reason): "cannot write \(path): \(reason)"
        case .invalidInput(let path, let error): "\(path): \(error)"
        case .configuration(let message), .invalidData(let message), .temporaryFailure(let message): message
        }
    }
}
