import ArgumentParser
import PNCrypt

/// `--field POINTER`: the message is one field of each record (an export line such as
/// `{"channel":"ch","message":"<Base64>","timetoken":"..."}`), for `message encrypt`, `decrypt` and `rekey`.
struct FieldOption: ParsableArguments {
    @Option(name: .customLong("field"), help: ArgumentHelp("""
        The message is this field of each record (an RFC 6901 JSON Pointer: /message, /payload/text, /items/0; \
        ~1 stands for / and ~0 for ~ in a key): only that field is encrypted, decrypted or rekeyed, every other \
        byte of the record is kept. A field that is not decrypted (never encrypted, damaged, wrong key) is kept \
        as it was, with its status line (--on-error marker writes "DECRYPTION_ERROR" in its place). In line \
        mode (--lines; rekey always) a record without it prints a status line naming the line and the pointer; \
        otherwise it is an error (exit 65). A key repeated in one object: the \
        last counts. "" is the whole record (as without --field).
        """, valueName: "pointer"))
    var field: String?

    func validate() throws {
        _ = try pointer()
    }

    /// The pointer given, nil when none was given or it is `""` (the whole record).
    func pointer() throws -> JSONPointer? {
        guard let field else { return nil }
        do {
            let pointer = try JSONPointer(field)
            return pointer.isWholeDocument ? nil : pointer
        } catch {
            throw ValidationError("--field: " + error.message)
        }
    }

    /// `body` on a record's field; a record without the field is bad input data (exit 65), naming the pointer.
    static func onRecord<R>(_ body: () throws(PNCryptError) -> R) throws -> R {
        do {
            return try body()
        } catch where error.code == .invalidValue {
            throw CLIFailure(.badJSON, error.message + lacking(error))
        }
    }

    /// Which option names the field a record lacks: `--channel-field` for its channel, else `--field`.
    static func lacking(_ error: PNCryptError) -> String {
        let option = error.message.hasPrefix(RecordChannels.channelFailurePrefix) ? "--channel-field" : "--field"
        return " (the record lacks the field \(option) names)"
    }
}
