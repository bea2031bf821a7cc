// What the decision procedure asks of a reading's plaintext when a message is wanted: whether it is a message, the
// content check. The question is the messages layer's (its answer, `isMessageText`, parses the message); the core
// only asks it, through the check its callers pass in, and so knows no message format of its own.

/// The content check the decision runs on a reading's plaintext (`KeyRing.Content.message`, and `.text` when both
/// legacy readings of headerless data compete: the headerless rule's first step), given the plaintext and how many
/// bytes from its start may be loaded (the whole decrypted body, which its padding ends). A check may load past the
/// plaintext to read a word at a time; it never uses what it loads there. The messages layer supplies it
/// (`isMessageText(_:readable:)`); a caller that keeps what it parsed passes a closure.
package typealias ContentCheck = (_ plaintext: UnsafeRawBufferPointer, _ readable: Int) -> Bool

extension Decision {
    /// The content check for content that asks none (`.bytes`, where `verdict(of:...)` never calls it): false.
    package static func noContentCheck(_ plaintext: UnsafeRawBufferPointer, readable: Int) -> Bool {
        false
    }
}
