extension Int {
    /// The count with its noun, singular for one: `1.counting("byte")` is "1 byte", `2.counting("byte")` "2 bytes".
    /// Every message that counts something says it this way (never "1 characters").
    package func counting(_ noun: String) -> String {
        "\(self) \(noun)\(self == 1 ? "" : "s")"
    }
}
