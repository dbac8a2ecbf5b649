/// Where the stores lie on disk, so that a program that takes file paths can tell when a
/// path leads into one (a Linux addition; on Apple's systems the calendar database is out of
/// the app's reach).
///
/// The access levels hold on every path of ``EKEventStore``; a tool that also reads and
/// writes plain `.ics` files by path (as `ical` does) must not become a way around them.
/// This type is the one rule for that: a path is resolved as the kernel resolves it
/// (relative paths, `.`, `..` and symbolic links, through `realpath(3)`; for a file that does
/// not exist yet, its nearest existing folder, with links in the rest followed by hand), and
/// each folder from it up to `/` is compared with the stores:
///
/// - the configured stores (`--store`, `OPENEVENTKIT_STORE`, the XDG default), compared by
///   device and inode, never by their spelling, so a link, a bind mount or a second spelling
///   of the same folder is the same store;
/// - any folder that carries a store's marker, a `.openeventkit/` folder, so a second store
///   is covered too.
///
/// A path that is a store, or lies inside one, is that store (``location(of:)``); a folder
/// that contains one is not, but a walk through it meets the store's root, which
/// ``location(of:)`` recognises, and skips it when it may not be read.
///
/// What it does not stop: another program of the same Unix user can read the folder, and a
/// hard link made outside the store by someone who could already read it is a file of its
/// own. The article "AccessLevels" describes that boundary.
public struct StoreBoundary: Sendable {
    /// Where a path lies in a store.
    public struct Location: Sendable, Hashable, CustomStringConvertible {
        /// Which part of the store a path is.
        public enum Part: Sendable, Hashable {
            /// The store's folder itself.
            case root
            /// The store's metadata, `.openeventkit/` or anything in it: never calendar
            /// data, and never read or written by path.
            case metadata
            /// A calendar's folder (its identifier is the folder's name) or something in it:
            /// an item file, a file that does not exist yet, or a deeper path.
            case collection(String)
        }

        /// The store's folder, as a canonical absolute path.
        public var storeRoot: String
        /// Which part of the store the path is.
        public var part: Part
        /// The path below the store's folder ("" for the root), canonical.
        public var relativePath: String

        /// The resolved path, canonical and absolute.
        public var resolvedPath: String {
            relativePath.isEmpty ? storeRoot : (storeRoot == "/" ? "/" : storeRoot + "/") + relativePath
        }

        /// Whether the path names an item directly in a calendar's folder (`CAL/NAME`), as
        /// opposed to the folder itself or a deeper path.
        public var isItemLevel: Bool {
            guard case .collection = part else { return false }
            return relativePath.split(separator: "/").count == 2
        }

        public var description: String {
            switch part {
            case .root: "the store at \(storeRoot)"
            case .metadata: "the metadata of the store at \(storeRoot)"
            case .collection(let identifier): "calendar '\(identifier)' of the store at \(storeRoot)"
            }
        }
    }

    /// The configured stores' folders by device and inode (those that exist).
    private let configured: Set<DeviceAndInode>
    /// The folder relative paths are resolved against.
    private let workingDirectory: String

    /// The stores a program uses: `configuredStores` are folder paths (missing ones are
    /// ignored: there is nothing there to protect); folders with a `.openeventkit/` marker
    /// are stores wherever they are.
    public init(configuredStores: [String]) {
        configured = Set(configuredStores.compactMap { StoreSystem.deviceAndInode($0) })
        workingDirectory = StoreSystem.realPath(".") ?? "/"
    }

    /// The store a path is or lies in, or nil when it leads into no store.
    public func location(of path: String) -> Location? {
        let resolved = Self.resolve(path, relativeTo: workingDirectory)
        var ancestor = resolved
        while true {
            if isStoreRoot(ancestor) {
                let relative = ancestor == resolved ? ""
                    : String(resolved.dropFirst(ancestor == "/" ? 1 : ancestor.count + 1))
                let first = relative.split(separator: "/").first.map(String.init)
                let part: Location.Part = first == nil ? .root
                    : first == StoreBoundary.markerName ? .metadata : .collection(first!)
                return Location(storeRoot: ancestor, part: part, relativePath: relative)
            }
            guard ancestor != "/" else { return nil }
            ancestor = Self.parent(of: ancestor)
        }
    }

    /// Whether an existing folder is a store's folder: a configured store, or a folder with
    /// the `.openeventkit/` marker.
    public func isStoreRoot(_ folder: String) -> Bool {
        if !configured.isEmpty, let identity = StoreSystem.deviceAndInode(folder), configured.contains(identity) {
            return true
        }
        return StoreSystem.isFolder((folder == "/" ? "" : folder) + "/" + Self.markerName)
    }

    /// The name of the folder that marks a store (and holds its metadata).
    public static let markerName = ".openeventkit"

    // MARK: Resolving

    /// The most links followed while resolving one path (as the kernel's `ELOOP` limit).
    static let maximumLinks = 40

    /// The canonical absolute path of `path`: the kernel's `realpath(3)` when it exists;
    /// otherwise its nearest existing folder resolved, and the rest resolved by hand
    /// (`.` dropped, `..` going up, symbolic links followed, at most ``maximumLinks``).
    static func resolve(_ path: String, relativeTo directory: String) -> String {
        var links = 0
        return resolve(path, relativeTo: directory, links: &links)
    }

    private static func resolve(_ path: String, relativeTo directory: String, links: inout Int) -> String {
        let absolute = path.hasPrefix("/") ? path : (directory == "/" ? "/" : directory + "/") + path
        if let real = StoreSystem.realPath(absolute) { return real }
        // The nearest existing folder, and the components below it.
        var head = absolute.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        var tail: [String] = []
        var base = "/"
        while let last = head.popLast() {
            tail.insert(last, at: 0)
            if let real = StoreSystem.realPath("/" + head.joined(separator: "/")) {
                base = real
                break
            }
        }
        var current = base
        for component in tail {
            switch component {
            case ".": continue
            case "..": current = parent(of: current)
            default:
                let candidate = (current == "/" ? "/" : current + "/") + component
                if StoreSystem.isSymbolicLink(candidate), links < maximumLinks, let target = StoreSystem.linkTarget(candidate) {
                    links += 1
                    current = resolve(target, relativeTo: current, links: &links)
                } else {
                    current = candidate
                }
            }
        }
        return current
    }

    private static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }
}
