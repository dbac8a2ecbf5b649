extension Component {
    /// This tree as a round trip through jCal gives it back: the canonical iCalendar
    /// spelling of the same content.
    ///
    /// For every tree `c`, `JCalReader().read(JCalWriter().bytes(c))` equals
    /// `[c.normalizedForInterchange()]`, and a tree that is already canonical (equal to
    /// its normalized form) comes back unchanged. Normalizing is idempotent. The rules,
    /// applied to every component, property and parameter (see ``Property/normalizedForInterchange()``):
    ///
    /// 1. Component, property and parameter names are uppercased.
    /// 2. Parameters with the same name (ignoring case) merge into the first one, their
    ///    values in order (`X-A=1;X-A=2` becomes `X-A=1,2`).
    /// 3. Parameter values are re-encoded from their decoded values: RFC 6868 caret
    ///    escapes (`^n`, `^^`, `^'`) and double quotes only where RFC 5545 §3.2 needs them
    ///    (`CN="Doe, Jane"`, `TZID=Europe/Berlin`).
    /// 4. When the value follows its type's grammar, the `VALUE` parameter is removed and,
    ///    unless the type is the property's default or UNKNOWN, written back first as
    ///    `VALUE=TYPE` in uppercase. The type is the first `VALUE` parameter's; later ones
    ///    are dropped with it. When the value does not follow its type, or the type is an
    ///    explicit `VALUE=UNKNOWN` on a property that has a default type, the value is
    ///    kept as written and so are its `VALUE` parameters (rules 1-3 still apply).
    /// 5. Values that follow their type are spelled canonically: TEXT escaped the way
    ///    ``Property/textValue`` writes it (`\,` `\;` `\\` `\n`; `\N` becomes `\n`, a
    ///    needless `\:` becomes `:`, a bare `,` in SUMMARY becomes `\,`), each element of a
    ///    multi-valued TEXT property and each REQUEST-STATUS part separately; BOOLEAN
    ///    uppercased; RECUR part names uppercased. Every other type (DATE, DATE-TIME, TIME,
    ///    UTC-OFFSET, DURATION, PERIOD, INTEGER, FLOAT, URI, CAL-ADDRESS, BINARY, unknown
    ///    and X- types) is already canonical when it follows its grammar, because jCal
    ///    carries its exact characters.
    ///
    /// ``line`` is not kept (a tree read from jCal has no lines). Trees built through the
    /// API with what no iCalendar file can hold are outside the guarantee, and
    /// ``JCalReader`` rejects their jCal: names other than letters, digits and `-`, a
    /// property named BEGIN or END, non-TEXT values with line breaks or other control
    /// characters.
    ///
    /// See RFC 7265 §3 and ``JCalWriter``.
    public func normalizedForInterchange() -> Component {
        Component(
            name: ASCII.uppercased(name),
            properties: properties.map { $0.normalizedForInterchange() },
            components: components.map { $0.normalizedForInterchange() })
    }
}

extension Property {
    /// This property as a round trip through jCal gives it back. See
    /// ``Component/normalizedForInterchange()`` for the rules.
    public func normalizedForInterchange() -> Property {
        let shape = JCalPropertyShape(self)
        var parameters: [Parameter] = []
        if shape.isTyped && shape.type != .unknown
            && (shape.type != JCalValueType.defaultType(for: kind) || JCalValueType.requiresValueParameter(kind)) {
            parameters.append(Parameter(name: ParameterKind.valueType.rawValue, rawValue: shape.type.parameterValue))
        }
        for group in shape.parameters {
            parameters.append(Parameter(name: ASCII.uppercased(group.name), values: group.values))
        }
        var value = rawValue
        if shape.isTyped,
           let canonical = try? JCalValueCoding.text(shape.values, type: shape.type, property: kind, path: "$") {
            value = canonical
        }
        return Property(name: ASCII.uppercased(name), parameters: parameters, rawValue: value)
    }
}
