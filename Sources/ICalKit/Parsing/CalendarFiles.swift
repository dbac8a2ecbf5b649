#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#else
#error("Unsupported Platform")
#endif

/// Finds the calendar files an input names: a file, `-` for standard input, or a folder
/// holding `.ics` files (a vdir collection, as khal and vdirsyncer write them).
public enum CalendarFiles {
    /// The files an input names, in a stable order.
    ///
    /// A folder gives its `.ics` files sorted by name, then those of its subfolders (one
    /// level deeper per subfolder, as a folder of vdir collections), skipping dot files and
    /// dot folders (`.openeventkit/`, `.git/`). Symbolic links to files are followed.
    ///
    /// - Throws: ``ICalError/Code-swift.struct/io`` when the input does not exist.
    public static func expand(_ input: String) throws(ICalError) -> [String] {
        try expand(input, admitting: { _, _ in true })
    }

    /// The files an input names, as ``expand(_:)``, asking `admit` before the walk takes
    /// a path that may lead elsewhere: every subfolder before it is entered, and every file
    /// that is a symbolic link. A path `admit` refuses is left out (with whatever lies below
    /// it). The input itself is not asked about: check it before calling.
    ///
    /// - Parameter admit: called with the path and whether it is a folder.
    /// - Throws: ``ICalError/Code-swift.struct/io`` when the input does not exist.
    public static func expand(_ input: String, admitting admit: (_ path: String, _ isFolder: Bool) -> Bool) throws(ICalError) -> [String] {
        if input == "-" { return ["-"] }
        var info = stat()
        guard stat(input, &info) == 0 else {
            throw ICalError(.io, "no such file or folder", file: input)
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else { return [input] }
        return try collect(folder: input, depth: 0, admit: admit)
    }

    private static func collect(folder: String, depth: Int, admit: (String, Bool) -> Bool) throws(ICalError) -> [String] {
        guard let directory = opendir(folder) else {
            throw ICalError(.io, "cannot read the folder", file: folder)
        }
        var files: [String] = []
        var folders: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasPrefix(".") { continue }
            let path = folder.hasSuffix("/") ? folder + name : folder + "/" + name
            var info = stat()
            guard stat(path, &info) == 0 else { continue }
            if (info.st_mode & S_IFMT) == S_IFDIR {
                if depth < 2 && admit(path, true) { folders.append(path) }
            } else if name.lowercased().hasSuffix(".ics") {
                if entry.pointee.d_type == UInt8(DT_REG) || !isSymbolicLink(path) || admit(path, false) {
                    files.append(path)
                }
            }
        }
        closedir(directory)
        var result = files.sorted()
        for subfolder in folders.sorted() { result += try collect(folder: subfolder, depth: depth + 1, admit: admit) }
        return result
    }

    private static func isSymbolicLink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK
    }
}
