/// A Pins container's `align` entries: one view's attributes set equal to another's, for what a
/// visual format string cannot say (centring a badge on a title's centre line).
///
/// ```
/// alignments := alignment ("," alignment)*
/// alignment  := attribute ":" target ["." attribute] [("+" | "-") number] ["@" priority]
/// target     := view-name | "|"                      ; "|" is the container
/// attribute  := leading | trailing | left | right | top | bottom | centerX | centerY
///             | width | height | firstBaseline | lastBaseline
/// ```
/// `"badge": "centerY:title"` is `badge.centerY == title.centerY`; `"badge": "top:title.bottom+4"`
/// is `badge.top == title.bottom + 4`; spaces around the parts are allowed.
public enum PinAlignment {
    /// The longest alignment text read (a screen is data from outside; its size is bounded).
    public static let maximumLength = 1_000

    /// The constraints `text` asks for, for the view named `view`; each names the column of its
    /// attribute. Views named are listed with their columns, as ``VisualFormat`` lists them.
    public static func parse(_ text: String, view: String) throws(VisualFormatError) -> (constraints: [PinConstraint], views: [PinViewReference]) {
        let scalars = Array(text.unicodeScalars)
        guard scalars.count <= maximumLength else {
            throw VisualFormatError(column: maximumLength + 1, message: "longer than \(maximumLength) characters")
        }
        var reader = Reader(scalars: scalars)
        var constraints: [PinConstraint] = []
        var views: [PinViewReference] = []
        repeat {
            reader.skipSpaces()
            let column = reader.column
            let attribute = try reader.attribute()
            try reader.expect(":")
            reader.skipSpaces()
            let targetColumn = reader.column
            let target: PinItem
            if reader.take("|") {
                target = .container
            } else {
                let name = try reader.name()
                views.append(PinViewReference(name: name, column: targetColumn))
                target = .view(name)
            }
            let targetAttribute = reader.take(".") ? try reader.attribute() : attribute
            reader.skipSpaces()
            var constant = 0.0
            if reader.peek == "+" || reader.peek == "-" {
                let negative = reader.peek == "-"
                reader.advance()
                reader.skipSpaces()
                constant = try reader.number() * (negative ? -1 : 1)
                reader.skipSpaces()
            }
            var priority = ConstraintPriority.required
            if reader.take("@") {
                let priorityColumn = reader.column
                priority = try reader.number()
                guard priority >= 1 && priority <= 1000 else {
                    throw VisualFormatError(column: priorityColumn, message: "a priority is from 1 to 1000")
                }
                reader.skipSpaces()
            }
            constraints.append(PinConstraint(
                PinAnchor(.view(view), attribute), .equal, PinAnchor(target, targetAttribute), constant: constant,
                priority: priority, column: column))
        } while reader.take(",")
        guard reader.isAtEnd else {
            throw VisualFormatError(column: reader.column, message: "expected \",\" or the end, found \"\(reader.peek.map(String.init) ?? "")\"")
        }
        return (constraints, views)
    }

    /// A cursor over the text's scalars with 1-based columns.
    private struct Reader {
        let scalars: [Unicode.Scalar]
        var offset = 0

        var column: Int { offset + 1 }
        var isAtEnd: Bool { offset >= scalars.count }
        var peek: Unicode.Scalar? { isAtEnd ? nil : scalars[offset] }

        mutating func advance() { offset += 1 }

        mutating func skipSpaces() {
            while peek == " " { advance() }
        }

        mutating func take(_ scalar: Unicode.Scalar) -> Bool {
            skipSpaces()
            guard peek == scalar else { return false }
            advance()
            return true
        }

        mutating func expect(_ scalar: Unicode.Scalar) throws(VisualFormatError) {
            guard take(scalar) else {
                throw VisualFormatError(column: column, message: "expected \"\(scalar)\"")
            }
        }

        mutating func name() throws(VisualFormatError) -> String {
            let start = offset
            while let s = peek, s.properties.isAlphabetic && s.isASCII || s == "_" || (offset > start && ("0"..."9").contains(s)) {
                advance()
            }
            guard offset > start else {
                throw VisualFormatError(column: column, message: "expected a view name or \"|\"")
            }
            var name = String.UnicodeScalarView()
            name.append(contentsOf: scalars[start..<offset])
            return String(name)
        }

        mutating func attribute() throws(VisualFormatError) -> PinAttribute {
            skipSpaces()
            let start = column
            let word = try name()
            guard let found = PinAttribute(name: word) else {
                let names = PinAttribute.allCases.map(\.name).joined(separator: ", ")
                throw VisualFormatError(column: start, message: "unknown attribute \"\(word)\"; attributes: \(names)")
            }
            return found
        }

        mutating func number() throws(VisualFormatError) -> Double {
            let start = offset
            var value = 0.0, scale = 0.0
            while let s = peek, ("0"..."9").contains(s) || (s == "." && scale == 0) {
                if s == "." {
                    scale = 1
                } else if scale > 0 {
                    scale /= 10
                    value += Double(s.value - 48) * scale
                } else if value < 1e9 {
                    value = value * 10 + Double(s.value - 48)
                }
                advance()
            }
            guard offset > start, scalars[offset - 1] != "." else {
                throw VisualFormatError(column: start + 1, message: "expected a number")
            }
            return value
        }
    }
}
