#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
#error("Unsupported Platform")
#endif
import Synchronization

/// The file's identity as the store compares it: a file that was replaced, rewritten or
/// touched since it was read has a different identity.
package struct FileIdentity: Sendable, Hashable, Codable, CustomStringConvertible {
    package var device: UInt64
    package var inode: UInt64
    package var size: Int64
    package var modificationSeconds: Int64
    package var modificationNanoseconds: Int64

    package var description: String {
        "inode \(inode), \(size) bytes, mtime \(modificationSeconds).\(modificationNanoseconds)"
    }
}

/// What tells whether a folder's entries changed: a file created, removed or renamed in a
/// folder sets its modification and change times (writing inside an existing file does not).
package struct FolderStamp: Sendable, Hashable {
    package var device: UInt64
    package var inode: UInt64
    package var modificationSeconds: Int64
    package var modificationNanoseconds: Int64
    package var changeSeconds: Int64
    package var changeNanoseconds: Int64

    /// The later of the modification and change times, in seconds.
    package var latestChange: Double {
        max(Double(modificationSeconds) + Double(modificationNanoseconds) / 1e9,
            Double(changeSeconds) + Double(changeNanoseconds) / 1e9)
    }
}

/// The one funnel for every C call the store makes: each returns or throws a
/// ``StoreError`` whose cause is a ``SystemCallError`` naming the call.
enum StoreSystem {
    struct Entry: Hashable {
        var name: String
        var isFolder: Bool
        /// The inode number the folder's entry names (`d_ino`), 0 where not given: reading
        /// many files in this order reads the file system's inode tables and blocks mostly
        /// in order, where name order jumps about them.
        var inode: UInt64 = 0
    }

    static func failure(_ function: String, _ message: String, path: String, code: Int32 = errno) -> StoreError {
        let error = SystemCallError(function: function, errno: code)
        let storeCode: StoreError.Code = code == ENOENT ? .notFound : (code == EEXIST ? .alreadyExists : .io)
        return StoreError(storeCode, "\(message): \(String(cString: strerror(code)))", path: path, cause: error)
    }

    /// The identity of a file or folder, or nil when there is none. Does not follow a final symbolic link.
    static func identity(_ path: String) throws(StoreError) -> FileIdentity? {
        var info = stat()
        if lstat(path, &info) != 0 {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw failure("lstat", "cannot examine", path: path)
        }
        return identity(info)
    }

