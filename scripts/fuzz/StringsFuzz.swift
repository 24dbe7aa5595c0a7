// libFuzzer entry for string tables, built by scripts/fuzz-strings with the sources of TrellisJSON,
// TrellisStrings and TrellisStringsJSON compiled as one module (not part of the package). The
// first byte chooses what the rest is:
//   - 0: an ICU message, parsed; one that parses is written in a locale chosen by the second byte
//     with arguments drawn from the third, and again pseudo-localized. Invariants: a refusal has
//     a line and column inside the message; writing never traps.
//   - 1: a plural condition (CLDR syntax), parsed and evaluated on numbers drawn from the input.
//   - 2: a whole string table file (JSON), read; a failure lists at least one mistake.

let locales = ["en", "de", "fr", "ar", "ru", "pl", "cy", "ga", "lt", "ja", "hi", "en-IN", "pt-PT", "de-CH", "fa", "tlh", "en-XA"]
let numbers: [Double] = [0, 1, 2, 3, 5, 11, 21, 101, 1.5, 0.5, 1234.5678, -2.5, 1e16, 2.5e-7, 1.0005, -0.0]

func checkMessage(_ text: String, _ selectors: [UInt8]) {
    let message: Message
    do {
        message = try Message(text)
    } catch {
        precondition(error.line >= 1 && error.column >= 1 && !error.reason.isEmpty, "a refusal without a place or reason: \(error)")
        return
    }
    let locale = MessageLocale(locales[Int(selectors.first ?? 0) % locales.count])
    var arguments: [String: MessageArgument] = [:]
    for (index, name) in message.arguments.keys.sorted().enumerated() {
        let pick = Int(selectors.dropFirst().first ?? 0) &+ index
        arguments[name] = message.arguments[name] == .number || pick % 3 != 0
            ? .number(numbers[pick % numbers.count]) : .string("s\(pick)")
    }
    _ = message.format(arguments, in: locale)
    _ = message.format([:], in: locale)
    _ = PseudoLocale.expand(message.pseudoLocalized().format(arguments, in: locale))
}

func checkCondition(_ text: String, _ bytes: [UInt8]) {
    guard let condition = try? PluralCondition(text) else { return }
    for byte in bytes.prefix(8) {
        _ = condition.matches(PluralOperands(Int(byte)))
        _ = condition.matches(PluralOperands(decimal: "\(byte).\(byte % 7)0")!)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 1 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let rest = Array(bytes.dropFirst())
    let text = String(decoding: rest, as: UTF8.self)
    switch bytes[0] % 3 {
    case 0: checkMessage(text, Array(rest.prefix(2)))
    case 1: checkCondition(text, rest)
    default:
        if case .failure(let error) = StringTableFile.decode(rest, source: "fuzz.json") {
            precondition(!error.diagnostics.isEmpty, "a refused table without a mistake")
        }
    }
    return 0
}
