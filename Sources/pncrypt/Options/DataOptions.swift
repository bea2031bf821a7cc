import ArgumentParser

/// The options `encrypt` and `decrypt` share, in the order their help lists them: the keys, the input (`Input`:
/// `DataInputOptions` or `DecryptInputOptions`), the output, the scheme (`Schemes`: `WriteSchemeOptions` or
/// `ReadSchemeOptions`), `--force` and `--progress`.
struct DataOptions<Input: ParsableArguments, Schemes: ParsableArguments>: ParsableArguments {
    @OptionGroup var keys: KeyOptions
    @OptionGroup var input: Input
    @OptionGroup var output: OutputOptions
    @OptionGroup var schemes: Schemes
    @OptionGroup var force: ForceOption
    @OptionGroup var progress: ProgressOptions
}
