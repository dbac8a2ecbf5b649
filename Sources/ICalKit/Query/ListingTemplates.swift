/// What the listings of one component's occurrences share, made once: a streamed query
/// (``OccurrenceFormatter/ListingWriter``) writes hundreds of thousands of occurrences of a
/// few thousand components, and building each listing's UID, summary, location, status,
/// component name, source, zone name and conference links again (unescaping the text,
/// looking up properties) was most of the cost of writing it.
///
/// A template is the packed listing ``OccurrenceListing/init(_:)`` made of the component's
/// first match, kept in memory of its own; a later match of the same component, source and
/// zones copies it and sets only its own times, offsets and RECURRENCE-ID, so its bytes are
/// those of ``OccurrenceListing/init(_:)`` by construction.
struct ListingTemplates {
    final class Template {
        /// The component, held so that the address of its properties (the key) is not reused
        /// while the template lives.
        let component: Component
        let uid: String
        let source: String?
        let startZone: String?
        let endZone: String?
        /// Whether the end is read in the start's zone (they share a TZID, or neither has one).
        let endsInStartZone: Bool
        /// The end's TZID from tzdata (``OccurrenceListing``'s rule when the zones differ, or
        /// the start's did not resolve).
        let standardEndZone: (any TimeZoneRules)?
        /// The listing: constant fields point into `storage`; the others are set per match.
        let listing: PackedListing
        private let storage: UnsafeMutableRawBufferPointer
        /// The listing's constant JSON, made when its first match is written as JSON.
        var json: OccurrenceFormatter.JSONParts?

        init(_ match: OccurrenceQuery.Match) {
            let occurrence = match.occurrence
            component = occurrence.component
            uid = occurrence.uid
            source = match.source
            startZone = occurrence.start.timeZoneIdentifier
            endZone = occurrence.end.timeZoneIdentifier
            endsInStartZone = OccurrenceListing.endsInStartZone(occurrence)
            standardEndZone = OccurrenceListing.standardEndZone(occurrence)
            let packed = PackedListings([OccurrenceListing(match)])
            let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(packed.bytes.count, 1), alignment: 8)
            packed.bytes.withUnsafeBytes { storage.copyMemory(from: $0) }
            self.storage = storage
            // The record was just packed whole.
            listing = PackedListing(UnsafeRawBufferPointer(storage), at: 0)!
        }

        deinit { storage.deallocate() }

        /// Whether a match's listing shares this template's constant fields.
        func fits(_ match: OccurrenceQuery.Match) -> Bool {
            let occurrence = match.occurrence
            return occurrence.component.name == component.name && occurrence.uid == uid && match.source == source
                && occurrence.start.timeZoneIdentifier == startZone && occurrence.end.timeZoneIdentifier == endZone
        }
    }

    private var templates = ComponentTemplates<Template>()

    /// The template for a match's component, made when there is none yet (or the one found
    /// was made for another UID, source or zones).
    mutating func template(for match: OccurrenceQuery.Match) -> Template {
        templates.template(for: match.occurrence.component, fitting: { $0.fits(match) }, make: { Template(match) })
    }
}

/// Templates made once per component (``ListingTemplates``, ``ItemTemplates``), found again by
/// the address of the component's property storage.
///
/// A template must hold its component: then no other array can take that address while the
/// template lives, and the same storage means the same properties (an array is copied before
/// it changes). `fitting` checks what the address does not tell (name, UID, source, zones).
/// A component whose properties have no storage address gets a new template each time.
struct ComponentTemplates<Template: AnyObject> {
    /// The most templates kept; past it, the cache starts again (a template is only a
    /// shortcut).
    static var capacity: Int { 65_536 }

    private var templates: [UnsafeRawPointer: Template] = [:]

    mutating func template(for component: Component, fitting fits: (Template) -> Bool,
                           make: () -> Template) -> Template {
        let key = component.properties.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
        guard let key else { return make() }
        if let template = templates[key], fits(template) { return template }
        if templates.count >= Self.capacity { templates.removeAll() }
        let template = make()
        templates[key] = template
        return template
    }
}
