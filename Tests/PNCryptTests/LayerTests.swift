import Foundation
import Testing

/// The layers of ARCHITECTURE.md, checked against the package as SwiftPM reads it (`swift package dump-package`)
/// and against every `import` in Sources/: a target depends only on targets ranked below it, only the cipher core
/// reaches OpenSSL, only compression reaches zlib, and OpenSSL's own calls and the wiping primitives appear in one
/// place each.
@Suite struct LayerTests {
    /// Each target's rank: a target may depend on (and import) only targets of a lower rank. A new target must be
    /// added here, with its place in ARCHITECTURE.md's picture.
    static let ranks: [String: Int] = [
        "PNCryptJSON": 0,
        "PNCryptCore": 1,
        "PNCryptCompression": 2, "PNCryptFiles": 2,
        "PNCrypt": 3,
        "PNCryptVectors": 4, "CPNCrypt": 4,
        "pncrypt": 5, "pncrypt-bench": 5, "PNCryptTests": 6,
    ]
    /// The system libraries, and the only targets that may use each (the bench's baselines call them directly).
    static let systemUsers: [String: Set<String>] = [
        "CLibCrypto": ["PNCryptCore", "pncrypt-bench"],
        "CZlib": ["PNCryptCompression", "pncrypt-bench"],
        "CPNCryptHeader": ["pncrypt-bench", "PNCryptTests"],
    ]

    struct Target {
        var name: String
        var type: String
        var path: String?
        var dependencies: [String]
    }

    /// The package's targets as SwiftPM reads Package.swift (its own scratch folder: `swift test` holds .build).
    static func targets() throws -> [Target] {
        let scratch = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: scratch) }
        let swift = try #require(findTool("swift"), "swift is not in PATH")
        let result = try runProcess(swift, ["package", "--scratch-path", scratch.path, "dump-package"],
                                    directory: Package.root)
        try #require(result.status == 0, "swift package dump-package: \(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any])
        let list = try #require(json["targets"] as? [[String: Any]])
        return try list.map { entry in
            let dependencies = try #require(entry["dependencies"] as? [[String: Any]]).compactMap { dependency in
                // {"byName": [name, condition]}, {"target": [name, condition]} or {"product": [name, package, ...]}
                (dependency.values.first as? [Any])?.first as? String
            }
            return Target(name: try #require(entry["name"] as? String), type: try #require(entry["type"] as? String),
                          path: entry["path"] as? String, dependencies: dependencies)
        }
    }

    @Test func everyTargetDependsOnlyDownward() throws {
        let targets = try Self.targets()
        let names = Set(targets.map(\.name))
        for target in targets where target.type != "system" {
            let rank = try #require(Self.ranks[target.name], "\(target.name) has no rank in LayerTests.ranks")
            for dependency in target.dependencies where names.contains(dependency) {
                if let allowed = Self.systemUsers[dependency] {
                    #expect(allowed.contains(target.name), "\(target.name) depends on \(dependency)")
                } else {
                    let below = try #require(Self.ranks[dependency], "\(dependency) has no rank")
                    #expect(below < rank, "\(target.name) (rank \(rank)) depends on \(dependency) (rank \(below))")
                }
            }
        }
        // The picture of ARCHITECTURE.md, spelled out: the chain of the library.
        let byName = Dictionary(uniqueKeysWithValues: targets.map { ($0.name, $0) })
        #expect(byName["PNCryptJSON"]?.dependencies == [])
        #expect(byName["PNCryptCore"]?.dependencies.contains("CLibCrypto") == true)
        #expect(byName["PNCryptCompression"]?.dependencies.contains("CZlib") == true)
        #expect(byName["CPNCrypt"].map { !$0.dependencies.contains("CLibCrypto") && !$0.dependencies.contains("CZlib") }
                == true)
    }

    /// Swift source files of each non-test target, by target name.
    static func sources() throws -> [String: [URL]] {
        let root = Package.root.appendingPathComponent("Sources")
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
        let text = try String(contentsOf: file, encoding: .utf8)
        return text.split(separator: "\n").compactMap { line in
            let words = line.split(separator: " ").map(String.init)
            guard let index = words.firstIndex(of: "import"), index + 1 < words.count,
                  words[..<index].allSatisfy({ $0.hasPrefix("@") || ["public", "package", "internal"].contains($0) })
            else { return nil }
            return words[index + 1].split(separator: ".").first.map(String.init)
        }
    }

    @Test func everyImportIsADeclaredDependency() throws {
        let targets = try Self.targets()
        let projectModules = Set(targets.map(\.name))
        let byName = Dictionary(uniqueKeysWithValues: targets.map { ($0.name, $0) })
        for (name, files) in try Self.sources() {
            guard let target = byName[name], target.type != "system" else { continue }
            for file in files {
                for module in try Self.imports(of: file) where projectModules.contains(module) && module != name {
                    #expect(target.dependencies.contains(module),
                            "\(name)/\(file.lastPathComponent) imports \(module), not a dependency of \(name)")
                }
            }
        }
    }

    /// OpenSSL's functions are called in the cipher core only, and the wiping primitives in Wipe.swift only.
    @Test func openSSLAndWipingHaveOnePlace() throws {
        let rules: [(pattern: String, allowed: (String, String) -> Bool)] = [
            ("EVP_", { target, _ in ["PNCryptCore", "pncrypt-bench"].contains(target) }),
            ("OPENSSL_", { target, _ in ["PNCryptCore", "pncrypt-bench"].contains(target) }),
            ("explicit_bzero", { _, file in file == "Wipe.swift" }),
            ("memset_s", { _, file in file == "Wipe.swift" }),
        ]
        for (name, files) in try Self.sources() {
            for file in files {
                let text = try String(contentsOf: file, encoding: .utf8)
                for rule in rules where !rule.allowed(name, file.lastPathComponent) {
                    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
                        .filter { $0.element.contains(rule.pattern) && !$0.element.trimmingPrefix(" ").hasPrefix("//") }
                    let line = lines.first.map { $0.offset + 1 } ?? 0
                    #expect(lines.isEmpty, "\(name)/\(file.lastPathComponent):\(line) uses \(rule.pattern)")
                }
            }
        }
    }
}
