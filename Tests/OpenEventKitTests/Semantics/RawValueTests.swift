import Testing
import OpenEventKit

/// Apple's raw values (EVENTKIT-API.md §2), through the public API only.
@Suite struct RawValueTests {
    @Test func authorizationStatus() {
        #expect([EKAuthorizationStatus.notDetermined, .restricted, .denied, .fullAccess, .writeOnly].map(\.rawValue) == [0, 1, 2, 3, 4])
    }

    @Test func entityTypesAndMasks() {
        #expect(EKEntityType.event.rawValue == 0 && EKEntityType.reminder.rawValue == 1)
        #expect(EKEntityMask.event.rawValue == 1 && EKEntityMask.reminder.rawValue == 2)
        #expect(EKSpan.thisEvent.rawValue == 0 && EKSpan.futureEvents.rawValue == 1)
    }

    @Test func eventEnumerations() {
        #expect([EKEventAvailability.notSupported, .busy, .free, .tentative, .unavailable].map(\.rawValue) == [-1, 0, 1, 2, 3])
        #expect([EKEventStatus.none, .confirmed, .tentative, .canceled].map(\.rawValue) == [0, 1, 2, 3])
        #expect([EKSourceType.local, .exchange, .calDAV, .mobileMe, .subscribed, .birthdays].map(\.rawValue) == [0, 1, 2, 3, 4, 5])
        #expect([EKCalendarType.local, .calDAV, .exchange, .subscription, .birthday].map(\.rawValue) == [0, 1, 2, 3, 4])
        #expect(EKCalendarEventAvailabilityMask([.busy, .free, .tentative, .unavailable]).rawValue == 15)
    }

    @Test func participantsAndRecurrence() {
        #expect([EKParticipantRole.unknown, .required, .optional, .chair, .nonParticipant].map(\.rawValue) == [0, 1, 2, 3, 4])
        #expect([EKParticipantStatus.unknown, .pending, .accepted, .declined, .tentative, .delegated, .completed, .inProcess].map(\.rawValue) == Array(0...7))
        #expect([EKParticipantType.unknown, .person, .room, .resource, .group].map(\.rawValue) == [0, 1, 2, 3, 4])
        #expect(EKParticipantScheduleStatus.recipientNotAllowed.rawValue == 8)
        #expect([EKRecurrenceFrequency.daily, .weekly, .monthly, .yearly].map(\.rawValue) == [0, 1, 2, 3])
        #expect(EKWeekday.sunday.rawValue == 1 && EKWeekday.saturday.rawValue == 7)
        #expect([EKAlarmProximity.none, .enter, .leave].map(\.rawValue) == [0, 1, 2])
        #expect([EKAlarmType.display, .audio, .procedure, .email].map(\.rawValue) == [0, 1, 2, 3])
        #expect([EKReminderPriority.none, .high, .medium, .low].map(\.rawValue) == [0, 1, 5, 9])
    }

    @Test func errorCodesAndMatching() {
        #expect(EKError.Code.eventNotMutable.rawValue == 0)
        #expect(EKError.Code.eventStoreNotAuthorized.rawValue == 29)
        #expect(EKError.Code.reminderAlarmContainsEmailOrUrl.rawValue == 36)
        #expect(EKError.Code.last.rawValue == 37)
        #expect(EKErrorDomain == "EKErrorDomain")
        do {
            throw EKError(.eventStoreNotAuthorized, "no access to events")
        } catch EKError.eventStoreNotAuthorized {
            // matched by code, as with EventKit
        } catch {
            Issue.record("did not match by code: \(error)")
        }
        #expect(EKError(.noCalendar, "the event has no calendar", path: "/s/a.ics").description
                == "EKErrorDomain 1 (noCalendar): the event has no calendar [/s/a.ics]")
    }
}
