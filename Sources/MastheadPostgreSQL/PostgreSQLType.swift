import CLibPQ

/// The type OIDs the wrapper binds and reads (`pg_type`), with their names for errors.
enum PostgreSQLType {
    static let bool: Oid = 16
    static let bytea: Oid = 17
    static let int8: Oid = 20
    static let int2: Oid = 21
    static let int4: Oid = 23
    static let text: Oid = 25
    static let varchar: Oid = 1043

    /// The name of a type, as `\dT` shows it.
    static func name(_ oid: Oid) -> String {
        switch oid {
        case bool: "boolean"
        case bytea: "bytea"
        case int8: "bigint"
        case int2: "smallint"
        case int4: "integer"
        case text: "text"
        case varchar: "character varying"
        default: "type \(oid)"
        }
    }
}
