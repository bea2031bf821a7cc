import Testing

// The tags of the tests (docs/testing.md): the quick command leaves out `.slow` and `.stress`; CI runs everything.
extension Tag {
    /// Takes seconds rather than milliseconds on a warm debug build: big inputs, many processes or many cases.
    @Tag package static var slow: Self
    /// Pushes a limit on purpose: memory or time bounds, bombs, every signal, many tasks on one value.
    @Tag package static var stress: Self
    /// Runs the built `pncrypt` as a user runs it.
    @Tag package static var cli: Self
    /// Talks to the PubNub Python SDK (`.venv`, `PNCRYPT_SKIP_INTEROP`).
    @Tag package static var interop: Self
}
