import PNCrypt
import PNCryptPlatform

extension Suite {
    /// Line mode (`MessageStream`, acrh, the ~100-byte message of the message figures on every line), in messages per
    /// second, the output discarded as a file would take it:
    /// - `lines.<op>.jobs1` against the library call alone on the same message (`decrypt(jsonText:policy:)` then
    ///   `serialized()`, or `publishBody(JSONValue(parsing:))`): the ratio is 1 / the cost of a line relative to a
    ///   message (target: a line costs at most 1.3x, a ratio of at least 0.77).
    /// - `lines.<op>.jobsN` (N = the number of CPUs) against `jobs1`: the ratio is the scaling (target on 2 cores:
    ///   at least 1.7). On a machine shared with other work this figure is only as good as the idle cores.
    /// - `lines.<op>.jobsN.cpu` (`msg/cs`): messages per CPU second (user + system, the whole process) on N jobs
    ///   against 1 job: the cost of going parallel, whatever else the machine runs (1.0: none).
    func lineFigures() throws -> [Bench.Result] {
        let crypto = try MessageCrypto(cipherKey: "bench-key", scheme: .defaultForWriting,
                                       reading: .only(.defaultForWriting))
        let text = Suite.message.serialized()
        let wire = try crypto.publishBody(Suite.message)
        let count = 20_000
        let plainLines = Array([[UInt8]](repeating: text + [0x0A], count: count).joined())
        let wireLines = Array([[UInt8]](repeating: wire + [0x0A], count: count).joined())
        let cores = MessageStream.defaultJobs

        func stream(_ operation: MessageStream.Operation, jobs: Int, _ input: [UInt8]) throws -> Int {
            let session = try MessageStream(operation, jobs: jobs).makeSession()
            var total = 0
            try input.withUnsafeBytes { (bytes) throws in try session.update(bytes) { total &+= $0.count } }
            try session.finish { total &+= $0.count }
            return total
        }
        func libraryDecrypt(_ n: Int) -> Int {
            var total = 0
            for _ in 0..<n {
                guard let result = try? crypto.decrypt(jsonText: wire, policy: .marker) else { continue }
                total &+= result.message.serialized().count + 1
            }
            return total
        }
        func libraryEncrypt(_ n: Int) throws -> Int {
            var total = 0
            for _ in 0..<n { total &+= try crypto.publishBody(try JSONValue(parsing: text)).count + 1 }
            return total
        }

        /// Messages per CPU second of this process while `body` runs over `count` messages, for about `seconds`.
        func cpuRate(_ body: () throws -> Int) rethrows -> Double {
            func cpu() -> Double {
                var usage = rusage()
                getrusage(RUSAGE_SELF.rawValue, &usage)
                return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
                    + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
            }
            let start = cpu()
            var runs = 0
            var sink = 0
            repeat {
                sink &+= try body()
                runs += 1
            } while cpu() - start < seconds * Double(cores)
            blackHole(sink)
            return Double(runs * count) / (cpu() - start)
        }

        var results: [Bench.Result] = []
        let decrypt = MessageStream.Operation.decrypt(crypto, policy: .marker)
        let encrypt = MessageStream.Operation.encrypt(crypto, raw: false)
        for (name, operation, input, library) in [
            ("decrypt", decrypt, wireLines, { (n: Int) throws -> Int in libraryDecrypt(n) }),
            ("encrypt", encrypt, plainLines, { (n: Int) throws -> Int in try libraryEncrypt(n) }),
        ] {
            var best = (one: 0.0, library: 0.0, all: 0.0, cpuOne: 0.0, cpuAll: 0.0)
            for _ in 0..<rounds {
                best.one = max(best.one, try rate(count) { try stream(operation, jobs: 1, input) })
                best.library = max(best.library, try rate(count) { try library(count) })
                best.all = max(best.all, try rate(count) { try stream(operation, jobs: cores, input) })
                best.cpuOne = max(best.cpuOne, try cpuRate { try stream(operation, jobs: 1, input) })
                best.cpuAll = max(best.cpuAll, try cpuRate { try stream(operation, jobs: cores, input) })
            }
            results.append(Bench.Result(name: "lines.\(name).jobs1", unit: "msg/s", value: best.one,
                                        baseline: "library call, one message", baselineValue: best.library))
            results.append(Bench.Result(name: "lines.\(name).jobs\(cores)", unit: "msg/s", value: best.all,
                                        baseline: "lines, --jobs 1", baselineValue: best.one))
            results.append(Bench.Result(name: "lines.\(name).jobs\(cores).cpu", unit: "msg/cs", value: best.cpuAll,
                                        baseline: "lines, --jobs 1, per CPU second", baselineValue: best.cpuOne))
        }
        return results
    }
}
