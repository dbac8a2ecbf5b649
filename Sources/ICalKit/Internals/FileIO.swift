#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#else
#error("Unsupported Platform")
#endif

/// Whole-file reads and atomic writes, with errors that name the path.
package enum FileIO {
    /// The folder temporary files go to: `$TMPDIR`, else /tmp.
    package static var temporaryFolder: String {
        getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    }

    /// A new temporary file in ``temporaryFolder``, already unlinked: it is gone when its
    /// descriptor is closed, whatever happens to the process.
    ///
    /// - Throws: ``ICalError/Code-swift.struct/io`` naming the folder, with the advice to set
    ///   TMPDIR.
    package static func unlinkedTemporaryFile(_ purpose: String) throws(ICalError) -> Int32 {
        let folder = temporaryFolder
        // mkstemp's template: it replaces the six X with a unique name and creates the file.
        var template = Array((folder + "/.ical-\(purpose)-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else {
            throw ICalError(.io, "cannot make a temporary file in \(folder): \(String(cString: strerror(errno))) (set TMPDIR to a folder with room)")
        }
        _ = template.withUnsafeBufferPointer { unlink($0.baseAddress!) }
        return descriptor
    }

    /// Makes standard input a regular file: when it is a pipe, a terminal or a socket, its
    /// bytes are copied (a megabyte at a time) into an unlinked temporary file in `$TMPDIR`
    /// (else /tmp), which then becomes descriptor 0, read from its start. Later reads of `-`,
    /// whole or streamed, read that file. Nothing is done when standard input is a regular
    /// file already. Memory holds one megabyte whatever the input's size; disk holds it all.
    ///
    /// - Throws: ``ICalError/Code-swift.struct/io`` when the temporary file cannot be made
    ///   or written (a full disk), naming the folder.
    package static func spoolStandardInput() throws(ICalError) {
        var info = stat()
        if fstat(0, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG { return }
        let folder = temporaryFolder
        let spool = try unlinkedTemporaryFile("stdin")
        defer { close(spool) }
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 1)
        defer { buffer.deallocate() }
        while true {
            let count = read(0, buffer.baseAddress, chunk)
            if count < 0 {
                if errno == EINTR { continue }
                throw ICalError(.io, "cannot read: \(String(cString: strerror(errno)))", file: "<stdin>")
            }
            if count == 0 { break }
            var written = 0
            while written < count {
                let done = write(spool, buffer.baseAddress! + written, count - written)
                if done < 0 {
                    if errno == EINTR { continue }
                    throw ICalError(.io, "cannot keep standard input in \(folder): \(String(cString: strerror(errno))) (set TMPDIR to a folder with room)", file: "<stdin>")
                }
                written += done
            }
        }
        guard lseek(spool, 0, SEEK_SET) == 0, dup2(spool, 0) == 0 else {
            throw ICalError(.io, "cannot read standard input again: \(String(cString: strerror(errno)))", file: "<stdin>")
        }
    }

    /// Reads a whole file (or standard input for `-`), refusing more than `limit` bytes.
    package static func readAll(path: String, limit: Int) throws(ICalError) -> [UInt8] {
        let descriptor: Int32 = path == "-" ? 0 : open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw ICalError(.io, "cannot open: \(String(cString: strerror(errno)))", file: path)
        }
        defer { if descriptor != 0 { close(descriptor) } }
        var info = stat()
        if fstat(descriptor, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR {
            throw ICalError(.io, "is a folder, not a file", file: path)
        }
        var bytes: [UInt8] = []
        if (info.st_mode & S_IFMT) == S_IFREG && info.st_size > 0 {
            guard Int(info.st_size) <= limit else {
                throw ICalError(.limitExceeded, "file is \(info.st_size) bytes, more than the limit of \(limit)", file: path)
            }
            // Straight into the result, one byte more than the size so that the same call
            // sees the end: no zeroed buffer and no copy (a 64 KiB buffer was 16 fresh pages
            // for a 114-byte zone file).
            let capacity = Int(info.st_size) + 1
            var failure: Int32 = 0
            bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
                while initialized < capacity {
                    let count = read(descriptor, buffer.baseAddress! + initialized, capacity - initialized)
                    if count < 0 {
                        if errno == EINTR { continue }
                        failure = errno
                        return
                    }
                    if count == 0 { return }
                    initialized += count
                }
            }
            if failure != 0 {
                throw ICalError(.io, "cannot read: \(String(cString: strerror(failure)))", file: path)
            }
            if bytes.count < capacity { return bytes }
            // The file grew while it was read: the rest in pieces, as from a pipe.
        }
        let chunk = 1 << 16
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 1)
        defer { buffer.deallocate() }
        while bytes.count <= limit {
            let count = read(descriptor, buffer.baseAddress, chunk)
            if count < 0 {
                if errno == EINTR { continue }
                throw ICalError(.io, "cannot read: \(String(cString: strerror(errno)))", file: path)
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
        throw ICalError(.limitExceeded, "input is more than the limit of \(limit) bytes", file: path)
    }

    /// Writes a file atomically: a temporary file in the same folder, fsync, rename, and
    /// fsync of the folder. `-` writes standard output. Nothing is half-written on failure.
    ///
    /// What is at the path decides how (every `-o` of `ical` comes here):
    /// - a symbolic link: its target is written, atomically in the target's folder (the
    ///   link stays a link; a dangling link creates its target);
    /// - a FIFO, a character or block device or a socket (`/dev/stdout`, `/dev/null`,
    ///   `/dev/full`, a named pipe): the bytes are written into it, never replacing the node;
    /// - a regular file: replaced, keeping its permission bits; nothing: created with `mode`;
    /// - a folder: an error.
    ///
    /// A caller writing many files into one folder passes `synchronizeFolder: false` and
    /// calls ``synchronize(folder:)`` once at the end.
    package static func writeAtomically(_ bytes: [UInt8], to path: String, mode: mode_t = 0o644,
                                        synchronizeFolder: Bool = true) throws(ICalError) {
        try writeAtomically(to: path, mode: mode, synchronizeFolder: synchronizeFolder) { descriptor, reported throws(ICalError) in
            try writeAll(bytes, to: descriptor, path: reported)
        }
    }

    /// ``writeAtomically(_:to:mode:synchronizeFolder:)`` with the content written by
    /// `content` into a descriptor (with the path to name in errors).
    package static func writeAtomically(to path: String, mode: mode_t = 0o644, synchronizeFolder: Bool = true,
                                        content: (Int32, String) throws(ICalError) -> Void) throws(ICalError) {
        if path == "-" {
            try content(1, path)
            return
        }
        let target = try resolvingLinks(path)
        var mode = mode
        var info = stat()
        if stat(target, &info) == 0 {
            switch info.st_mode & S_IFMT {
            case S_IFREG:
                mode = info.st_mode & 0o7777
            case S_IFDIR:
                throw ICalError(.io, "is a folder, not a file", file: path)
            default:
                // FIFO, device or socket: write into it.
                let descriptor = open(target, O_WRONLY | O_CLOEXEC | O_NOCTTY)
                guard descriptor >= 0 else {
                    throw ICalError(.io, "cannot open: \(String(cString: strerror(errno)))", file: path)
                }
                defer { close(descriptor) }
                try content(descriptor, path)
                return
            }
        }
        try replaceAtomically(content, at: target, reportedAs: path, mode: mode, synchronizeFolder: synchronizeFolder)
    }

    /// The path with symbolic links in its last component followed (up to 40 links; a
    /// relative link is read from its own folder), so a write replaces the link's target.
    static func resolvingLinks(_ path: String) throws(ICalError) -> String {
        var current = path
        for _ in 0..<40 {
            var info = stat()
            guard lstat(current, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK else { return current }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlink(current, &buffer, Int(PATH_MAX))
            guard count > 0 else {
                throw ICalError(.io, "cannot read the symbolic link: \(String(cString: strerror(errno)))", file: path)
            }
            let link = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if link.hasPrefix("/") {
                current = link
            } else {
                let folder = current.lastIndex(of: "/").map { String(current[...$0]) } ?? ""
                current = folder + link
            }
        }
        throw ICalError(.io, "too many levels of symbolic links", file: path)
    }

    private static func replaceAtomically(_ content: (Int32, String) throws(ICalError) -> Void, at path: String,
                                          reportedAs reported: String, mode: mode_t,
                                          synchronizeFolder: Bool) throws(ICalError) {
        let reportedPath = reported
        let folder = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        let base = path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
        var template = Array("\(folder.isEmpty ? "/" : folder)/.\(base).tmp-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else {
            throw ICalError(.io, "cannot create a temporary file beside it: \(String(cString: strerror(errno)))", file: reportedPath)
        }
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var succeeded = false
        defer {
            if !succeeded { unlink(temporary) }
        }
        do {
            defer { close(descriptor) }
            try content(descriptor, reportedPath)
            fchmod(descriptor, mode)
            guard fsync(descriptor) == 0 else {
                throw ICalError(.io, "cannot flush to disk: \(String(cString: strerror(errno)))", file: reportedPath)
            }
        }
        guard rename(temporary, path) == 0 else {
            throw ICalError(.io, "cannot replace the file: \(String(cString: strerror(errno)))", file: reportedPath)
        }
        succeeded = true
        if synchronizeFolder { synchronize(folder: folder.isEmpty ? "/" : folder) }
    }

    /// Flushes a folder's entries (renames into it) to disk; failures are ignored, as the
    /// files themselves are already on disk.
    package static func synchronize(folder: String) {
        let folderDescriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folderDescriptor >= 0 {
            fsync(folderDescriptor)
            close(folderDescriptor)
        }
    }

    /// Writes text to standard output straight from the string's storage (a large query's
    /// output is megabytes: no copy), with the same error as a file write.
    package static func writeStandardOutput(_ text: String) throws(ICalError) {
        var text = text
        var failure: ICalError?
        text.withUTF8 { bytes in
            do throws(ICalError) { try writeAll(UnsafeRawBufferPointer(bytes), to: 1, path: "<stdout>") } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Writes bytes to standard output, with the same error as a file write.
    package static func writeStandardOutput(_ bytes: [UInt8]) throws(ICalError) {
        try writeAll(bytes, to: 1, path: "<stdout>")
    }

    /// Writes all of `bytes` to a descriptor (retrying after EINTR); `path` names it in errors.
    package static func writeAll(_ bytes: [UInt8], to descriptor: Int32, path: String) throws(ICalError) {
        var failure: ICalError?
        bytes.withUnsafeBytes { buffer in
            do throws(ICalError) { try writeAll(buffer, to: descriptor, path: path) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// ``writeAll(_:to:path:)-([UInt8],_,_)`` from memory the caller holds.
    package static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32, path: String) throws(ICalError) {
        var offset = 0
        while offset < bytes.count {
            let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw ICalError(.io, "cannot write: \(String(cString: strerror(errno)))", file: path)
            }
            offset += written
        }
    }
}

/// Output written in pieces into a temporary file, then put in place all at once with
/// ``FileIO/writeAtomically(to:mode:synchronizeFolder:content:)``: a streamed conversion
/// holds a megabyte of output, not all of it, and writes nothing when it fails.
package final class SpooledOutput {
    private let descriptor: Int32
    private var pending: [UInt8] = []
    private var written = 0
    private static let flushSize = 1 << 20

    /// Creates the spool: an unlinked temporary file in `$TMPDIR` (else `/tmp`).
    package init() throws(ICalError) {
        let folder = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        // mkstemp's template: it replaces the six X with a unique name and creates the file.
        var template = Array("\(folder)/.ical-spool-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else {
            throw ICalError(.io, "cannot create a temporary file: \(String(cString: strerror(errno)))", file: folder)
        }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Takes the bytes of `output` (leaving it empty), writing them out once a megabyte waits.
    package func take(_ output: inout [UInt8]) throws(ICalError) {
        if pending.isEmpty { swap(&pending, &output) } else { pending.append(contentsOf: output); output.removeAll(keepingCapacity: true) }
        if pending.count >= Self.flushSize { try flush() }
    }

    /// Forgets everything written so far.
    package func reset() throws(ICalError) {
        pending.removeAll(keepingCapacity: true)
        written = 0
        guard ftruncate(descriptor, 0) == 0, lseek(descriptor, 0, SEEK_SET) == 0 else {
            throw ICalError(.io, "cannot empty a temporary file: \(String(cString: strerror(errno)))")
        }
    }

    /// Forgets the bytes taken after the first `count`.
    package func truncate(to count: Int) throws(ICalError) {
        try flush()
        guard count < written else { return }
        guard ftruncate(descriptor, off_t(count)) == 0, lseek(descriptor, off_t(count), SEEK_SET) >= 0 else {
            throw ICalError(.io, "cannot shorten a temporary file: \(String(cString: strerror(errno)))")
        }
        written = count
    }

    /// The bytes taken so far.
    package var count: Int { written + pending.count }

    /// Writes everything to `path` (`-`: standard output), atomically: `opening` first,
    /// then the bytes taken, those before offset `indentedBefore` with two spaces after
    /// each line feed (see ``CalendarStreamWriter/continueAsSeveral()``).
    package func commit(to path: String, opening: [UInt8] = [], indentedBefore: Int = 0) throws(ICalError) {
        try flush()
        let total = written
        let source = descriptor
        try FileIO.writeAtomically(to: path) { target, reported throws(ICalError) in
            var chunk = [UInt8](repeating: 0, count: Self.flushSize)
            var offset = 0
            if !opening.isEmpty { try FileIO.writeAll(opening, to: target, path: reported) }
            while offset < indentedBefore {
                let count = chunk.withUnsafeMutableBytes { pread(source, $0.baseAddress!, min(Self.flushSize, indentedBefore - offset), off_t(offset)) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else {
                    throw ICalError(.io, "cannot read back a temporary file: \(String(cString: strerror(errno)))", file: reported)
                }
                var indented: [UInt8] = []
                indented.reserveCapacity(count + count / 16)
                for byte in chunk[0..<count] {
                    indented.append(byte)
                    if byte == 0x0A { indented.append(contentsOf: [0x20, 0x20]) }
                }
                try FileIO.writeAll(indented, to: target, path: reported)
                offset += count
            }
            while offset < total {
                let count = chunk.withUnsafeMutableBytes { pread(source, $0.baseAddress!, min(Self.flushSize, total - offset), off_t(offset)) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else {
                    throw ICalError(.io, "cannot read back a temporary file: \(String(cString: strerror(errno)))", file: reported)
                }
                try FileIO.writeAll(Array(chunk[0..<count]), to: target, path: reported)
                offset += count
            }
        }
    }

    private func flush() throws(ICalError) {
        guard !pending.isEmpty else { return }
        try FileIO.writeAll(pending, to: descriptor, path: "<temporary file>")
        written += pending.count
        pending.removeAll(keepingCapacity: true)
    }
}
