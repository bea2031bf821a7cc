import Foundation
import Testing
import PNCryptCore
import PNCryptTestSupport
import PNCryptBase

/// The layers of ARCHITECTURE.md, checked against the package as SwiftPM reads it (`swift package dump-package`)
/// and against every `import` in Sources/ and Tests/: a target depends only on targets ranked below it, each layer's
/// tests only on that layer and the ones below it, only the cipher core reaches OpenSSL, only compression reaches
/// zlib, and OpenSSL's own calls and the wiping primitives appear in one place each.
@Suite struct LayerTests {
    /// Each target's rank: a target may depend on (and import) only targets of a lower rank. A new target must be
    /// added here, with its place in ARCHITECTURE.md's picture.
    static let ranks: [String: Int] = [
        "PNCryptPlatform": -1, "CPNCryptSIMD": -1,
        "PNCryptBase": 0, "PNCryptAppleCrypto": 0,
        "PNCryptJSON": 1,
        "PNCryptCore": 2, "PNCryptTestSupport": 2,
        "PNCryptCompression": 3, "PNCryptFiles": 3, "PNCryptCLITestSupport": 3,
        "PNCrypt": 4,
        "PNCryptVectors": 5, "CPNCrypt": 5,
        "pncrypt": 6, "pncrypt-bench": 6,
        "PNCryptBaseTests": 7, "PNCryptJSONTests": 7, "PNCryptCoreTests": 7, "PNCryptCompressionTests": 7,
        "PNCryptFilesTests": 7, "PNCryptTests": 7,
        "PNCryptCLIInputOutputTests": 7, "PNCryptCLICommandTests": 7, "PNCryptCLibraryTests": 7,
        "PNCryptInteropTests": 7, "PNCryptArchitectureTests": 7, "PNCryptEndToEndTests": 7,
    ]

    /// The test target of each layer (the library's and the files layer), and the layer it tests.
    static let layerTests: [String: String] = [
        "PNCryptBaseTests": "PNCryptBase", "PNCryptJSONTests": "PNCryptJSON", "PNCryptCoreTests": "PNCryptCore",
        "PNCryptCompressionTests": "PNCryptCompression", "PNCryptFilesTests": "PNCryptFiles", "PNCryptTests": "PNCrypt",
    ]
    /// The shells' tests, by kind (docs/testing.md): the CLI (two targets), the C library, the Python SDK interop,
    /// the architecture (this file), the whole end to end. They may use every target, and the CLI's test support.
    static let shellTests: Set<String> = [
        "PNCryptCLIInputOutputTests", "PNCryptCLICommandTests", "PNCryptCLibraryTests", "PNCryptInteropTests",
        "PNCryptArchitectureTests", "PNCryptEndToEndTests",
    ]
    /// What a layer's tests may use besides the layers: the shared test support (on the bottom layer) and the vector
    /// file reader (on the messages layer, so only the messages layer's tests can reach it).
    static let testHelpers: Set<String> = ["PNCryptTestSupport", "PNCryptVectors"]
    /// The layers' tests that may also reach the files layer (`PNCryptFiles`, below the messages layer but not
    /// under it): the messages layer's, whose key hygiene covers the files layer's read buffer. The others feed
    /// their stages through descriptors with the test support's `Descriptors`.
    static let descriptorTests: Set<String> = ["PNCryptTests"]
    /// The system libraries and the core's C target (its vector loops), and the only targets that may use each (the
    /// bench's baselines call the libraries directly).
    static let systemUsers: [String: Set<String>] = [
        "CLibCrypto": ["PNCryptCore", "pncrypt-bench"],
        "CZlib": ["PNCryptCompression", "pncrypt-bench"],
        "CPNCryptHeader": ["CPNCrypt", "pncrypt-bench", "PNCryptCLibraryTests"],
        "CPNCryptSIMD": ["PNCryptCore"],
    ]

