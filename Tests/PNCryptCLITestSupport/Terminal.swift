import Foundation
import Testing
import PNCryptTestSupport

/// Runs `pncrypt` on a pseudo-terminal (Python's `pty` module): the terminal is its controlling terminal, its
/// standard input and (unless `stdout` names a file) its standard output. Each time the output ends with a prompt
/// (": "), the next answer is typed, and whether the terminal echoed input at that moment is recorded.
package enum Terminal {
    package struct Run: Decodable {
        /// The exit status (128 + N for a signal N).
        package var status: Int32
        /// Everything written to the terminal.
        package var transcript: String
        /// At each prompt: whether the terminal echoed input.
        package var echo: [Bool]
        /// Whether the terminal echoed input once the run was over.
        package var echoAfter: Bool
    }

    static let driver = """
        import json, os, pty, sys, termios
        spec = json.loads(sys.argv[1])
        pid, fd = pty.fork()
        if pid == 0:
            if spec.get("cwd"):
                os.chdir(spec["cwd"])
            if spec.get("stdout"):
                out = os.open(spec["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                os.dup2(out, 1)
            os.execv(spec["argv"][0], spec["argv"])
        answers = [a.encode() for a in spec["answers"]]
        transcript, pending, echo = b"", b"", []
        while True:
            try:
                data = os.read(fd, 4096)
            except OSError:
                break
            if not data:
                break
            transcript += data
            pending += data
            if answers and pending.endswith(b": "):
                echo.append(bool(termios.tcgetattr(fd)[3] & termios.ECHO))
                os.write(fd, answers.pop(0))
                pending = b""
        _, status = os.waitpid(pid, 0)
        code = 128 + os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
        echo_after = bool(termios.tcgetattr(fd)[3] & termios.ECHO)
        print(json.dumps({"status": code, "transcript": transcript.decode("utf-8", "replace"),
                          "echo": echo, "echoAfter": echo_after}))
        """

    /// Runs `pncrypt arguments...` on a terminal, typing `answers` at its prompts.
    package static func run(_ arguments: [String], answers: [String] = [], stdout: URL? = nil, directory: URL? = nil)
        throws -> Run {
        let python = try #require(findTool("python3"), "the terminal tests need python3")
        var spec: [String: Any] = ["argv": [CLI.binary.path] + arguments, "answers": answers]
        if let stdout { spec["stdout"] = stdout.path }
        if let directory { spec["cwd"] = directory.path }
        let json = String(decoding: try JSONSerialization.data(withJSONObject: spec), as: UTF8.self)
        let result = try runProcess(python, ["-c", driver, json], environment: CLI.environment())
        try #require(result.status == 0, "the terminal driver failed: \(result.stderr)")
        return try JSONDecoder().decode(Run.self, from: Data(result.stdout))
    }
}
