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
    /// Read with the pin strings' own scanner, so names, numbers and their limits are the same.
    public static func parse(_ text: String, view: String) throws(VisualFormatError) -> (constraints: [PinConstraint], views: [PinViewReference]) {
        guard text.unicodeScalars.count <= maximumLength else {
            throw VisualFormatError(column: maximumLength + 1, message: "longer than \(maximumLength) characters")
        }
        guard !text.isEmpty else { throw VisualFormatError(column: 1, message: "expected an attribute") }
        var scanner = try VisualFormatScanner(text)
        var constraints: [PinConstraint] = []
        var views: [PinViewReference] = []
        repeat {
            skipSpaces(&scanner)
            let column = scanner.column
            let attribute = try self.attribute(&scanner)
            skipSpaces(&scanner)
            guard scanner.skip(":") else { throw VisualFormatError(column: scanner.column, message: "expected \":\"") }
            skipSpaces(&scanner)
            let targetColumn = scanner.column
            let target: PinItem
            if scanner.skip("|") {
                target = .container
            } else if let name = try scanner.name() {
                views.append(PinViewReference(name: name, column: targetColumn))
                target = .view(name)
            } else {
                throw VisualFormatError(column: scanner.column, message: "expected a view name or \"|\"")
            }
            skipSpaces(&scanner)
            let targetAttribute = scanner.skip(".") ? try self.attribute(&scanner) : attribute
            skipSpaces(&scanner)
            var constant = 0.0
            if scanner.isNext("+") || scanner.isNext("-") {
                let negative = scanner.isNext("-")
                scanner.advance()
                skipSpaces(&scanner)
                constant = try number(&scanner) * (negative ? -1 : 1)
                skipSpaces(&scanner)
            }
            var priority = ConstraintPriority.required
            if scanner.skip("@") {
                let priorityColumn = scanner.column
                priority = try number(&scanner)
                guard priority >= 1 && priority <= 1000 else {
                    throw VisualFormatError(column: priorityColumn, message: "a priority is from 1 to 1000")
                }
                skipSpaces(&scanner)
            }
            constraints.append(PinConstraint(
                PinAnchor(.view(view), attribute), .equal, PinAnchor(target, targetAttribute), constant: constant,
                priority: priority, column: column))
        } while scanner.skip(",")
        guard scanner.isAtEnd else {
            let found = scanner.text(from: scanner.column, to: scanner.column + 1)
            throw VisualFormatError(column: scanner.column, message: "expected \",\" or the end, found \"\(found)\"")
        }
        return (constraints, views)
    }

    private static func skipSpaces(_ scanner: inout VisualFormatScanner) {
        while scanner.skip(" ") {}
    }

    private static func attribute(_ scanner: inout VisualFormatScanner) throws(VisualFormatError) -> PinAttribute {
        skipSpaces(&scanner)
        let start = scanner.column
        guard let word = try scanner.name() else {
            throw VisualFormatError(column: start, message: "expected an attribute")
        }
        guard let found = PinAttribute(name: word) else {
            let names = PinAttribute.allCases.map(\.name).joined(separator: ", ")
            throw VisualFormatError(column: start, message: "unknown attribute \"\(word)\"; attributes: \(names)")
        }
        return found
    }

    private static func number(_ scanner: inout VisualFormatScanner) throws(VisualFormatError) -> Double {
        guard let value = try scanner.unsignedNumber() else {
            throw VisualFormatError(column: scanner.column, message: "expected a number")
        }
        return value
    }
}
