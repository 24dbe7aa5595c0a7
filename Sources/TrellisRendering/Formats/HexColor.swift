/// A Trellis colour (`#RGB`, `#RRGGBB` or `#RRGGBBAA`, docs/screens.md "Value types") read into its
/// channels, so each client format can write the form its client parses.
struct HexColor: Equatable {
    var red: UInt8
    var green: UInt8
    var blue: UInt8
    /// 255 for `#RGB` and `#RRGGBB`.
    var alpha: UInt8

    /// Nil for anything that is not a Trellis colour (the decoder refuses those, so a nil here means
    /// a value that never went through it).
    init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.first == UInt8(ascii: "#") else { return nil }
        var digits: [UInt8] = []
        for b in bytes.dropFirst() {
            guard let d = Self.hexDigit(b) else { return nil }
            digits.append(d)
        }
        switch digits.count {
        case 3:  // #RGB is #RRGGBB with each digit doubled (CSS Color 4 §5.2)
            (red, green, blue, alpha) = (digits[0] * 17, digits[1] * 17, digits[2] * 17, 255)
        case 6, 8:
            red = digits[0] << 4 | digits[1]
            green = digits[2] << 4 | digits[3]
            blue = digits[4] << 4 | digits[5]
            alpha = digits.count == 8 ? digits[6] << 4 | digits[7] : 255
        default:
            return nil
        }
    }

    /// Six upper-case hex digits, no prefix: `1A2B3C`. Alpha is not part of it.
    var rrggbb: String {
        [red, green, blue].map { Self.hex($0) }.joined()
    }

    /// Fully transparent: drawing it as an opaque colour would paint what the author meant to leave clear.
    var isClear: Bool { alpha == 0 }

    private static func hexDigit(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): b - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
    }
}
