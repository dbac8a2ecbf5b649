// LessonRooms' executable: the Linux stand-in for the app extension Calendar would load.
// Register it with `ical extensions add samples/LessonRooms/Info.plist --executable
// .build/debug/LessonRooms`; the event editor (`ical ui edit-event`) then runs it, in a
// process of its own with no calendar access, when the user sets a lesson's location.
import OpenEventKit

await VirtualConferenceExtension.main(LessonRoomsProvider())
