import ICalKit
import Testing

/// Readers share no state: reading many calendars at once, while other tasks go through
/// the libical lock, gives exactly the serial results.
@Suite struct ConcurrentReadingTests {
    @Test(.timeLimit(.minutes(1)))
    func concurrentReadsMatchSerialReads() async throws {
        let inputs: [(String, [UInt8])] =
            try Fixtures.valid.map { ($0, try Fixtures.bytes("valid", $0)) }
            + Fixtures.malformed.map { ($0, try Fixtures.bytes("malformed", $0)) }
        #expect(inputs.count >= 60)

        let serial = try inputs.map { name, bytes in try ICalReader().read(bytes, file: name) }
        let serialWritten = serial.map { ICalWriter().bytes($0.calendars) }
        let zones = LibicalInfo.builtinZoneCount

        let rounds = 4
        let tasks = 16
        let results = try await withThrowingTaskGroup(of: [(Int, ReadResult, [UInt8], Int)].self) { group in
            for task in 0..<tasks {
                group.addTask {
                    var mine: [(Int, ReadResult, [UInt8], Int)] = []
                    // Each task takes a different slice, in a different order, several times.
                    for round in 0..<rounds {
                        for step in 0..<inputs.count where (step + task + round) % 3 == 0 {
                            let index = (step * 7 + task) % inputs.count
                            let result = try ICalReader().read(inputs[index].1, file: inputs[index].0)
                            let written = ICalWriter().bytes(result.calendars)
                            mine.append((index, result, written, LibicalInfo.builtinZoneCount))
                        }
                    }
                    return mine
                }
            }
            var all: [(Int, ReadResult, [UInt8], Int)] = []
            for try await part in group { all += part }
            return all
        }

        #expect(results.count > inputs.count * rounds)
        #expect(Set(results.map(\.0)).count == inputs.count, "every input was read concurrently")
        for (index, result, written, zoneCount) in results {
            #expect(result == serial[index], "\(inputs[index].0)")
            #expect(result.diagnostics == serial[index].diagnostics, "\(inputs[index].0)")
            #expect(written == serialWritten[index], "\(inputs[index].0)")
            #expect(zoneCount == zones)
        }
    }
}
