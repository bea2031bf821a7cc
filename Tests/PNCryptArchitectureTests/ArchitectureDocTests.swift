import Foundation
import Testing
import PNCryptTestSupport

/// ARCHITECTURE.md held to the tree, as `LayerTests` holds the layer picture to Package.swift: every file it names
/// exists, every call its "One decrypt" picture places in a file is declared there, and its counted claims (the
/// layers `PNCrypt` re-exports, the files that import Foundation) are what the sources say.
@Suite struct ArchitectureDocTests {
    static func text(_ path: String) throws -> String {
        try String(contentsOf: Package.root.appendingPathComponent(path), encoding: .utf8)
    }

    /// Every file and folder of the tree, relative to the root, without hidden and build folders.
    static let tree: [String] = {
        let root = Package.root.standardizedFileURL.path + "/"
        guard let walker = FileManager.default.enumerator(
            at: Package.root, includingPropertiesForKeys: [.isDirectoryKey],
            options: [.skipsHiddenFiles]) else { return [] }
        var paths: [String] = []
        for case let url as URL in walker {
            let path = String(url.standardizedFileURL.path.dropFirst(root.count))
            if path.hasPrefix(".build") || path.hasPrefix("dist") || path.contains("__pycache__") {
                walker.skipDescendants()
                continue
            }
            let folder = (try? url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true
            paths.append(folder ? path + "/" : path)
        }
        return paths
    }()

    /// Whether `name` names a file or folder of the tree: the whole path, or its end after a `/` or after the
    /// layers' `PNCrypt` prefix (the picture writes `Core/Cipher/KeyRing.swift` for `PNCryptCore/...`).
    static func exists(_ name: String) -> Bool {
        tree.contains { $0 == name || $0.hasSuffix("/" + name) || $0.hasSuffix("PNCrypt" + name) }
    }

    /// The file names in `text`: a code span that is a path with an extension the tree's sources use (`X.swift`,
    /// `scripts/x.sh`, `include/pncrypt.h`, a folder `Options/`), and a Markdown link's target.
    static func namedFiles(_ text: String) -> [String] {
        let extensions = ["swift", "sh", "py", "h", "md", "map", "json", "toml", "c", "cmake", "in"]
        var names: [String] = []
        for span in text.split(separator: "`", omittingEmptySubsequences: false).enumerated()
            where span.offset % 2 == 1 {
            let token = String(span.element)
            guard token.allSatisfy({ $0.isLetter || $0.isNumber || "_-+./".contains($0) }),
                  !token.hasPrefix("."), !token.hasPrefix("-") else { continue }
            let isFolder = token.hasSuffix("/") && token.count > 1
            let ext = token.split(separator: ".").last.map(String.init) ?? ""
            if isFolder || (token.contains(".") && extensions.contains(ext) && !token.hasPrefix("PNCRYPT")) {
                names.append(token)
            }
        }
        for link in text.split(separator: "](").dropFirst() {
            let target = link.prefix { $0 != ")" && $0 != "#" }
            if !target.isEmpty, !target.contains(":") { names.append(String(target)) }
        }
        return names
    }

    @Test("every file and folder ARCHITECTURE.md names is in the tree")
    func namedFilesExist() throws {
        let names = Self.namedFiles(try Self.text("ARCHITECTURE.md"))
        #expect(names.count > 100, "\(names.count) names found: the reader missed the document's spans")
        let missing = Set(names.filter { !Self.exists($0) })
        #expect(missing.isEmpty, "ARCHITECTURE.md names what the tree does not have: \(missing.sorted())")
    }

    /// The "One decrypt" picture's lines: the code block after the section's heading.
    static func picture(_ text: String) throws -> [String] {
        let section = try #require(text.range(of: "## One decrypt"))
        let after = text[section.upperBound...]
        let open = try #require(after.range(of: "```\n"))
        let close = try #require(after[open.upperBound...].range(of: "```"))
        return after[open.upperBound..<close.lowerBound].split(separator: "\n").map(String.init)
    }

    /// The calls a picture line shows (`Type.name`, `name(`, a word after a tree branch or an arrow) and the
    /// source file it names in its file column (`Folder/File.swift`, or `Folder/File` for `File.swift`).
    static func placements(_ line: String) -> (calls: [String], file: String?) {
        let words = line.split(whereSeparator: { " ,;:│├└─◄►→()".contains($0) }).map(String.init)
        let file = words.last { $0.contains("/") && ($0.hasSuffix(".swift") || !$0.contains(".")) }
            .map { $0.hasSuffix(".swift") ? $0 : $0 + ".swift" }
        var calls: [String] = []
        let shown = line.replacingOccurrences(of: "(", with: " ( ")
        let pieces = shown.split(separator: " ").map(String.init)
        for (index, piece) in pieces.enumerated() where !piece.contains("/") {
            let name = piece.split(separator: ".").last.map(String.init) ?? piece
            guard let first = name.first, first.isLowercase, name.allSatisfy({ $0.isLetter || $0.isNumber }) else {
                continue
            }
            let calledHere = piece.contains(".") || (index + 1 < pieces.count && pieces[index + 1] == "(")
                || (index > 0 && ["└", "├", "→"].contains(pieces[index - 1]))
            if calledHere { calls.append(name) }
        }
        return (calls, file)
    }

    /// Whether `file` (a tree path) declares `name`: a function, an initializer's label aside, a property.
    static func declares(_ file: String, _ name: String) throws -> Bool {
        let source = try text(file)
        return ["func \(name)(", "func \(name)<", "var \(name):", "let \(name):", "var \(name) ", "case \(name)"]
            .contains { source.contains($0) }
    }

    @Test("each call the \"One decrypt\" picture places in a file is declared in that file")
    func pictureCallsInTheirFiles() throws {
        let lines = try Self.picture(try Self.text("ARCHITECTURE.md"))
        var placed = 0
        for line in lines {
            let (calls, file) = Self.placements(line)
            guard let file, !calls.isEmpty else { continue }
            let paths = Self.tree.filter { $0.hasSuffix("/" + file) || $0.hasSuffix("PNCrypt" + file) }
            try #require(paths.count == 1, "the picture's \(file) names \(paths.count) files: \(line)")
            let missing = try calls.filter { try !Self.declares(paths[0], $0) }
            #expect(missing.isEmpty, "the picture places \(missing) in \(file), which does not declare it: \(line)")
            placed += calls.count
        }
        #expect(placed >= 12, "\(placed) calls placed: the reader missed the picture's lines")
    }

    static let numbers = ["one", "two", "three", "four", "five", "six"]

    @Test("the layers PNCrypt re-exports: as many as ARCHITECTURE.md and Package.swift say")
    func reExportCount() throws {
        let exports = try Self.text("Sources/PNCrypt/Exports.swift").split(separator: "\n")
            .filter { $0.hasPrefix("@_exported import PNCrypt") }.count
        let word = Self.numbers[exports - 1]
        #expect(try Self.text("ARCHITECTURE.md").contains("re-exports the \(word) below it"), "\(exports) re-exports")
        #expect(try Self.text("Package.swift").contains("re-exports the \(word) layers below it"))
        for said in Self.numbers where said != word {
            #expect(try !Self.text("Package.swift").contains("re-exports the \(said) layers"), "\(said)")
            #expect(try !Self.text("ARCHITECTURE.md").contains("re-exports the \(said) below"), "\(said)")
        }
    }

    @Test("the layer files that import Foundation are the ones ARCHITECTURE.md names")
    func foundationImports() throws {
        let layers = ["PNCryptPlatform", "PNCryptBase", "PNCryptJSON", "PNCryptCore", "PNCryptCompression", "PNCrypt",
                      "PNCryptFiles", "pncrypt"]
        var importing: Set<String> = []
        for (target, files) in try LayerTests.sources() where layers.contains(target) {
            for file in files where try LayerTests.imports(of: file)
                .contains(where: { $0 == "Foundation" || $0 == "FoundationEssentials" }) {
                importing.insert(file.lastPathComponent)
            }
        }
        let text = try Self.text("ARCHITECTURE.md")
        let claim = try #require(text.range(of: "No layer imports Foundation"))
        let rest = text[claim.lowerBound...]
        let end = [rest.range(of: ". "), rest.range(of: ".\n")].compactMap { $0?.lowerBound }.min() ?? rest.endIndex
        let said = Self.namedFiles(String(rest[..<end])).filter { $0.hasSuffix(".swift") }
        #expect(Set(said) == importing, "ARCHITECTURE.md names \(said); importing Foundation: \(importing.sorted())")
    }

    @Test("the files ARCHITECTURE.md says spell scheme cases are the ones SchemeTableTests counts")
    func schemeSpellers() throws {
        let text = try Self.text("ARCHITECTURE.md")
        let claim = try #require(text.range(of: "cases are spelled in more than 3 files under `Sources/` (today:"))
        let rest = text[claim.upperBound...]
        let close = try #require(rest.range(of: ")."))
        let said = Self.namedFiles(String(rest[..<close.lowerBound])).filter { $0.hasSuffix(".swift") }
        let spelling = try SchemeTableTests.filesSpellingSchemes(under: Package.root.appendingPathComponent("Sources"))
            .map { String($0.split(separator: "/").last!) }
        #expect(said.sorted() == spelling.sorted(), "ARCHITECTURE.md names \(said); the count finds \(spelling)")
    }
}