    /// The products of other packages and the only targets that may use each: swift-crypto, the cipher core (and
    /// the bench's baselines); swift-system (paths as bytes, descriptors), the files layer, where it enters, its
    /// tests (and the messages layer's, whose key hygiene covers the files layer's read buffer), the shells above
    /// it and the test support's `Descriptors`, never a layer of the library.
    static let productUsers: [String: Set<String>] = [
        "Crypto": ["PNCryptAppleCrypto", "PNCryptCore", "pncrypt-bench"],
        "_CryptoExtras": ["PNCryptAppleCrypto", "PNCryptCore", "pncrypt-bench"],
        "SystemPackage": [
            "PNCryptFiles", "PNCryptVectors", "pncrypt", "CPNCrypt", "pncrypt-bench", "PNCryptFilesTests",
            "PNCryptTests", "PNCryptTestSupport",
        ],
    ]

    struct Target {
        var name: String
        var type: String
        var path: String?
        var dependencies: [String]
        /// Each dependency's conditions as SwiftPM reads them (platform names, traits), in declaration order.
        var conditions: [(name: String, platforms: [String], traits: [String])] = []
    }

    /// Package.swift as JSON (`swift package dump-package`, in its own scratch folder: `swift test` holds .build).
    static func dumpPackage() throws -> [String: Any] {
        let scratch = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let swift = try #require(findTool("swift"), "swift is not in PATH")
        let result = try runProcess(swift, ["package", "--scratch-path", scratch.path, "dump-package"],
                                    directory: Package.root)
        try #require(result.status == 0, "swift package dump-package: \(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any])
    }

    /// The package's targets as SwiftPM reads Package.swift (its own scratch folder: `swift test` holds .build).
    static func targets() throws -> [Target] {
        try targets(in: try dumpPackage())
    }

