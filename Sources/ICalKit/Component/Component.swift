/// An iCalendar component (`VCALENDAR`, `VEVENT`, `VALARM`, `X-FOO`): its properties and
/// its subcomponents, in the order they were read.
///
/// A `Component` is a plain value: copying it copies the tree, and it is `Sendable`.
/// Nothing is dropped: unknown IANA and X- components, properties and parameters are
/// kept with their exact text, so ``ICalWriter`` writes back what ``ICalReader`` read.
/// Within a component, properties are written before subcomponents, the order RFC 5545
/// §3.6 gives; ``line`` records where it was read and takes no part in equality.
///
/// ```swift
/// var event = Component(kind: .event)
/// event[.uniqueIdentifier] = "lesson-1@example.com"
/// event[text: .summary] = "Piano; grade 3"
/// ```
public struct Component: Sendable, Hashable, Codable {
    /// The component name as written. Compare with ``matches(_:)``.
    public var name: String
    /// The properties, in the order they were read or added.
    public var properties: [Property]
    /// The subcomponents, in the order they were read or added.
    public var components: [Component]
    /// The 1-based line of the component's BEGIN, when it was read from a source.
    public var line: Int?

    /// Creates a component with a name as written and optional contents.
    public init(name: String, properties: [Property] = [], components: [Component] = [], line: Int? = nil) {
        self.name = name
        self.properties = properties
        self.components = components
        self.line = line
    }

    /// Creates a component of a kind with optional contents.
    public init(kind: ComponentKind, properties: [Property] = [], components: [Component] = []) {
        self.init(name: kind.rawValue, properties: properties, components: components)
    }

    /// The kind of this component (case-insensitive name).
    public var kind: ComponentKind { ComponentKind(rawValue: name) }

    /// Whether this component has the given name, ignoring case.
    public func matches(_ kind: ComponentKind) -> Bool {
        ASCII.equalsIgnoringCase(name, kind.rawValue)
    }

    // MARK: Properties

    /// The first property of a kind.
    public func property(_ kind: PropertyKind) -> Property? {
        properties.first { $0.matches(kind) }
    }

    /// Every property of a kind, in order.
    public func properties(_ kind: PropertyKind) -> [Property] {
        properties.filter { $0.matches(kind) }
    }

    /// The raw value of the first property of a kind. Setting replaces that property's
    /// value in place (its parameters and position are kept), appends a new property when
    /// there is none, or removes every property of the kind when set to nil.
    public subscript(kind: PropertyKind) -> String? {
        get { property(kind)?.rawValue }
        set {
            guard let newValue else { removeProperties(kind); return }
            if let index = properties.firstIndex(where: { $0.matches(kind) }) {
                properties[index].rawValue = newValue
            } else {
                properties.append(Property(kind, rawValue: newValue))
            }
        }
    }

    /// The first property of a kind read as TEXT (escapes decoded); the setter escapes.
    public subscript(text kind: PropertyKind) -> String? {
        get { property(kind)?.textValue }
        set { self[kind] = newValue.map(TextCoding.escape) }
    }

    /// Replaces the first property of the same name in place, or appends it.
    public mutating func setProperty(_ property: Property) {
        if let index = properties.firstIndex(where: { $0.matches(property.kind) }) {
            properties[index] = property
        } else {
            properties.append(property)
        }
    }

    /// Appends a property after the existing ones.
    public mutating func addProperty(_ property: Property) {
        properties.append(property)
    }

    /// Removes every property of a kind.
    public mutating func removeProperties(_ kind: PropertyKind) {
        properties.removeAll { $0.matches(kind) }
    }

    // MARK: Subcomponents

    /// The subcomponents of a kind, in order.
    public func components(_ kind: ComponentKind) -> [Component] {
        components.filter { $0.matches(kind) }
    }

    /// Appends a subcomponent.
    public mutating func addComponent(_ component: Component) {
        components.append(component)
    }

    /// Removes every subcomponent of a kind.
    public mutating func removeComponents(_ kind: ComponentKind) {
        components.removeAll { $0.matches(kind) }
    }

    // MARK: Equality

    public static func == (lhs: Component, rhs: Component) -> Bool {
        lhs.name == rhs.name && lhs.properties == rhs.properties && lhs.components == rhs.components
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(properties)
        hasher.combine(components)
    }

    private enum CodingKeys: String, CodingKey { case name, properties, components }
}
