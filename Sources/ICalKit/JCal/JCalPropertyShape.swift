/// How one property looks in jCal, before it is spelled as JSON: its parameters merged
/// by name and decoded, its type, and its values. Shared by ``JCalWriter`` and
/// ``Component/normalizedForInterchange()`` so both apply the same rules.
struct JCalPropertyShape {
    /// A parameter name as first written, with the decoded values of every parameter of
    /// that name, in order.
    struct Group {
        var name: String
        var values: [String]
    }

    var parameters: [Group]
    var type: JCalValueType
    var values: [JCalJSON]
    /// Whether the value followed its type, so the `VALUE` parameter was dropped. When
    /// false the type is "unknown", the value is the text as written, and `VALUE` stays.
    var isTyped: Bool

    init(_ property: Property) {
        let declared = JCalValueType.type(of: property)
        // An explicit VALUE=UNKNOWN on a property with a registered type is information the
        // jCal type alone cannot carry ("unknown" reads back as the default), so it stays.
        let keepsUnknown = declared == .unknown && JCalValueType.defaultType(for: property.kind) != .unknown
        if !keepsUnknown,
           let typed = JCalValueCoding.values(property.rawValue, type: declared, property: property.kind) {
            type = declared
            values = typed
            isTyped = true
        } else {
            type = .unknown
            values = [.string(property.rawValue)]
            isTyped = false
        }
        var groups: [Group] = []
        for parameter in property.parameters {
            if isTyped && parameter.matches(.valueType) { continue }
            if let index = groups.firstIndex(where: { ASCII.equalsIgnoringCase($0.name, parameter.name) }) {
                groups[index].values += parameter.values
            } else {
                groups.append(Group(name: parameter.name, values: parameter.values))
            }
        }
        parameters = groups
    }
}
