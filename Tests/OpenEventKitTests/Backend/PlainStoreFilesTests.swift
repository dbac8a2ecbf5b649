import Foundation
import Testing
@testable import OpenEventKit

/// The store's own small files read without `JSONDecoder`, trimming without NSString and
/// store paths without a URL: each gives what the Foundation way gives, or leaves the input
/// to it.
@Suite struct PlainStoreFilesTests {
    /// Forms store.json may take: the first ones are read without `JSONDecoder`.
    static let metadataTexts = [
        #"{"formatVersion":1}"#,
        """
        {
          "defaultEventCalendar" : "calendar",
          "defaultReminderList" : "reminders",
          "entityTypes" : {
            "calendar" : [
              "event"
            ],
            "reminders" : [
              "reminder"
            ]
          },
          "formatVersion" : 1
        }
        """,
        #"{ "formatVersion" : 0, "entityTypes" : { }, "defaultEventCalendar" : "" }"#,
        "{\t\"formatVersion\"\r\n:\n12,\"entityTypes\":{\"a\":[],\"b\":[\"event\",\"reminder\",\"event\"]}}\n",
        #"{"defaultEventCalendar":"Kalender-ü","formatVersion":1}"#,
        // Left to JSONDecoder: it reads some and rejects others, with its own errors.
        #"{"formatVersion":1,"extra":true}"#,
        #"{"formatVersion":1,"defaultEventCalendar":null}"#,
        #"{"formatVersion":1,"defaultEventCalendar":"a\"b"}"#,
        #"{"formatVersion":1,"defaultEventCalendar":"\u0041"}"#,
        #"{"formatVersion":1.0}"#,
        #"{"formatVersion":1e0}"#,
        #"{"formatVersion":01}"#,
        #"{"formatVersion":-1}"#,
        #"{"formatVersion":"1"}"#,
        #"{"formatVersion":1,"formatVersion":2}"#,
        #"{"formatVersion":1,"entityTypes":{"a":["todo"]}}"#,
        #"{"formatVersion":1,"entityTypes":{"a":["event"],"a":["reminder"]}}"#,
        #"{"formatVersion":1,}"#,
        #"{"formatVersion":1} x"#,
        #"{"defaultEventCalendar":"calendar"}"#,
        "\u{FEFF}{\"formatVersion\":1}",
        "[]",
        "",
    ]

