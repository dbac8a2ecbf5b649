extension ICalError.Code {
    /// The input is not well-formed JSON (RFC 8259); the error gives line and column.
    public static let json = ICalError.Code(rawValue: "json")
    /// The input is JSON but not jCal: a component, property or parameter has the wrong
    /// shape. The message starts with the JSON path of the problem, such as `$[2][0][1]`.
    public static let jcal = ICalError.Code(rawValue: "jcal")
}
