#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("Unsupported Platform")
#endif

/// An app's container: the one folder a sandboxed app may write,
/// `$XDG_DATA_HOME/openeventkit-apps/<bundle identifier>/`.
///
/// The container holds `home/` (the app's `HOME` and XDG folders) and `tmp/` (its `TMPDIR`).
/// `XDG_DATA_HOME` defaults to `$HOME/.local/share`; both are read from the environment given,
/// never from the process's own.
package struct AppContainer: Sendable, Hashable {
    /// The app's bundle identifier, a single safe path component.
    package let bundleIdentifier: String
    /// The container folder.
    package let path: String

    /// The app's home folder, inside the container.
    package var home: String { path + "/home" }
    /// The app's temporary folder, inside the container.
    package var temporary: String { path + "/tmp" }

    /// The container of `bundleIdentifier` under `environment`'s `XDG_DATA_HOME` (or
    /// `HOME/.local/share`). Nothing is created; see ``create()``.
    ///
    /// Throws when the identifier is not a safe folder name (``validate(bundleIdentifier:)``)
    /// or when neither variable holds an absolute path.
    package init(bundleIdentifier: String, environment: [String: String]) throws(SandboxError) {
        try Self.validate(bundleIdentifier: bundleIdentifier)
        let dataHome: String
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            dataHome = xdg
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            dataHome = home + "/.local/share"
        } else {
            throw SandboxError(
                .containerUnavailable,
                "Cannot place the container of \(bundleIdentifier): neither XDG_DATA_HOME nor HOME "
                    + "is an absolute path; set HOME (or XDG_DATA_HOME) before `ical run`.")
        }
        self.bundleIdentifier = bundleIdentifier
        self.path = Self.trimmingTrailingSlashes(dataHome) + "/openeventkit-apps/" + bundleIdentifier
    }

    /// Throws unless `bundleIdentifier` is a safe single path component: not empty, not
    /// starting with a dot (which also rules out `.` and `..`), without `/`, NUL or other
    /// control characters, at most 255 bytes.
    package static func validate(bundleIdentifier: String) throws(SandboxError) {
        let problem: String? =
            if bundleIdentifier.isEmpty { "it is empty" }
            else if bundleIdentifier.hasPrefix(".") { "it starts with a dot" }
            else if bundleIdentifier.contains("/") { "it contains a slash" }
            else if bundleIdentifier.unicodeScalars.contains(where: {
                $0.properties.generalCategory == .control || $0.value == 0x7F
            }) { "it contains a control character" }
            else if bundleIdentifier.utf8.count > 255 { "it is longer than 255 bytes" }
            else { nil }
        if let problem {
            throw SandboxError(
                .invalidBundleIdentifier,
                "The bundle identifier \(String(reflecting: bundleIdentifier)) cannot name an app's "
                    + "container because \(problem); use a reverse-DNS name such as "
                    + "\"org.example.Lessons\" (CFBundleIdentifier in the app's Info.plist).")
        }
    }

    /// Creates the container, its `home/` and `tmp/` (mode 0700), and the folders above it as
    /// needed. Existing folders are kept and set to 0700; a symbolic link or a non-folder in
    /// their place is refused.
    package func create() throws(SandboxError) {
        let parent = String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
        try Self.makeFolders(parent, privateLast: true)
        for folder in [path, home, temporary] {
            try Self.makeFolder(folder, mode: 0o700)
        }
    }

    /// The environment an app gets: `base` with `HOME` and `TMPDIR` set to the container's
    /// `home/` and `tmp/`, `XDG_DATA_HOME`, `XDG_CONFIG_HOME`, `XDG_CACHE_HOME` and
    /// `XDG_STATE_HOME` set inside `home/`, `XDG_RUNTIME_DIR` set to `tmp/`, and
    /// `OPENEVENTKIT_STORE` removed (the store is the broker's).
    package func environment(from base: [String: String]) -> [String: String] {
        var environment = base
        environment["OPENEVENTKIT_STORE"] = nil
        environment["HOME"] = home
        environment["TMPDIR"] = temporary
        environment["XDG_DATA_HOME"] = home + "/.local/share"
        environment["XDG_CONFIG_HOME"] = home + "/.config"
        environment["XDG_CACHE_HOME"] = home + "/.cache"
        environment["XDG_STATE_HOME"] = home + "/.local/state"
        environment["XDG_RUNTIME_DIR"] = temporary
        return environment
    }

    private static func trimmingTrailingSlashes(_ path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        return String(trimmed)
    }

    /// mkdir -p for the folders above the container; the last one (openeventkit-apps) is 0700.
    private static func makeFolders(_ path: String, privateLast: Bool) throws(SandboxError) {
        var prefix = ""
        let components = path.split(separator: "/", omittingEmptySubsequences: true)
        for (index, component) in components.enumerated() {
            prefix += "/" + component
            let isLast = index == components.count - 1
            if isLast && privateLast {
                try makeFolder(prefix, mode: 0o700)
            } else if mkdir(prefix, 0o755) != 0 && errno != EEXIST {
                throw folderError(prefix, errno)
            }
        }
    }

    /// Creates `path` with `mode`, or checks that it is a real folder and sets `mode`.
    private static func makeFolder(_ path: String, mode: mode_t) throws(SandboxError) {
        if mkdir(path, mode) != 0 && errno != EEXIST { throw folderError(path, errno) }
        var info = stat()
        guard lstat(path, &info) == 0 else { throw folderError(path, errno) }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw SandboxError(
                .containerUnavailable,
                "\(path) is not a folder (it is a symbolic link or a file), so it cannot hold an "
                    + "app's container; remove it and run `ical run` again.",
                path: path)
        }
        guard chmod(path, mode) == 0 else { throw folderError(path, errno) }
    }

    private static func folderError(_ path: String, _ code: Int32) -> SandboxError {
        SandboxError(
            .containerUnavailable,
            "Cannot create the app container folder \(path): \(String(cString: strerror(code))); "
                + "check that its parent exists and is writable.",
            path: path, errno: code)
    }
}