    static func identity(_ info: stat) -> FileIdentity {
        FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
                     modificationSeconds: Int64(info.st_mtim.tv_sec), modificationNanoseconds: Int64(info.st_mtim.tv_nsec))
    }

    /// A folder's device, inode and modification and change times (following a symbolic
    /// link, as listing it does); nil when it is gone or not a folder.
    static func folderStamp(_ path: String) throws(StoreError) -> FolderStamp? {
        var info = stat()
        if stat(path, &info) != 0 {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw failure("stat", "cannot examine", path: path)
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else { return nil }
        return FolderStamp(device: UInt64(info.st_dev), inode: UInt64(info.st_ino),
                           modificationSeconds: Int64(info.st_mtim.tv_sec), modificationNanoseconds: Int64(info.st_mtim.tv_nsec),
                           changeSeconds: Int64(info.st_ctim.tv_sec), changeNanoseconds: Int64(info.st_ctim.tv_nsec))
    }

    /// The current wall-clock time, in seconds since 1970 (the clock file times follow).
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    static func isFolder(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// Linux's `O_NOATIME` (since 2.6.8), which glibc declares only for `_GNU_SOURCE`, which
    /// Swift's Glibc module does not define.
    static let noAccessTime: Int32 = 0o1_000_000

    /// Opens a file for reading without following a symbolic link, with `flags` added; with
    /// `touchingAccessTime: false`, with `O_NOATIME` where the caller may ask it (the file's
    /// owner or a privileged process), else as usual. -1 when it cannot be opened (`errno`
    /// says why).
    static func openForReading(_ path: String, flags: Int32 = 0, touchingAccessTime: Bool) -> Int32 {
        let reading = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | flags
        if !touchingAccessTime {
            let descriptor = open(path, reading | noAccessTime)
            if descriptor >= 0 || errno != EPERM { return descriptor }
        }
        return open(path, reading)
    }

    /// Reads a whole regular file and the identity of what was read (from the same descriptor).
    ///
    /// With `touchingAccessTime: false` the file is opened with `O_NOATIME`, so reading it
    /// does not update its access time (which, under `relatime`, dirties the inode of a file
    /// read for the first time since it was written: a journal write per file for bulk
    /// readers such as the query index). Only the file's owner (or a privileged process)
    /// may ask for that; otherwise the file is opened as usual.
    static func readFile(_ path: String, limit: Int, touchingAccessTime: Bool = true) throws(StoreError) -> (bytes: [UInt8], identity: FileIdentity) {
        let descriptor = openForReading(path, touchingAccessTime: touchingAccessTime)
        guard descriptor >= 0 else { throw failure("open", "cannot open", path: path) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw failure("fstat", "cannot examine", path: path) }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw StoreError(.invalidItem, "not a regular file", path: path)
        }
        guard Int(info.st_size) <= limit else {
            throw StoreError(.invalidItem, "file is \(info.st_size) bytes, more than the limit of \(limit)", path: path)
        }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var offset = 0
        while offset < bytes.count {
            let count = bytes.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure("read", "cannot read", path: path)
            }
            if count == 0 { break }
            offset += count
        }
        bytes.removeSubrange(offset...)
        return (bytes, identity(info))
    }

    /// Creates a new file (it must not exist) and writes it. With `flush` (the default) the
    /// file is also flushed to disk with `fsync` before this returns; without it, the caller
    /// flushes a whole batch at once with ``synchronizeFileSystems(containing:)``.
    static func writeNewFile(_ bytes: [UInt8], to path: String, mode: mode_t = 0o644, flush: Bool = true) throws(StoreError) {
        try writeNewFile(to: path, mode: mode, flush: flush) { write throws(StoreError) in try write(bytes) }
    }

    /// ``writeNewFile(_:to:mode:flush:)`` of bytes that `content` hands to its `write` in
    /// parts (a journal of any length, a part at a time).
    static func writeNewFile(to path: String, mode: mode_t = 0o644, flush: Bool = true,
                             content: ((_ write: ([UInt8]) throws(StoreError) -> Void) throws(StoreError) -> Void)) throws(StoreError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)
        guard descriptor >= 0 else { throw failure("open", "cannot create", path: path) }
        var closed = false
        defer { if !closed { close(descriptor) } }
        try content { bytes throws(StoreError) in
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
                if written < 0 {
                    if errno == EINTR { continue }
                    throw failure("write", "cannot write", path: path)
                }
                offset += written
            }
        }
        if flush {
            guard fsync(descriptor) == 0 else { throw failure("fsync", "cannot flush to disk", path: path) }
        }
        closed = true
        guard close(descriptor) == 0 else { throw failure("close", "cannot close", path: path) }
    }

    /// Flushes a folder's entries (creations, renames, removals in it) to disk.
    static func synchronize(folder path: String) throws(StoreError) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure("open", "cannot open folder", path: path) }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw failure("fsync", "cannot flush folder to disk", path: path) }
    }

    /// Flushes everything written so far on each file system that holds one of `paths`
    /// (existing folders), with one `syncfs(2)` per file system: file data, new entries,
    /// renames and removals alike. It returns when the data is on disk; since Linux 5.8 it
    /// also reports a write-back error that happened since the file system was opened for
    /// this call, as `fsync` would.
    ///
    /// This replaces one `fsync` per file for a batch: thousands of `fsync` calls each wait
    /// for the disk, one `syncfs` waits once.
    static func synchronizeFileSystems(containing paths: some Sequence<String>) throws(StoreError) {
        var devices = Set<UInt64>()
        for path in paths {
            let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard descriptor >= 0 else { throw failure("open", "cannot open folder", path: path) }
            defer { close(descriptor) }
            var info = stat()
            guard fstat(descriptor, &info) == 0 else { throw failure("fstat", "cannot examine", path: path) }
            guard devices.insert(UInt64(info.st_dev)).inserted else { continue }
            if let syncfs = Self.syncfsFunction {
                guard syncfs(descriptor) == 0 else { throw failure("syncfs", "cannot flush the file system to disk", path: path) }
            } else {
                sync()   // no syncfs in this C library: flush every file system (waits on Linux)
            }
        }
    }

    /// `syncfs(2)`, looked up at run time: the C library declares it only for `_GNU_SOURCE`,
    /// which the Swift overlay does not see.
    private static let syncfsFunction: (@convention(c) (Int32) -> Int32)? = {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "syncfs") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32) -> Int32).self)
    }()

    static func rename(_ source: String, _ target: String) throws(StoreError) {
        guard Glibc.rename(source, target) == 0 else { throw failure("rename", "cannot rename \(source) to", path: target) }
    }

    /// Removes a file; a file that is not there is not an error.
    static func remove(_ path: String) throws(StoreError) {
        if unlink(path) != 0 && errno != ENOENT { throw failure("unlink", "cannot remove", path: path) }
    }

    /// Creates a folder; returns false when it was already there.
    @discardableResult
    static func makeFolder(_ path: String) throws(StoreError) -> Bool {
        if mkdir(path, 0o755) == 0 { return true }
        if errno == EEXIST && isFolder(path) { return false }
        throw failure("mkdir", "cannot create folder", path: path)
    }

    /// Creates a folder and its missing parents.
    static func makeFolders(_ path: String) throws(StoreError) {
        if isFolder(path) { return }
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
            try makeFolders(String(path[..<slash]))
        }
        try makeFolder(path)
    }

    /// Records the folders that ``list(_:)`` reads, for tests of what an operation lists
    /// (opening a store must not list its collections). A task-local value, so tests that
    /// run at the same time never see each other's listings:
    /// `StoreSystem.$listingRecorder.withValue(recorder) { … }`. Nil, the default, records
    /// nothing.
    @TaskLocal static var listingRecorder: ListingRecorder?

    /// The folders listed while a ``StoreSystem/listingRecorder`` was set, in order.
    final class ListingRecorder: Sendable {
        private let folders = Mutex<[String]>([])

        init() {}

        /// Every folder listed so far, as it was passed to ``StoreSystem/list(_:)``.
        var listed: [String] { folders.withLock { $0 } }

        func record(_ path: String) { folders.withLock { $0.append(path) } }
    }

    /// The entries of a folder except `.` and `..`, sorted by name.
    static func list(_ path: String) throws(StoreError) -> [Entry] {
        var entries: [Entry] = []
        try forEachEntry(path) { entry throws(StoreError) in entries.append(entry) }
        return entries.sorted { $0.name < $1.name }
    }

    /// Calls `body` with each entry of a folder, in the folder's own order (not sorted),
    /// without holding the listing: what a reader of a folder of any size uses to keep its
    /// memory bounded (``list(_:)`` holds and sorts every name).
    static func forEachEntry(_ path: String, _ body: (Entry) throws(StoreError) -> Void) throws(StoreError) {
        listingRecorder?.record(path)
        guard let folder = opendir(path) else { throw failure("opendir", "cannot list folder", path: path) }
        defer { closedir(folder) }
        while let entry = readdir(folder) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
            }
            if name == "." || name == ".." { continue }
            let type = entry.pointee.d_type
            let isFolder: Bool
            if type == UInt8(DT_DIR) { isFolder = true }
            else if type == UInt8(DT_UNKNOWN) { isFolder = Self.isFolder(path + "/" + name) }
            else { isFolder = false }
            try body(Entry(name: name, isFolder: isFolder, inode: UInt64(entry.pointee.d_ino)))
        }
    }

    /// Removes a folder and everything in it (symbolic links are removed, not followed).
    static func removeTree(_ path: String) throws(StoreError) {
        var info = stat()
        if lstat(path, &info) != 0 {
            if errno == ENOENT { return }
            throw failure("lstat", "cannot examine", path: path)
        }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            for entry in try list(path) { try removeTree(path + "/" + entry.name) }
            if rmdir(path) != 0 && errno != ENOENT { throw failure("rmdir", "cannot remove folder", path: path) }
        } else {
            try remove(path)
        }
    }

    /// Opens (creating) a lock file and takes an exclusive `flock` on it, waiting as long as
    /// another process holds it. Returns the descriptor; closing it releases the lock.
    static func lockExclusively(_ path: String) throws(StoreError) -> Int32 {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw failure("open", "cannot open the lock file", path: path) }
        while flock(descriptor, LOCK_EX) != 0 {
            if errno == EINTR { continue }
            let code = errno
            close(descriptor)
            throw failure("flock", "cannot lock the store", path: path, code: code)
        }
        return descriptor
    }

    /// Like ``lockExclusively(_:)`` but does not wait: nil when another process holds the lock.
    static func tryLockExclusively(_ path: String) throws(StoreError) -> Int32? {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw failure("open", "cannot open the lock file", path: path) }
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            if errno == EINTR { continue }
            let code = errno
            close(descriptor)
            if code == EWOULDBLOCK { return nil }
            throw failure("flock", "cannot lock the store", path: path, code: code)
        }
        return descriptor
    }

    static func unlock(_ descriptor: Int32) {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    /// A random 64-bit number from the kernel, for batch names.
    static func randomNumber() -> UInt64 {
        var generator = SystemRandomNumberGenerator()
        return generator.next()
    }
}

