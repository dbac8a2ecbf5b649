import Foundation
import OpenEventKit
import Testing

@Suite struct EKRecurrenceEndTests {
    @Test func dateBasedEnd() {
        let date = utcDate(2024, 12, 31, 23, 59, 59)
        let end = EKRecurrenceEnd(end: date)
        #expect(end.endDate == date)
        #expect(end.occurrenceCount == 0)
    }

    @Test(arguments: [1, 10, 1000])
    func countBasedEnd(_ count: Int) {
        let end = EKRecurrenceEnd(occurrenceCount: count)
        #expect(end.endDate == nil)
        #expect(end.occurrenceCount == count)
    }

    @Test func equalityHashAndCopy() throws {
        let date = utcDate(2025, 1, 1)
        let a = EKRecurrenceEnd(end: date)
        let b = EKRecurrenceEnd(end: date)
        #expect(a == b && a.hash == b.hash)
        #expect(a != EKRecurrenceEnd(end: utcDate(2025, 1, 2)))
        #expect(EKRecurrenceEnd(occurrenceCount: 3) == EKRecurrenceEnd(occurrenceCount: 3))
        #expect(EKRecurrenceEnd(occurrenceCount: 3) != EKRecurrenceEnd(occurrenceCount: 4))
        #expect(a != EKRecurrenceEnd(occurrenceCount: 3))
        let copy = try #require(a.copy() as? EKRecurrenceEnd)
        #expect(copy !== a && copy == a)
    }

    @Test func description() {
        #expect(EKRecurrenceEnd(occurrenceCount: 10).description == "EKRecurrenceEnd {occurrenceCount = 10}")
        #expect(EKRecurrenceEnd(end: utcDate(2024, 12, 31)).description.hasPrefix("EKRecurrenceEnd {endDate = 2024-12-31"))
    }
}
