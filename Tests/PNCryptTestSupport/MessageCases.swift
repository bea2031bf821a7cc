/// Messages with no string leaf: nothing in them can be ciphertext, so a legacy33 reading (string leaves only)
/// checks no key. The messages layer's tests and the CLI's use the same ones.
package let messagesWithNoStringLeaf: [String] = [#"{"cmd":{"rm -rf":[]}}"#, "{}", "[]", #"{"a":[]}"#, "[[],{}]"]