// MARK: Replacing a metadata file

extension StoreSystem {
    /// Replaces the file at `path` with `bytes`, atomically: a temporary beside it in
    /// `folder` (named with ``FolderStore/temporaryPrefix``, so recovery removes one a crash
    /// left), flushed, renamed over the file, and the folder flushed. A reader sees the old
    /// file or the new one, never half of one.
    static func replaceFile(_ bytes: [UInt8], at path: String, in folder: String, mode: mode_t) throws(StoreError) {
        let name = path.split(separator: "/").last.map(String.init) ?? "file"
        let temporary = folder + "/" + FolderStore.temporaryPrefix + String(randomNumber(), radix: 16) + "-" + name
        do {
            try writeNewFile(bytes, to: temporary, mode: mode)
            try rename(temporary, path)
            try synchronize(folder: folder)
        } catch {
            try? remove(temporary)
            throw error
        }
    }
}

// MARK: Paths as the kernel resolves them

extension StoreSystem {
    /// The canonical absolute path of an existing file or folder: symbolic links, `.` and
    /// `..` resolved by the kernel (`realpath(3)`), or nil when it does not exist.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The device and inode of a file or folder, following symbolic links; nil when it
    /// cannot be reached.
    static func deviceAndInode(_ path: String) -> DeviceAndInode? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return DeviceAndInode(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// What a symbolic link points to, as written in the link (`readlink(2)`).
    static func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether a path is a symbolic link itself (not followed).
    static func isSymbolicLink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK
    }
}

/// A file's place on disk as the kernel names it: equal for two paths that reach the same
/// file, whatever links or spellings lead there.
package struct DeviceAndInode: Sendable, Hashable {
    package var device: UInt64
    package var inode: UInt64
}
