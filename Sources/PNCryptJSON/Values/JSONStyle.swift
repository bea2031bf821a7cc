// The styles the writer lays text out in, one per SDK whose bytes it reproduces (docs/sdk-styles.md).

/// How `JSONValue.serialized(style:)` lays out text, named after the SDK whose bytes it reproduces (docs/formats.md
/// section 4).
///
/// All styles write numbers as their literal text, object members in document order, and escape `"` as
/// `\"`, `\` as `\\`, U+0008 U+000C U+000A U+000D U+0009 as `\b \f \n \r \t`, and other U+0000–U+001F as
/// `\u00XX`. Hex digits are lowercase. The raw values are the names used on the command line.
public enum JSONStyle: String, CaseIterable, Hashable, Sendable {
    /// JavaScript `JSON.stringify(v)`: no spaces, raw UTF-8 (U+007F, U+2028, U+2029 too).
    case compact
    /// `NSJSONSerialization` (Objective-C SDK): as `compact`, but `/` is written `\/`.
    case apple
    /// Python `json.dumps(v)` defaults: separators `", "` and `": "`; `ensure_ascii`, so every character
    /// from U+007F up is written `\uXXXX` (astral characters as a surrogate pair, `😀` as `\ud83d\ude00`).
    /// Empty containers are `[]` and `{}`.
    case python
    /// As `compact`, but every non-ASCII character (U+0080 up) written `\uXXXX`, astral ones as surrogate
    /// pairs: what the C# SDK encrypts. U+007F stays raw.
    case ascii
    /// The Go SDK (v9): Go's `encoding/json` (object keys sorted by their bytes, a repeated key keeps its last
    /// value; `<`, `>`, `&`, U+2028, U+2029 escaped; integers exact, other numbers as Go prints a `float64`:
    /// `3.0` as `3`, `1e21` as `1e+21`), then every non-ASCII character written as `\u` and the low 16 bits of
    /// its code point, so characters outside the BMP are corrupted (`🙂` U+1F642 becomes `\uf642`).
    case go
    /// The Ruby SDK (v5): `to_json`: as `compact` for strings; a repeated key keeps its first position and last
    /// value; integers exact; other numbers as Ruby prints a `Float` (`3.0`, `1.0e+21`, `1.5e-07`).
    case ruby
    /// The PHP SDK (v9): `json_encode` defaults (`/` as `\/`, non-ASCII as `\uXXXX` with surrogate pairs;
    /// integers beyond 64 bits and other numbers as PHP prints a `float`: `3.0` as `3`, `1.0e+21`), a repeated
    /// key keeps its first position and last value; a string message (at the top) is written raw between
    /// quotes, not escaped at all (often not JSON: see `isMessageText`).
    case php
    /// The Kotlin and Java SDKs (`pubnub-kotlin` v13, `pubnub-gson` v13 over the same core): Gson with HTML
    /// escaping off (`"`, `\`, control characters, U+2028 and U+2029 escaped; `/`, `<`, `>`, `&`, `=`, `'`, U+007F
    /// and other non-ASCII raw UTF-8), an object member whose value is `null` dropped (`null` in an array kept), a
    /// repeated key keeping its first position and last value; integers exact, other numbers as Java prints a
    /// `Double` (JDK 19 and later: `3.0`, `0.001`, `1.0E7`, `1.5E-7`, `4.9E-324`).
    case kotlin
}