    @Test func storeMetadataReadsAsJSONDecoderReadsIt() {
        var plain = 0
        for text in Self.metadataTexts {
            let bytes = Array(text.utf8)
            let decoded = try? JSONDecoder().decode(StoreMetadata.self, from: Data(bytes))
            if let read = StoreMetadata(plainJSON: bytes) {
                plain += 1
                #expect(read == decoded, "\(text)")
            }
        }
        #expect(plain == 5)
        // Not UTF-8: JSONDecoder's error.
        let invalid = Array(#"{"formatVersion":1,"defaultEventCalendar":""#.utf8) + [0xFF] + Array(#""}"#.utf8)
        #expect(StoreMetadata(plainJSON: invalid) == nil)
    }

    static let authorizationTexts = [
        """
        {
          "apps" : {
            "org.openeventkit.ical" : {
              "events" : {
                "by" : "settings",
                "decided" : "2026-11-26T03:51:17Z",
                "status" : "fullAccess"
              },
              "reminders" : {
                "by" : "prompt",
                "decided" : "2026-11-26T03:51:17Z",
                "status" : "denied"
              }
            },
            "org.example.lessons" : {
              "events" : {
                "by" : "upgradePrompt",
                "decided" : "2024-02-29T23:59:59Z",
                "status" : "writeOnly",
                "upgradeDeclined" : true
              }
            },
            "org.example.none" : {
            }
          },
          "formatVersion" : 1
        }
        """,
        #"{"apps":{},"formatVersion":2}"#,
        #"{"formatVersion":1,"apps":{"a":{"events":{"status":"denied","by":"prompt","decided":"2026-01-01T00:00:00Z","upgradeDeclined":false}}}}"#,
        #"{"formatVersion":1,"apps":{"":{"reminders":{"status":"writeOnly","by":"settings","decided":"2026-01-01T00:00:00Z"}}}}"#,
        // Left to JSONDecoder.
        #"{"apps":{}}"#,
        #"{"formatVersion":1}"#,
        #"{"formatVersion":1,"apps":{"a":{"events":{"status":"maybe","by":"prompt","decided":"2026-01-01T00:00:00Z"}}}}"#,
        #"{"formatVersion":1,"apps":{"a":{"events":{"status":"denied","by":"someone","decided":"2026-01-01T00:00:00Z"}}}}"#,
        #"{"formatVersion":1,"apps":{"a":{"events":{"status":"denied","by":"prompt","decided":"2026-01-01T00:00:00+01:00"}}}}"#,
        #"{"formatVersion":1,"apps":{"a":{"events":{"status":"denied","by":"prompt"}}}}"#,
        #"{"formatVersion":1,"apps":{"a":{"events":{"status":"denied","by":"prompt","decided":"2026-01-01T00:00:00Z","upgradeDeclined":1}}}}"#,
        #"{"formatVersion":1,"apps":{"a":{"events":null}}}"#,
        #"{"formatVersion":1,"apps":{"a":{"calendars":{}}}}"#,
        #"{"formatVersion":1,"apps":{"a":{},"a":{}}}"#,
    ]

    @Test func authorizationsReadAsJSONDecoderReadsThem() {
        var plain = 0
        for text in Self.authorizationTexts {
            let bytes = Array(text.utf8)
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            let decoded = try? decoder.decode(AuthorizationRecords.self, from: Data(bytes))
            if let read = AuthorizationRecords(plainJSON: bytes) {
                plain += 1
                #expect(read == decoded, "\(text)")
            }
        }
        #expect(plain == 4)
    }

    @Test func trimmingIsFoundations() {
        let pieces = ["", " ", "\t", "\n", "\r\n", "\u{0B}", "\u{0C}", "\u{85}", "\u{A0}", "\u{2028}", "\u{200B}", "\u{1F}",
                      "\u{7F}", "a", "~", "é", "e\u{301}", "\u{301}", "日本", "x y"]
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    for end in pieces.prefix(6) {
                        let text = end + a + b + c + end
                        let trimmed = text.trimmingWhitespaceAndNewlines()
                        #expect(Array(trimmed.utf8) == Array(text.trimmingCharacters(in: .whitespacesAndNewlines).utf8),
                                "\(text.unicodeScalars.map(\.value))")
                    }
                }
            }
        }
    }

    @Test func plainStorePathsAreTheirFileURLsPaths() {
        let components = ["a", "b-c", "_x", ".", "..", "...", ".a", "a.", "", "store1k", "A9", "a b", "%41", "~", "é"]
        var paths = ["/", "//", "/tmp", "/tmp/", "tmp", "./tmp", "/tmp/st16/store1k"]
        for a in components {
            for b in components {
                paths += ["/\(a)/\(b)", "/\(a)/\(b)/", "\(a)/\(b)"]
                for c in components.prefix(6) { paths.append("/\(a)/\(b)/\(c)") }
            }
        }
        var plain = 0
        for path in paths where EKEventStore.isPlainAbsolutePath(path) {
            plain += 1
            #expect(URL(fileURLWithPath: path).path == path, "\(path)")
        }
        #expect(plain > 100)
        for path in ["/", "/a/", "/a//b", "/a/./b", "/a/../b", "/a/.", "/a/..", "a/b", "/a b", "/a/%41", "/é"] {
            #expect(!EKEventStore.isPlainAbsolutePath(path), "\(path)")
        }
    }
}
