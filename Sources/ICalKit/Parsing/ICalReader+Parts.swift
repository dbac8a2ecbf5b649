import Synchronization

// A large input is read in parts on every core (a few parts per core, each taken by the next
// thread free): each part starts at a line `BEGIN:VEVENT`
// (which can only stand inside a VCALENDAR), and the parts' trees are joined into the tree a
// read from start to end gives, with the same diagnostics. Where the join could differ from
// that read (the input is not one well-formed VCALENDAR around the split points, a limit is
// reached, or strict mode stops at an error) the input is read again from start to end, so
// the result never depends on how it was cut.

extension ICalReader {
    /// The smallest part an input is cut into (2 MiB): an input of two or more is read in
    /// parts. A task-local value, so that a test can cut small inputs
    /// (`ICalReader.$partMinimum.withValue(1) { … }`).
    @TaskLocal static var partMinimum = 2 << 20

    /// How many parts each thread has, so that a thread that finishes its part early takes
    /// another rather than waits (one thread's memory comes slower than another's, and the
    /// lines before a part are counted first).
    static let partsPerThread = 4

    /// The number of parts to cut an input of at least two ``partMinimum``s into, whatever
    /// the cores (nil: ``partsPerThread`` per core, on at most ``Threads/maxParts`` cores).
    /// Task-local, for tests.
    @TaskLocal static var partCount: Int?

    /// Reads `buffer` in parts on several threads, or nil when it is too small, there is one
    /// core, no split point is found, or the parts cannot be joined into what a read from
    /// start to end gives.
    func readInParts(_ buffer: UnsafeBufferPointer<UInt8>, file: String?) -> ReadResult? {
        let minimum = max(Self.partMinimum, 1)
        let count = buffer.count
        guard count <= limits.maxInputSize, count >= 2 * minimum else { return nil }
        let threads = Threads.parts(of: Threads.maxParts, minimum: 1)
        let wanted = Self.partCount ?? (threads > 1 ? min(threads * Self.partsPerThread, count / minimum) : 1)
        guard wanted > 1 else { return nil }
        var starts = [0]
        for index in 1..<wanted {
            let from = max(count / wanted * index, starts[starts.count - 1] + minimum)
            guard from < count, let split = Self.splitPoint(in: buffer, from: from), count - split >= minimum / 2
            else { break }
            starts.append(split)
        }
        guard starts.count > 1 else { return nil }
        starts.append(count)
        let parts = starts.count - 1
        let workers = min(threads, parts)

        // Each part's first line: the line ends of the parts before it, counted on every thread.
        let lineEnds = UnsafeMutableBufferPointer<Int>.allocate(capacity: parts)
        lineEnds.initialize(repeating: 0)
        defer { lineEnds.deallocate() }
        Threads.run(workers) { worker in
            for part in stride(from: worker, to: parts - 1, by: workers) {
                lineEnds[part] = Self.lineEnds(in: UnsafeBufferPointer(rebasing: buffer[starts[part]..<starts[part + 1]]),
                                               next: buffer[starts[part + 1]])
            }
        }
        var firstLines = [1]
        for part in 0..<(parts - 1) { firstLines.append(firstLines[part] + lineEnds[part]) }

        // The parts, each taken by the next thread free.
        let slots = UnsafeMutableBufferPointer<Parser?>.allocate(capacity: parts)
        slots.initialize(repeating: nil)
        defer { slots.deallocate() }   // its parsers are moved out below
        let taken = Mutex(0)
        Threads.run(workers) { _ in
            while true {
                let part = taken.withLock { next in
                    defer { next += 1 }
                    return next
                }
                guard part < parts else { return }
                let range = starts[part]..<starts[part + 1]
                var parser = part == 0 ? Parser(reader: self, file: file)
                    : Parser(reader: self, file: file, continuingCalendarAt: range.lowerBound, line: firstLines[part])
                do throws(ICalError) {
                    try parser.feed(UnsafeBufferPointer(rebasing: buffer[range]), isLast: part == parts - 1)
                    slots[part] = parser
                } catch {
                    slots[part] = nil   // strict mode's first error: the read from start to end throws it
                }
            }
        }
        var parsers: [Parser?] = []
        parsers.reserveCapacity(parts)
        for part in 0..<parts { parsers.append(slots.moveElement(from: part)) }
        return Self.join(&parsers, limits: limits)
    }

