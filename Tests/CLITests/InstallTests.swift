import Foundation
import Testing

/// `make install` and `make uninstall` into a temporary DESTDIR, with the built `ical`
/// (`ICAL_BIN`, so no release build), and the version's one place.
@Suite struct InstallTests {
    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs a program with the test's PATH (make, swift and strip), a temporary HOME and
    /// pinned TZ and locale.
    static func run(_ executable: String, _ arguments: [String], home: URL,
                    prefix: [String] = []) throws -> Run {
        let process = Process()
        let command = prefix + [executable] + arguments
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        process.environment = ["PATH": path, "HOME": home.path, "TZ": "UTC", "LC_ALL": "C.UTF-8",
                               "MAKEFLAGS": ""]
        process.currentDirectoryURL = ICalRunner.packageRoot
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let (stdoutData, stderrData) = PipeReader.readAll(out.fileHandleForReading, err.fileHandleForReading)
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: String(decoding: stdoutData, as: UTF8.self),
                   stderr: String(decoding: stderrData, as: UTF8.self))
    }

    static func make(_ arguments: [String], home: URL, prefix: [String] = []) throws -> Run {
        try run("/usr/bin/make", ["--no-print-directory"] + arguments, home: home, prefix: prefix)
    }

    /// Every file (and link) below a folder, relative to it.
    static func files(below folder: URL) -> [String] {
        guard let walk = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isDirectoryKey]) else { return [] }
        var found: [String] = []
        for case let url as URL in walk where (try? url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) != true {
            found.append(String(url.path.dropFirst(folder.path.count + 1)))
        }
        return found.sorted()
    }

    /// The manual pages the command tree calls for: ical.1 and ical-SUBCOMMAND[-SUBCOMMAND].1,
    /// walked from `ical --experimental-dump-help`.
    static func expectedManualPages() throws -> [String] {
        let dump = try ICalRunner.run(["--experimental-dump-help"])
        let root = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        var pages: [String] = []
        func walk(_ command: [String: Any], _ path: [String]) {
            let name = path + [command["commandName"] as? String ?? "?"]
            pages.append("share/man/man1/" + name.joined(separator: "-") + ".1")
            for sub in command["subcommands"] as? [[String: Any]] ?? [] { walk(sub, name) }
        }
        walk(try #require(root["command"] as? [String: Any]), [])
        return pages
    }

    /// The version as Sources/ical/Version.swift writes it.
    static func sourceVersion() throws -> String {
        let source = try String(contentsOf: ICalRunner.packageRoot.appendingPathComponent("Sources/ical/Version.swift"),
                                encoding: .utf8)
        let line = try #require(source.split(separator: "\n").first { $0.hasPrefix("let icalVersion = \"") })
        return String(line.dropFirst("let icalVersion = \"".count).dropLast())
    }

    @Test func installWritesExactlyItsFilesAndUninstallRemovesThem() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let destdir = folder.url.appendingPathComponent("dest")
        let home = folder.url.appendingPathComponent("home")
        let common = ["ICAL_BIN=\(ICalRunner.executable.path)", "DESTDIR=\(destdir.path)", "PREFIX=/usr/local"]

        let install = try Self.make(["install"] + common, home: home)
        try #require(install.status == 0, "\(install.stdout)\n\(install.stderr)")

        let root = destdir.appendingPathComponent("usr/local")
        let expected = (["bin/ical",
                         "lib/systemd/user/ical-sync.service", "lib/systemd/user/ical-sync.timer",
                         "share/bash-completion/completions/ical", "share/fish/vendor_completions.d/ical.fish",
                         "share/zsh/site-functions/_ical"] + (try Self.expectedManualPages())).sorted()
        #expect(Self.files(below: destdir) == expected.map { "usr/local/" + $0 })
        #expect(expected.contains("share/man/man1/ical-query.1"))
        #expect(expected.contains("share/man/man1/ical-ui-edit-event.1"))

        // Manual pages: generated mdoc, titled with hyphens (man ical-query), cross-referenced.
        for page in expected where page.hasPrefix("share/man/") {
            let text = try String(contentsOf: root.appendingPathComponent(page), encoding: .utf8)
            let title = page.dropFirst("share/man/man1/".count).dropLast(2).uppercased()
            #expect(text.hasPrefix(".\\\" \"Generated by swift-argument-parser\""), "\(page)")
            #expect(text.contains("\n.Dt \(title) 1\n"), "\(page)")
            #expect(text.contains("\n.Sh NAME\n") && text.contains("\n.Sh DESCRIPTION\n"), "\(page)")
            #expect(text.contains("\n.Os OpenEventKit \(try Self.sourceVersion())\n"), "\(page)")
        }
        let main = try String(contentsOf: root.appendingPathComponent("share/man/man1/ical.1"), encoding: .utf8)
        #expect(main.contains(".Xr ical-query 1"))

        // The installed binary runs, and is stripped.
        let version = try Self.run(root.appendingPathComponent("bin/ical").path, ["--version"], home: home)
        #expect(version.status == 0)
        #expect(version.stdout == (try Self.sourceVersion()) + "\n")
        let file = try Self.run("/usr/bin/env", ["file", root.appendingPathComponent("bin/ical").path], home: home)
        if file.status == 0 { #expect(file.stdout.contains(", stripped"), "\(file.stdout)") }

        // bash completes `ical q` to `query` from the installed script.
        let completion = try Self.run("/bin/bash", ["-c", """
            source "$1"; COMP_WORDS=(ical q); COMP_CWORD=1; COMP_LINE="ical q"; COMP_POINT=6
            _ical ical q ical; echo "${COMPREPLY[@]}"
            """, "bash", root.appendingPathComponent("share/bash-completion/completions/ical").path], home: home)
        #expect(completion.stdout == "query\n", "\(completion.stderr)")

        // The service runs the installed binary from PREFIX (without DESTDIR).
        let service = try String(contentsOf: root.appendingPathComponent("lib/systemd/user/ical-sync.service"), encoding: .utf8)
        #expect(service.contains("\nExecStart=/usr/local/bin/ical sync\n"))
        #expect(service.contains("\nType=oneshot\n"))
        #expect(!service.contains("@BINDIR@"))

        // A manual page of another program in the same folder is left alone by uninstall.
        let other = root.appendingPathComponent("share/man/man1/ical-other.1")
        try Data(".TH ICAL-OTHER 1\n".utf8).write(to: other)

        let uninstall = try Self.make(["uninstall"] + common, home: home)
        try #require(uninstall.status == 0, "\(uninstall.stderr)")
        #expect(Self.files(below: destdir) == ["usr/local/share/man/man1/ical-other.1"])
        try FileManager.default.removeItem(at: other)
        // A second uninstall finds nothing to remove and succeeds.
        #expect(try Self.make(["uninstall"] + common, home: home).status == 0)
    }

    @Test func installUnderAFileFailsWithAMessage() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = try folder.write("plain-file", "not a folder\n")
        let result = try Self.make(["install", "ICAL_BIN=\(ICalRunner.executable.path)", "PREFIX=\(file)/usr"],
                                   home: folder.url.appendingPathComponent("home"))
        #expect(result.status != 0)
        #expect(result.stderr.contains("make install: cannot install under \(file)/usr: \(file) is not a folder"),
                "\(result.stderr)")
        #expect(!result.stderr.contains("Permission denied"))
    }

    /// A PREFIX the user may not write to: as root, the install runs as `nobody` (setpriv);
    /// otherwise the folder is made read-only.
    @Test func installWithoutWriteAccessFailsWithAMessage() throws {
        let folder = try TemporaryFolder()
        defer {
            try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.url.path)
            folder.remove()
        }
        let locked = folder.url.appendingPathComponent("locked")
        try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: true)
        let asRoot = getuid() == 0
        var prefix: [String] = []
        if asRoot {
            let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].first { FileManager.default.isExecutableFile(atPath: $0) }
            try #require(setpriv != nil, "setpriv (util-linux) runs the install as nobody")
            prefix = [setpriv!, "--reuid=65534", "--regid=65534", "--clear-groups"]
            // nobody may enter the folder and read the binary, not write.
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.url.path)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: locked.path)
        } else {
            try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: locked.path)
        }
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: locked.path) }
        let result = try Self.make(["install", "ICAL_BIN=\(ICalRunner.executable.path)", "PREFIX=\(locked.path)/usr"],
                                   home: URL(fileURLWithPath: "/nonexistent"), prefix: prefix)
        #expect(result.status != 0)
        #expect(result.stderr.contains("make install: no permission to write to \(locked.path) (PREFIX=\(locked.path)/usr)"),
                "\(result.stderr)")
        #expect(result.stderr.contains("sudo make install"))
        #expect(Self.files(below: locked).isEmpty)
    }

    /// The version is written once (Sources/ical/Version.swift): `ical --version` prints it,
    /// the Makefile reads it (`make version`, the tarball's name), and CHANGELOG.md has a section
    /// for it.
    @Test func theVersionComesFromOnePlace() throws {
        let version = try Self.sourceVersion()
        #expect(version.split(separator: ".").count == 3)
        #expect(try ICalRunner.run(["--version"]).stdout == version + "\n")
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        #expect(try Self.make(["version"], home: folder.url).stdout == version + "\n")
        let changelog = try String(contentsOf: ICalRunner.packageRoot.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        #expect(changelog.contains("\n## [\(version)]"))
        let sources = try FileManager.default.subpathsOfDirectory(atPath: ICalRunner.packageRoot.appendingPathComponent("Sources/ical").path)
        for source in sources where source.hasSuffix(".swift") && source != "Version.swift" {
            let text = try String(contentsOfFile: ICalRunner.packageRoot.appendingPathComponent("Sources/ical/\(source)").path, encoding: .utf8)
            #expect(!text.contains("\"\(version)\""), "\(source) spells the version again")
        }
    }
}
