#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("Unsupported Platform")
#endif

/// The Landlock rules an app runs under: what it may read and what it may write.
///
/// Everything else on the file system is closed to it. The rules are:
/// - read-only (and execute): `/usr`, `/lib`, `/lib64`, `/bin`, `/sbin`, `/etc`, the folders
///   holding the Swift runtime and Foundation's libraries this process loaded (found in
///   `/proc/self/maps`), `/proc` (Landlock's ptrace rules keep other processes'
///   `/proc/PID/root`, `/proc/PID/fd` and the like closed), and the app executable's folder;
/// - read-write: `/dev/null`, `/dev/zero`, `/dev/full`, `/dev/random`, `/dev/urandom`,
///   `/dev/tty`, and the app's container.
///
/// Paths that do not exist are left out. Every path is stored resolved (symbolic links
/// followed), which is what Landlock attaches its rule to. The forbidden paths (the store)
/// must not be reachable: no rule may cover them or lie inside them.
package struct SandboxPolicy: Sendable {
    /// What a rule allows.
    package enum Access: Sendable, Hashable {
        /// Read files, list folders, execute programs.
        case readOnly
        /// Everything the running Landlock ABI handles: read, write, create, remove, rename,
        /// link, truncate, device ioctls, execute.
        case readWrite
    }

    /// One rule: a resolved path, what it allows beneath it, and why it is there.
    package struct Rule: Sendable, Hashable, CustomStringConvertible {
        /// The path, resolved (no symbolic links).
        package let path: String
        /// What the app may do beneath `path` (or with the file `path`).
        package let access: Access
        /// Why the rule exists, for error messages ("the system", "the app's folder", …).
        package let reason: String

        /// Makes a rule; `path` should be absolute.
        package init(path: String, access: Access, reason: String) {
            self.path = path
            self.access = access
            self.reason = reason
        }

        /// "read-only /usr (the system)".
        package var description: String {
            "\(access == .readOnly ? "read-only" : "read-write") \(path) (\(reason))"
        }
    }

    /// The app's container, the rule that is read-write.
    package let container: AppContainer
    /// The rules, in order, resolved and without duplicates.
    package let rules: [Rule]

    /// The policy for the app at `executable` (an absolute path) with `container`: the
    /// system's rules, the executable's folder read-only, the container read-write, plus
    /// `extraRules`. Creates the container if needed.
    ///
    /// Throws a ``SandboxError`` of code `storeNotIsolated` when a rule covers a
    /// `forbidden` path or lies inside one (compared by resolved paths and by the device and
    /// inode of every ancestor, so symbolic links and bind mounts do not hide it), and the
    /// container's errors from ``AppContainer/create()``.
    package init(
        container: AppContainer, executable: String, forbidden: [String] = [],
        extraRules: [Rule] = []
    ) throws(SandboxError) {
        try container.create()
        var candidates = Self.systemRules()
        let executableFolder = Self.resolved(executable).map(Self.parent) ?? Self.parent(executable)
        candidates.append(Rule(path: executableFolder, access: .readOnly, reason: "the app's folder"))
        candidates.append(Rule(path: container.path, access: .readWrite, reason: "the app's container"))
        candidates += extraRules
        var rules: [Rule] = []
        for candidate in candidates {
            guard let real = Self.resolved(candidate.path) else { continue }
            if rules.contains(where: { $0.path == real && $0.access == candidate.access }) { continue }
            rules.append(Rule(path: real, access: candidate.access, reason: candidate.reason))
        }
        for path in forbidden {
            try Self.check(rules, keepOut: path)
        }
        self.container = container
        self.rules = rules
    }

    /// The rules every app gets, before resolution: the system read-only, the Swift runtime's
    /// folders read-only, `/proc` read-only, and the harmless devices read-write.
    package static func systemRules() -> [Rule] {
        var rules = ["/usr", "/lib", "/lib64", "/bin", "/sbin", "/etc"].map {
            Rule(path: $0, access: .readOnly, reason: "the system")
        }
        rules += swiftRuntimeFolders().map {
            Rule(path: $0, access: .readOnly, reason: "the Swift runtime")
        }
        rules.append(Rule(path: "/proc", access: .readOnly, reason: "process information"))
        rules += ["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"].map {
            Rule(path: $0, access: .readWrite, reason: "a device every program may use")
        }
        return rules
    }

    /// The folders of the Swift runtime, Foundation, dispatch and ICU libraries mapped into
    /// this process (from `/proc/self/maps`), resolved, outside `/usr` and `/lib`.
    package static func swiftRuntimeFolders() -> [String] {
        guard let maps = readText("/proc/self/maps") else { return [] }
        let prefixes = ["libswift", "libFoundation", "lib_Foundation", "libdispatch",
                        "libBlocksRuntime", "libicu", "lib_FoundationICU"]
        var folders: [String] = []
        for line in maps.split(separator: "\n") {
            guard let slash = line.firstIndex(of: "/") else { continue }
            let file = String(line[slash...])
            let name = file.split(separator: "/").last.map(String.init) ?? ""
            guard name.contains(".so"), prefixes.contains(where: name.hasPrefix),
                let real = resolved(file) else { continue }
            let folder = parent(real)
            if folder.hasPrefix("/usr/") || folder.hasPrefix("/lib") { continue }
            if !folders.contains(folder) { folders.append(folder) }
        }
        return folders
    }

    // MARK: Checking the forbidden paths

    private static func check(_ rules: [Rule], keepOut forbidden: String) throws(SandboxError) {
        let store = resolvedAllowingMissing(forbidden)
        let storeAncestors = ancestors(of: store)
        let storeIdentity = identity(store)
        for rule in rules {
            let ruleIdentity = identity(rule.path)
            let covers = rule.path == store || rule.path == "/" || store.hasPrefix(rule.path + "/")
                || (ruleIdentity != nil && storeAncestors.contains { identity($0) == ruleIdentity })
            if covers {
                throw SandboxError(
                    .storeNotIsolated,
                    "The sandbox's \(rule) would give the app \(rule.access == .readOnly ? "read" : "write") "
                        + "access to the store at \(store). Move the store out of \(rule.path) "
                        + "(OPENEVENTKIT_STORE or --store), or move the app out of it.",
                    path: store)
            }
            let inside = rule.path.hasPrefix(store + "/")
                || (storeIdentity != nil && ancestors(of: rule.path).contains { identity($0) == storeIdentity })
            if inside {
                throw SandboxError(
                    .storeNotIsolated,
                    "The sandbox's \(rule) lies inside the store at \(store), so the app could "
                        + "reach the store's files. Move \(rule.path) out of the store.",
                    path: store)
            }
        }
    }

    private struct Identity: Equatable {
        let device: UInt64
        let inode: UInt64
    }

    private static func identity(_ path: String) -> Identity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// `path` and every folder above it, up to `/`.
    private static func ancestors(of path: String) -> [String] {
        var result = [path]
        var current = path
        while current != "/" {
            current = parent(current)
            result.append(current)
        }
        return result
    }

    // MARK: Paths

    static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The real path, or nil when it does not exist.
    static func resolved(_ path: String) -> String? {
        guard let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        return String(cString: real)
    }

    /// The real path of the nearest existing ancestor, with the missing rest appended.
    private static func resolvedAllowingMissing(_ path: String) -> String {
        var existing = absolute(path)
        var rest: [String] = []
        while resolved(existing) == nil && existing != "/" {
            rest.insert(String(existing.split(separator: "/").last ?? ""), at: 0)
            existing = parent(existing)
        }
        let base = resolved(existing) ?? existing
        return rest.reduce(base) { $0 == "/" ? "/" + $1 : $0 + "/" + $1 }
    }

    /// `path` made absolute against the current folder.
    static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        guard let cwd = getcwd(nil, 0) else { return "/" + path }
        defer { free(cwd) }
        let base = String(cString: cwd)
        return base == "/" ? "/" + path : base + "/" + path
    }

    private static func readText(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count == 0 { break }
            bytes += buffer[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