    /// The parts' trees and diagnostics as one read's, or nil when they may differ from it.
    /// The parsers are emptied: their trees move into the result.
    private static func join(_ parts: inout [Parser?], limits: Limits) -> ReadResult? {
        var calendars: [Component] = []
        var diagnostics: [Diagnostic] = []
        var open: Component?
        var components = 0
        for index in parts.indices {
            // Read in place: a copy of the parser would share its trees, which would then be
            // copied when they grow.
            guard parts[index] != nil, !parts[index]!.stopped, !parts[index]!.continuationBroken else { return nil }
            diagnostics += parts[index]!.diagnostics
            components += parts[index]!.componentCount
            var closed = parts[index]!.takeCalendars()
            var stillOpen: Component?
            if index < parts.count - 1 {
                guard let calendar = parts[index]!.takeOpenCalendar() else { return nil }
                stillOpen = calendar
            }
            if var merged = open.take() {
                // This part's first VCALENDAR is the one the part before it left open.
                let continued = closed.isEmpty ? stillOpen.take()! : closed[0]
                merged.properties += continued.properties
                merged.components += continued.components
                guard merged.properties.count < limits.maxPropertiesPerComponent else { return nil }
                if closed.isEmpty { stillOpen = merged } else { closed[0] = merged }
            }
            calendars += closed
            open = stillOpen
        }
        guard diagnostics.count < limits.maxDiagnostics, components <= limits.maxComponents else { return nil }
        return ReadResult(calendars: calendars, diagnostics: diagnostics)
    }

    /// The first offset at or after `from` where a line `BEGIN:VEVENT` starts (after an LF),
    /// or nil.
    static func splitPoint(in buffer: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
        // The few bytes from a part's planned start to the next event are read one by one.
        let marker = Array("BEGIN:VEVENT".utf8)
        var position = from
        while let lineFeed = buffer[position...].firstIndex(of: ASCII.lf) {
            let start = lineFeed + 1
            if start + marker.count < buffer.count,
               buffer[start..<(start + marker.count)].elementsEqual(marker),
               buffer[start + marker.count] == ASCII.cr || buffer[start + marker.count] == ASCII.lf {
                return start
            }
            position = start
        }
        return nil
    }

    /// How many lines `bytes` ends, as the reader counts them: an LF, a CR or a CRLF ends
    /// one. `next` is the byte after `bytes` (a CR at the end is a line end of its own unless
    /// it is an LF).
    static func lineEnds(in bytes: UnsafeBufferPointer<UInt8>, next: UInt8) -> Int {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return 0 }
        let count = bytes.count
        // Bytes equal to `byte` in `word`, as their high bits (exact, unlike a test for any).
        @inline(__always) func matches(_ word: UInt64, _ byte: UInt8) -> UInt64 {
            let x = word ^ (0x0101_0101_0101_0101 &* UInt64(byte))
            return ~(((x & 0x7F7F_7F7F_7F7F_7F7F) &+ 0x7F7F_7F7F_7F7F_7F7F) | x) & 0x8080_8080_8080_8080
        }
        // LFs, plus CRs, less the CRs an LF follows. A word is compared with the word one
        // byte on for the last, so the loop stops a byte early.
        var lineFeeds = 0, returns = 0, pairs = 0
        var index = 0
        while index + 9 <= count {
            let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
            let returnBits = matches(word, ASCII.cr)
            lineFeeds += matches(word, ASCII.lf).nonzeroBitCount
            if returnBits != 0 {
                returns += returnBits.nonzeroBitCount
                let following = UnsafeRawPointer(base + index + 1).loadUnaligned(as: UInt64.self)
                pairs += (returnBits & matches(following, ASCII.lf)).nonzeroBitCount
            }
            index += 8
        }
        while index < count {
            let byte = bytes[index]
            if byte == ASCII.lf {
                lineFeeds += 1
            } else if byte == ASCII.cr {
                returns += 1
                if (index + 1 < count ? bytes[index + 1] : next) == ASCII.lf { pairs += 1 }
            }
            index += 1
        }
        return lineFeeds + returns - pairs
    }
}