    static func targets(in json: [String: Any]) throws -> [Target] {
        let list = try #require(json["targets"] as? [[String: Any]])
        return try list.map { entry in
            let entries = try #require(entry["dependencies"] as? [[String: Any]]).compactMap {
                // {"byName": [name, condition]}, {"target": [name, condition]} or {"product": [name, package, ...,
                // condition]}: the condition is the last element, a dictionary or null.
                $0.values.first as? [Any]
            }
            let dependencies = entries.compactMap { $0.first as? String }
            let conditions = entries.compactMap { fields -> (String, [String], [String])? in
                guard let name = fields.first as? String else { return nil }
                let condition = fields.last as? [String: Any]
                return (name, condition?["platformNames"] as? [String] ?? [], condition?["traits"] as? [String] ?? [])
            }
            return Target(name: try #require(entry["name"] as? String), type: try #require(entry["type"] as? String),
                          path: entry["path"] as? String, dependencies: dependencies, conditions: conditions)
        }
    }

    @Test func everyTargetDependsOnlyDownward() throws {
        let targets = try Self.targets()
        let names = Set(targets.map(\.name))
        for target in targets where target.type != "system" {
            let rank = try #require(Self.ranks[target.name], "\(target.name) has no rank in LayerTests.ranks")
            for dependency in target.dependencies where names.contains(dependency) {
                if let allowed = Self.systemUsers[dependency] ?? Self.productUsers[dependency] {
                    #expect(allowed.contains(target.name), "\(target.name) depends on \(dependency)")
                } else {
                    let below = try #require(Self.ranks[dependency], "\(dependency) has no rank")
                    #expect(below < rank, "\(target.name) (rank \(rank)) depends on \(dependency) (rank \(below))")
                }
            }
        }
        for target in targets {
            for dependency in target.dependencies {
                if let allowed = Self.productUsers[dependency] {
                    #expect(allowed.contains(target.name), "\(target.name) depends on \(dependency)")
                }
            }
        }
        // The picture of ARCHITECTURE.md, spelled out: the chain of the library.
        let byName = Dictionary(uniqueKeysWithValues: targets.map { ($0.name, $0) })
        #expect(byName["PNCryptPlatform"]?.dependencies == [])
        #expect(byName["PNCryptBase"]?.dependencies == ["PNCryptPlatform"])
        #expect(byName["PNCryptJSON"]?.dependencies == ["PNCryptBase"])
        // The core asks whether a plaintext is a message through a check the messages layer passes in (`ContentCheck`):
        // no JSON under the messages layer.
        for name in ["PNCryptCore", "PNCryptCompression", "PNCryptFiles"] {
            #expect(byName[name].map { !Self.closure(of: $0.name, in: byName).contains("PNCryptJSON") } == true,
                    "\(name) reaches PNCryptJSON")
        }
        #expect(byName["PNCryptCore"]?.dependencies.contains("CLibCrypto") == true)
        #expect(byName["PNCryptCompression"]?.dependencies.contains("CZlib") == true)
        #expect(byName["CPNCrypt"].map { !$0.dependencies.contains("CLibCrypto") && !$0.dependencies.contains("CZlib") }
                == true)
    }

    /// Every target `name` depends on, directly or through others (project targets only).
    static func closure(of name: String, in byName: [String: Target]) -> Set<String> {
        var seen: Set<String> = []
        var queue = byName[name]?.dependencies ?? []
        while let next = queue.popLast() {
            guard byName[next] != nil, seen.insert(next).inserted else { continue }
            queue += byName[next]?.dependencies ?? []
        }
        return seen
    }

    /// Each layer's tests depend only on that layer, the ones below it and the test support (whose own dependencies
    /// must stay there too): a unit test of the core cannot reach compression, files, messages or a shell.
    @Test func eachLayersTestsDependOnlyOnTheLayerAndBelow() throws {
        let targets = try Self.targets()
        let byName = Dictionary(uniqueKeysWithValues: targets.map { ($0.name, $0) })
        let tests = Set(targets.filter { $0.type == "test" }.map(\.name))
        #expect(tests == Set(Self.layerTests.keys).union(Self.shellTests), "test targets: \(tests.sorted())")
        for (test, layer) in Self.layerTests {
            // The test support's own layers (the bottom ones, checked below) too: the JSON layer is no longer
            // under the core, but the core's tests may parse JSON.
            let allowed = Self.closure(of: layer, in: byName).union([layer]).union(Self.testHelpers)
                .union(Self.closure(of: "PNCryptTestSupport", in: byName))
                .union(Self.descriptorTests.contains(test) ? ["PNCryptFiles"] : [])
            let reached = Self.closure(of: test, in: byName)
            #expect(byName[test]?.dependencies.contains(layer) == true, "\(test) does not depend on \(layer)")
            #expect(reached.subtracting(allowed).isEmpty,
                    "\(test) reaches \(reached.subtracting(allowed).sorted()), above or beside \(layer)")
        }
        // The support sits on the bottom layer (and whatever that layer stands on), so every layer's tests can use it.
        let bottom = Self.closure(of: "PNCryptJSON", in: byName).union(["PNCryptJSON"])
        #expect(Self.closure(of: "PNCryptTestSupport", in: byName).isSubset(of: bottom),
                "PNCryptTestSupport reaches \(Self.closure(of: "PNCryptTestSupport", in: byName).sorted())")
        // Running the built pncrypt is for the shells' tests only.
        for (test, _) in Self.layerTests {
            #expect(byName[test]?.dependencies.contains("PNCryptCLITestSupport") == false,
                    "\(test) depends on PNCryptCLITestSupport")
        }
    }

    /// The `@Test(...)` and `@Suite(...)` attributes that begin a line of a Swift file, each as its text (string
    /// literals skipped when matching parentheses).
    static func testAttributes(of text: String) -> [Substring] {
        var result: [Substring] = []
        var lineStart = text.startIndex
        while lineStart < text.endIndex {
            let line = text[lineStart...].prefix { $0 != "\n" }
            let trimmed = line.drop { $0 == " " }
            if trimmed.hasPrefix("@Test(") || trimmed.hasPrefix("@Suite(") {
                var depth = 0
                var inString = false
                var index = trimmed.index(trimmed.startIndex, offsetBy: trimmed.hasPrefix("@Test(") ? 5 : 6)
                repeat {
                    let character = text[index]
                    if character == "\"" { inString.toggle() }
                    if !inString && character == "(" { depth += 1 }
                    if !inString && character == ")" { depth -= 1 }
                    index = text.index(after: index)
                } while depth > 0 && index < text.endIndex
                result.append(text[trimmed.startIndex..<index])
            }
            lineStart = line.endIndex < text.endIndex ? text.index(after: line.endIndex) : text.endIndex
        }
        return result
    }

    /// The quick run (docs/testing.md) leaves out exactly the tests tagged slow, stress or interop: each of them,
    /// and no other, carries `.notInQuickRun`.
    @Test func slowStressAndInteropTestsAreLeftOutOfTheQuickRun() throws {
        var tagged = 0
        for (name, files) in try Self.sources(in: "Tests") where name != "PNCryptTestSupport" {
            for file in files {
                for attribute in Self.testAttributes(of: try String(contentsOf: file, encoding: .utf8)) {
                    let slow = [".slow", ".stress", ".interop"].contains { tag in
                        attribute.ranges(of: ".tags(").contains { range in
                            attribute[range.upperBound...].prefix { $0 != ")" }.contains(tag)
                        }
                    }
                    tagged += slow ? 1 : 0
                    #expect(slow == attribute.contains(".notInQuickRun"),
                            "\(name)/\(file.lastPathComponent): \(attribute.prefix(100))")
                }
            }
        }
        #expect(tagged >= 30, "\(tagged) tests tagged slow, stress or interop")
    }

    /// The Apple platforms, as SwiftPM names them: swift-crypto is the backend there (no libcrypto to link).
    static let applePlatforms: Set<String> = ["macos", "ios", "tvos", "watchos", "visionos", "maccatalyst"]

    /// The cipher backend is chosen in Package.swift: the core links OpenSSL only with the default
    /// `OpenSSL` trait and never on an Apple platform; it links swift-crypto's `Crypto` and `_CryptoExtras` on every
    /// Apple platform (through PNCryptAppleCrypto: a target names a product once), and anywhere with the
    /// `SwiftCrypto` trait.
    @Test func theBackendIsChosenByPlatformAndTrait() throws {
        let json = try Self.dumpPackage()
        let traits = try #require(json["traits"] as? [[String: Any]])
        let byTrait = Dictionary(uniqueKeysWithValues: traits.compactMap { trait in
            (trait["name"] as? String).map { ($0, trait["enabledTraits"] as? [String] ?? []) }
        })
        #expect(byTrait["default"] == ["OpenSSL"], "the default traits: \(byTrait)")
        #expect(byTrait["SwiftCrypto"] != nil, "no SwiftCrypto trait: \(byTrait)")
        let targets = try Self.targets(in: json)
        let core = try #require(targets.first { $0.name == "PNCryptCore" })
        let apple = try #require(targets.first { $0.name == "PNCryptAppleCrypto" })
        #expect(core.conditions.contains { $0.name == "PNCryptAppleCrypto" && Set($0.platforms) == Self.applePlatforms
                                           && $0.traits.isEmpty }, "PNCryptCore's PNCryptAppleCrypto condition")
        let openSSL = core.conditions.filter { $0.name == "CLibCrypto" }
        #expect(openSSL.count == 1)
        for condition in openSSL {
            #expect(condition.traits == ["OpenSSL"], "CLibCrypto's traits: \(condition.traits)")
            #expect(!condition.platforms.isEmpty && Self.applePlatforms.isDisjoint(with: condition.platforms),
                    "CLibCrypto's platforms: \(condition.platforms)")
        }
        for product in ["Crypto", "_CryptoExtras"] {
            #expect(apple.conditions.filter { $0.name == product }.map { Set($0.platforms) } == [Self.applePlatforms],
                    "PNCryptAppleCrypto does not link \(product) on exactly the Apple platforms")
            #expect(core.conditions.filter { $0.name == product }.map(\.traits) == [["SwiftCrypto"]],
                    "PNCryptCore does not link \(product) once, with the SwiftCrypto trait")
        }
    }

    /// The one name Swift code asks to pick the backend: Package.swift defines it where the core links OpenSSL.
    static let backendDefine = "PNCRYPT_OPENSSL"

    /// The backend is chosen once: Package.swift has one `.define` of `PNCRYPT_OPENSSL`, with exactly the condition
    /// under which the core links OpenSSL (the platforms and the trait of `CLibCrypto`), given to every target that
    /// chooses; every `#if` that chooses asks that name and nothing else (no spelled platform list, no trait), and
    /// the build runs on the backend it names.
    @Test func theBackendIsChosenByOneDefine() throws {
        let manifest = try String(contentsOf: Package.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(manifest.ranges(of: ".define(").count == 1, "Package.swift defines more than the backend choice")
        #expect(manifest.ranges(of: ".define(\"\(Self.backendDefine)\"").count == 1)
        let json = try Self.dumpPackage()
        let entries = try #require(json["targets"] as? [[String: Any]])
        let core = try #require(try Self.targets(in: json).first { $0.name == "PNCryptCore" })
        let openSSL = try #require(core.conditions.first { $0.name == "CLibCrypto" })
        var choosers: Set<String> = []
        for entry in entries {
            let settings = entry["settings"] as? [[String: Any]] ?? []
            for setting in settings {
                guard let kind = setting["kind"] as? [String: Any], let define = kind["define"] as? [String: Any],
                      define["_0"] as? String == Self.backendDefine else { continue }
                let condition = setting["condition"] as? [String: Any]
                #expect(Set(condition?["platformNames"] as? [String] ?? []) == Set(openSSL.platforms))
                #expect(condition?["traits"] as? [String] == openSSL.traits)
                choosers.insert(entry["name"] as? String ?? "")
            }
        }
        var asking: Set<String> = []
        for (name, files) in try Self.sources() {
            for file in files {
                let text = try String(contentsOf: file, encoding: .utf8)
                for line in text.split(separator: "\n") where line.trimmingPrefix(" ").hasPrefix("#if") {
                    let condition = line.trimmingPrefix(" ").drop { $0 != " " }.trimmingPrefix(" ")
                    #expect(!condition.contains("SwiftCrypto"), "\(name)/\(file.lastPathComponent): \(line)")
                    guard condition.contains(Self.backendDefine) else { continue }
                    #expect(condition == Self.backendDefine || condition == "!\(Self.backendDefine)",
                            "\(name)/\(file.lastPathComponent): \(line)")
                    asking.insert(name)
                    #expect(choosers.contains(name), "\(name) asks \(Self.backendDefine), which it is not given")
                }
            }
        }
        #expect(asking.isSuperset(of: ["PNCryptCore", "pncrypt-bench"]), "\(asking)")
        #if PNCRYPT_OPENSSL
        #expect(Backend.self == OpenSSL.self)
        #else
        #expect(Backend.self == SwiftCryptoBackend.self)
        #endif
    }

    /// One platform seam: `PNCryptPlatform/Platform.swift` is the only Swift file of Sources that imports a C
    /// library module (Glibc, Musl, Darwin, or one Package.swift does not build for); every other imports
    /// `PNCryptPlatform`, and no target re-exports it (`import PNCrypt` brings no C library).
    @Test func oneFileImportsTheCLibrary() throws {
        let libraries: Set<String> = ["Glibc", "Musl", "Darwin", "Bionic", "ucrt", "WASILibc", "CRT", "WinSDK"]
        var importers: [String] = []
        for (name, files) in try Self.sources() {
            for file in files {
                let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").map(String.init)
                for line in lines {
                    let trimmed = line.trimmingCharacters(in: .whitespaces)
                    if let module = Self.importedModule(trimmed), libraries.contains(module) {
                        importers.append("\(name)/\(file.lastPathComponent)")
                    }
                    if trimmed.hasPrefix("@_exported"), Self.importedModule(trimmed) == "PNCryptPlatform" {
                        Issue.record("\(name)/\(file.lastPathComponent) re-exports the platform seam")
                    }
                    if trimmed.hasPrefix("#if") || trimmed.hasPrefix("#elseif") {
                        let asks = ["Glibc", "Musl", "Darwin"].contains { trimmed.contains("canImport(\($0))") }
                        let allowed = name == "PNCryptPlatform" || Self.platformChoices.contains(file.lastPathComponent)
                        #expect(!asks || allowed, "\(name)/\(file.lastPathComponent): \(trimmed)")
                    }
                }
            }
        }
        #expect(Set(importers) == ["PNCryptPlatform/Platform.swift"], "\(importers.sorted())")
    }

    /// Files that ask the platform for what a C library offers rather than to import it: the wipe primitive
    /// (`explicit_bzero`, `memset_s` on Darwin) and glibc's `mallopt`, looked up by name with the other C functions
    /// the platform module does not declare (`CLibrary`).
    static let platformChoices: Set<String> = ["Wipe.swift", "CLibrary.swift"]

    @Test("C functions are looked up by name in one file (PNCryptBase/CLibrary.swift), behind named calls")
    func oneFileLooksUpCFunctions() throws {
        var lookers: [String] = []
        for (name, files) in try Self.sources() {
            for file in files {
                let code = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
                    .filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }
                if code.contains(where: { $0.contains("dlsym(") || $0.contains("dlopen(") }) {
                    lookers.append(name + "/" + file.lastPathComponent)
                }
            }
        }
        #expect(lookers == ["PNCryptBase/CLibrary.swift"], "\(lookers.sorted())")
    }

    /// What a message is (one JSON text, or PHP's raw string form) is the messages layer's answer; the core asks it
    /// through one name, the content check (`ContentCheck`, `Decision.noContentCheck`, `KeyRing.Content.message`,
    /// `Decision.Verdict.message`). No name in the core's code says JSON: a second name for the same question, or the
    /// core growing a JSON of its own, fails here. Comments may describe the wire format (Base64 in a JSON string).
    @Test("the core's code names no JSON: it asks the content check, which the messages layer answers")
    func theCoreNamesNoJSON() throws {
        var found: [String] = []
        for file in try Self.sources()["PNCryptCore"] ?? [] {
            let text = try String(contentsOf: file, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.range(of: "//").map { line[..<$0.lowerBound] } ?? line[...]
                if code.lowercased().contains("json") {
                    let place = "\(file.lastPathComponent):\(number + 1)"
                    found.append("\(place): \(line.trimmingCharacters(in: .whitespaces))")
                }
            }
        }
        #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
        #expect(!(try Self.sources()["PNCryptCore"] ?? []).isEmpty)
    }

    /// A raw system call on a descriptor: `read`, `write`, `pread`, `pwrite`, `readv` or `writev` called as the C
    /// library's function (not as a method, `fd.read(into:)`), with unlabelled arguments (`read(fd, base, count)`),
    /// whether or not its module is named (`PNCryptPlatform.read(...)`).
    static let rawDescriptorCall = #"(?<![\w.])(?:PNCryptPlatform\.|Glibc\.|Musl\.|Darwin\.)?"#
        + #"(?:p?read|p?write|readv|writev)\(\s*[^\s:,()]+\s*,[^:,]+,"#
    /// A descriptor wrapper of the package's own: a type named `...IO` (as `SystemIO`, `FileIO` and the CLI's
    /// `POSIXIO` were), or an errno type beside swift-system's `Errno` (`SystemError`).
    static let descriptorWrapper = #"\b(?:enum|struct|class|actor)\s+(?:\w*IO|SystemError)\b"#

    /// swift-system is the one seam to descriptors (`FileDescriptor`: EINTR retried, failures as `Errno`): no
    /// wrapper type of the package's own over them, and no raw `read`/`write`/`pread` in Sources but in the crash
    /// handler of `PNCryptFiles/SignalCleanup.swift`, which may call only async-signal-safe functions. The domain
    /// helpers are extensions of `FileDescriptor` (`PNCryptFiles/FileDescriptor+Streams.swift`, the CLI's
    /// `FileDescriptor+CLI.swift`).
    @Test("descriptors are read and written through swift-system's FileDescriptor, with no wrapper of our own")
    func descriptorsGoThroughSwiftSystem() throws {
        let rawCall = try NSRegularExpression(pattern: Self.rawDescriptorCall)
        let wrapper = try NSRegularExpression(pattern: Self.descriptorWrapper)
        var found: [String] = []
        for (name, files) in try Self.sources() {
            for file in files {
                let place = name + "/" + file.lastPathComponent
                let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").map(String.init)
                for (index, line) in lines.enumerated()
                where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                    let range = NSRange(line.startIndex..., in: line)
                    if wrapper.firstMatch(in: line, range: range) != nil { found.append("\(place): \(line)") }
                    // swift-system's `writeAll` calls again for ever on a write that writes nothing: every write
                    // loop is `writeEvery` (EIO instead), or the CLI's `writeAll(_:naming:)` over it (its call may
                    // go on for two more lines). The bench writes its own scratch files.
                    let call = lines[index..<min(index + 3, lines.count)].joined()
                    if line.contains("writeAll("), !call.contains("naming"), name != "pncrypt-bench" {
                        found.append("\(place): \(line)")
                    }
                    let handler = place == "PNCryptFiles/SignalCleanup.swift"
                    if rawCall.firstMatch(in: line, range: range) != nil && !handler {
                        found.append("\(place): \(line)")
                    }
                }
            }
        }
        #expect(found.isEmpty, "\(found.sorted())")
        // The patterns find what they are for.
        for (pattern, line) in [(Self.rawDescriptorCall, "n = PNCryptPlatform.read(fd, base, count)"),
                                (Self.rawDescriptorCall, "try retrying { pread(fd, base + done, n, off_t(at)) }"),
                                (Self.rawDescriptorCall, "_ = write(STDERR_FILENO, digits, count + 1)"),
                                (Self.descriptorWrapper, "package enum SystemIO {"),
                                (Self.descriptorWrapper, "package struct SystemError: Error {")] {
            let expression = try NSRegularExpression(pattern: pattern)
            #expect(expression.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil, "\(line)")
        }
        for line in ["let n = try fd.read(into: buffer)", "write(at: index, into: &writer)",
                     "try write(choice, ciphertext: { buffer, offset in", "try read(buffer, offset)"] {
            #expect(rawCall.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) == nil, "\(line)")
        }
    }

    /// Swift source files of each target under `folder` (Sources, or Tests), by target name.
    static func sources(in folder: String = "Sources") throws -> [String: [URL]] {
        let root = Package.root.appendingPathComponent(folder)
        var result: [String: [URL]] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: root.path) {
            let folder = root.appendingPathComponent(name)
            guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else {
                continue
            }
            for case let file as URL in walker where file.pathExtension == "swift" {
                result[name, default: []].append(file)
            }
        }
        return result
    }

    /// Every module a Swift file imports (`import X`, `@_exported import X`, `package import X`, ...).
    static func imports(of file: URL) throws -> [String] {
        try String(contentsOf: file, encoding: .utf8).split(separator: "\n").compactMap { importedModule(String($0)) }
    }

    /// The module a line imports, nil for a line that is not an import.
    static func importedModule(_ line: String) -> String? {
        let words = line.split(separator: " ").map(String.init)
        guard let index = words.firstIndex(of: "import"), index + 1 < words.count,
              words[..<index].allSatisfy({ $0.hasPrefix("@") || ["public", "package", "internal"].contains($0) })
        else { return nil }
        return words[index + 1].split(separator: ".").first.map(String.init)
    }

    @Test func everyImportIsADeclaredDependency() throws {
        let targets = try Self.targets()
        let projectModules = Set(targets.map(\.name))
        let byName = Dictionary(uniqueKeysWithValues: targets.map { ($0.name, $0) })
        let files = try Self.sources().merging(try Self.sources(in: "Tests"), uniquingKeysWith: +)
        for (name, files) in files {
            guard let target = byName[name], target.type != "system" else { continue }
            for file in files {
                for module in try Self.imports(of: file) where projectModules.contains(module) && module != name {
                    #expect(target.dependencies.contains(module),
                            "\(name)/\(file.lastPathComponent) imports \(module), not a dependency of \(name)")
                }
            }
        }
    }

    /// OpenSSL's functions are called in the cipher core's OpenSSL.swift only, swift-crypto's in its SwiftCrypto.swift
    /// only (and both in the bench's baselines), the wiping primitives in the base's Wipe.swift only, EINTR is retried
    /// by swift-system and, for the calls it does not wrap, by the files layer's `retryingInterrupted` only, locks,
    /// condition variables and threads are the base's `Locked.swift` only (the one concurrency primitive), and
    /// continuations are the line engine's.
    @Test func openSSLAndWipingHaveOnePlace() throws {
        let openSSL = { (target: String, file: String) in
            (target == "PNCryptCore" && file == "OpenSSL.swift") || target == "pncrypt-bench"
        }
        let swiftCrypto = { (target: String, file: String) in
            (target == "PNCryptCore" && file == "SwiftCrypto.swift") || target == "pncrypt-bench"
                || target == "PNCryptAppleCrypto"
        }
        let locked = { (target: String, file: String) in target == "PNCryptBase" && file == "Locked.swift" }
        let rules: [(pattern: String, allowed: (String, String) -> Bool)] = [
            ("EVP_", openSSL),
            ("OPENSSL_", openSSL),
            ("import CLibCrypto", openSSL),
            ("AES._CBC", swiftCrypto),
            ("SymmetricKey", swiftCrypto),
            ("Insecure.MD5", swiftCrypto),
            ("SHA256.hash", swiftCrypto),
            ("import Crypto", swiftCrypto),
            ("import _CryptoExtras", swiftCrypto),
            ("explicit_bzero", { target, file in target == "PNCryptBase" && file == "Wipe.swift" }),
            ("memset_s", { target, file in target == "PNCryptBase" && file == "Wipe.swift" }),
            // EINTR is retried by swift-system, and by `retryingInterrupted` (FileDescriptor+Streams.swift) for the
            // calls it does not wrap. Not retries: FileOutput's close (EINTR there means closed).
            ("EINTR", { target, file in
                target == "PNCryptFiles" && ["FileOutput.swift", "FileDescriptor+Streams.swift"].contains(file)
            }),
            (".interrupted", { target, file in target == "PNCryptFiles" && file == "FileDescriptor+Streams.swift" }),
            // The one concurrency primitive: locks, condition variables and threads.
            ("pthread_mutex_", locked),
            ("pthread_cond_", locked),
            ("pthread_create", locked),
            ("pthread_join", locked),
            ("Mutex<", locked),
            ("Mutex(", locked),
            ("Continuation<", { target, file in target == "PNCrypt" && file == "LineEngine.swift" }),
        ]
        for (name, files) in try Self.sources() {
            for file in files {
                let text = try String(contentsOf: file, encoding: .utf8)
                for rule in rules where !rule.allowed(name, file.lastPathComponent) {
                    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
                        .filter { line in
                            line.element.contains(rule.pattern) && !line.element.drop { $0 == " " }.hasPrefix("//")
                        }
                    let line = lines.first.map { $0.offset + 1 } ?? 0
                    #expect(lines.isEmpty, "\(name)/\(file.lastPathComponent):\(line) uses \(rule.pattern)")
                }
            }
        }
    }

    /// Lines longer than `limit` characters (not bytes: a line of Cyrillic is as wide as its letters), as
    /// "line: width".
    static func longLines(in text: String, limit: Int = 120) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            .filter { $0.element.count > limit }
            .map { "\($0.offset + 1): \($0.element.count)" }
    }

    /// What ships (the library's layers, the files layer, the vectors, the CLI and the C library) imports no
    /// Foundation, which would link ICU into the static binaries (the stripped CLI: 17 MB without it, 61 MB with it;
    /// docs/performance.md, "Binary size"). FoundationEssentials (no ICU) is allowed where a dependency needs it,
    /// with Foundation only as the `#else` of `#if canImport(FoundationEssentials)`.
    @Test func nothingShippedImportsFoundation() throws {
        let sources = try Self.sources()
        let notShipped: Set<String> = ["pncrypt-bench", "PNCryptTestSupport", "PNCryptCLITestSupport"]
        let shipped = try Self.targets().filter {
            !["test", "system"].contains($0.type) && !notShipped.contains($0.name)
        }
        #expect(Set(shipped.map(\.name)).isSuperset(of: ["pncrypt", "CPNCrypt", "PNCrypt", "PNCryptFiles"]))
        for target in shipped {
            for file in sources[target.name] ?? [] {
                let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").map {
                    $0.trimmingCharacters(in: .whitespaces)
                }
                for (number, line) in lines.enumerated() where Self.importedModule(line) == "Foundation" {
                    let fallback = number >= 3 && lines[number - 3] == "#if canImport(FoundationEssentials)"
                        && lines[number - 1] == "#else"
                    #expect(fallback, "\(target.name)/\(file.lastPathComponent):\(number + 1): \(line)")
                }
            }
        }
    }

    @Test func longLinesAreFoundByCharacters() {
        #expect(Self.longLines(in: String(repeating: "x", count: 120) + "\n" + String(repeating: "я", count: 120))
            .isEmpty)
        #expect(Self.longLines(in: "a\n" + String(repeating: "x", count: 121)) == ["2: 121"])
    }

    @Test func noSourceOrTestLineIsOver120Columns() throws {
        for folder in ["Sources", "Tests"] {
            for (name, files) in try Self.sources(in: folder) {
                for file in files {
                    let long = Self.longLines(in: try String(contentsOf: file, encoding: .utf8))
                    #expect(long.isEmpty, "\(folder)/\(name)/\(file.lastPathComponent): lines over 120: \(long)")
                }
            }
        }
    }
}
