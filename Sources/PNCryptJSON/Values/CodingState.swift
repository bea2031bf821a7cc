// What the value encoder and decoder (`ValueEncoder`, `ValueDecoder`) hold alike: where they are in the value and
// the caller's user info, which `Encoder` and `Decoder` both ask for.

/// The coding path and user info of a `ValueEncoder` or `ValueDecoder`; each adds the value it works on.
class CodingState {
    /// The keys from the root to the value coded here.
    package let codingPath: [any CodingKey]
    /// The caller's user info, kept `Sendable` (`userInfo` hands it out as the protocols type it).
    let sendableUserInfo: [CodingUserInfoKey: any Sendable]

    init(codingPath: [any CodingKey], userInfo: [CodingUserInfoKey: any Sendable]) {
        self.codingPath = codingPath
        sendableUserInfo = userInfo
    }

    /// The user info as `Encoder` and `Decoder` type it.
    var userInfo: [CodingUserInfoKey: Any] { sendableUserInfo }
}
