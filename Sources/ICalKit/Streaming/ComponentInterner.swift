/// Keeps one copy of each distinct component, so that what a streamed read keeps of every
/// VCALENDAR (its VTIMEZONEs) takes the room of the distinct ones only: a file made of many
/// VCALENDARs joined together repeats the same VTIMEZONEs in each.
///
/// Components are told apart by the hash of their iCalendar text (``StableHash``, 128 bits),
/// so two copies on different lines are one; the copy kept is the first, with its line.
package struct ComponentInterner {
    private var known: [StableHash: Component] = [:]
    /// The bytes of the distinct components kept, as their callers counted them.
    package private(set) var bytes = 0
    /// The bytes the distinct components may take.
    package let budget: Int

    /// An interner whose distinct components may take `budget` bytes.
    package init(budget: Int) {
        self.budget = budget
    }

    /// The copy kept of `component`, which takes `size` bytes (its text's length): the
    /// first one like it, or `component` itself when it is new.
    ///
    /// - Throws: ``ICalError/Code-swift.struct/limitExceeded`` when a new component would
    ///   take the distinct ones past the budget (`what` names them in the message).
    package mutating func intern(_ component: Component, size: Int, what: String, file: String?) throws(ICalError) -> Component {
        let hash = StableHash(ICalWriter().bytes(component))
        if let kept = known[hash] { return kept }
        bytes += size
        guard bytes <= budget else {
            throw ICalError(.limitExceeded, "\(what) take more than \(budget) bytes, a quarter of --memory; give more memory", file: file)
        }
        known[hash] = component
        return component
    }
}
