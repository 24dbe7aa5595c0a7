/// Every locale's string table: keys to messages, one table a locale, one of them the default that
/// every key must be in. A request's locale is answered by the first table along its fallback chain
/// (`de-AT`, then `de`), then by the default; a key a table lacks is taken from the next table along
/// the same chain, so a missing translation shows the fallback's text, never a key.
public struct StringCatalog: Sendable {
    public let defaultLocale: String
    /// Locale tag (as ``LocaleTag`` writes it) → key → message.
    public let tables: [String: [String: Message]]

    public init(defaultLocale: String, tables: [String: [String: Message]]) {
        self.defaultLocale = LocaleTag.fallbacks(of: defaultLocale).first ?? defaultLocale
        var canonical: [String: [String: Message]] = [:]
        for (tag, table) in tables { canonical[LocaleTag.fallbacks(of: tag).first ?? tag] = table }
        self.tables = canonical
        localized = Self.localize(canonical, defaultLocale: self.defaultLocale)
        defaultStrings = localized[self.defaultLocale] ?? LocalizedStrings(tag: self.defaultLocale, chain: [], tables: [:], pseudo: false)
    }

    /// Each table's locale, and the pseudo-locale, with its chain merged and its plural rules and
    /// number symbols looked up: built once, so a request only picks one (``resolve(_:)``).
    private let localized: [String: LocalizedStrings]
    /// What a request without a locale is answered with, found once.
    private let defaultStrings: LocalizedStrings

    /// The strings a request is answered with: those of the first table along its locale's fallback
    /// chain (its tag is what `Content-Language` says and what an answer is cached under), or the
    /// pseudo-locale's. Nil asks for the default.
    public func resolve(_ requested: String?) -> LocalizedStrings {
        guard let requested else { return defaultStrings }
        // A request names a table's own tag most of the time: no fallback chain is made for it.
        if let strings = localized[requested] { return strings }
        let tag = LocaleTag.fallbacks(of: requested).first { $0 == PseudoLocale.tag || tables[$0] != nil } ?? defaultLocale
        return localized[tag] ?? LocalizedStrings(tag: tag, chain: [], tables: [:], pseudo: false)
    }

    /// Every locale a request can be answered in, the pseudo-locale last.
    public var locales: [String] { tables.keys.sorted() + [PseudoLocale.tag] }

    private static func localize(_ tables: [String: [String: Message]], defaultLocale: String) -> [String: LocalizedStrings] {
        var localized: [String: LocalizedStrings] = [:]
        for tag in tables.keys {
            var chain = LocaleTag.fallbacks(of: tag).filter { tables[$0] != nil }
            if !chain.contains(defaultLocale) { chain.append(defaultLocale) }
            localized[tag] = LocalizedStrings(tag: tag, chain: chain, tables: tables, pseudo: false)
        }
        localized[PseudoLocale.tag] = LocalizedStrings(tag: PseudoLocale.tag, chain: [defaultLocale], tables: tables, pseudo: true)
        return localized
    }

    /// What each table lacks or has too many of, against the default's keys: a translation not
    /// made yet (`missing`: reported, the default's text is shown) or a key the default does not
    /// have (`unknown`: a mistake, it can never be shown), and arguments a translation names that
    /// the default's message does not. A regional table misses a key only when its language's
    /// table lacks it too.
    public func coverage() -> [Coverage] {
        let reference = tables[defaultLocale] ?? [:]
        return tables.keys.sorted().filter { $0 != defaultLocale }.map { tag in
            let table = tables[tag] ?? [:]
            let extraArguments = table.keys.sorted().compactMap { key -> (String, [String])? in
                guard let original = reference[key] else { return nil }
                let extra = Set(table[key]!.arguments.keys).subtracting(original.arguments.keys).sorted()
                return extra.isEmpty ? nil : (key, extra)
            }
            // A regional table (de-AT) lacks only what its language's (de) lacks too.
            let chain = localized[tag]?.chain.dropLast() ?? [tag]
            let missing = reference.keys.filter { key in chain.allSatisfy { tables[$0]?[key] == nil } }
            return Coverage(
                locale: tag, keys: reference.count, missing: missing.sorted(),
                unknown: table.keys.filter { reference[$0] == nil }.sorted(),
                extraArguments: Dictionary(uniqueKeysWithValues: extraArguments))
        }
    }

    public struct Coverage: Equatable, Sendable {
        public let locale: String
        /// The default table's keys.
        public let keys: Int
        public let missing: [String]
        public let unknown: [String]
        /// Key → arguments the translation names that the default's message does not.
        public let extraArguments: [String: [String]]

        /// The share of the default's keys translated, 0…1.
        public var translated: Double { keys == 0 ? 1 : Double(keys - missing.count) / Double(keys) }
    }
}

/// One locale's strings: every key of the tables along its chain, each message with the locale it
/// is written in (a key the translation lacks is the fallback's, with the fallback's plural rules).
/// Immutable and shared by every request answered in the locale.
public final class LocalizedStrings: Sendable {
    public let tag: String
    /// The tables it reads, most specific first, the default last.
    public let chain: [String]
    /// `en-XA`: the default locale's messages, accented, bracketed and 40 % longer.
    public let pseudo: Bool
    private let entries: [String: Entry]
    private let locales: [MessageLocale]

    struct Entry: Sendable {
        let message: Message
        /// Where in ``locales`` the message's locale is.
        let locale: Int
        let arguments: [String: Message.ArgumentUse]
    }

    init(tag: String, chain: [String], tables: [String: [String: Message]], pseudo: Bool) {
        self.tag = tag
        self.chain = chain
        self.pseudo = pseudo
        locales = chain.map(MessageLocale.init)
        var entries: [String: Entry] = [:]
        for (index, table) in chain.enumerated().reversed() {
            for (key, message) in tables[table] ?? [:] {
                let shown = pseudo ? message.pseudoLocalized() : message
                entries[key] = Entry(message: shown, locale: index, arguments: message.arguments)
            }
        }
        self.entries = entries
    }

    /// The message for `key` and the locale of the table it came from; nil for a key no table on
    /// the chain has.
    public func message(_ key: String) -> (message: Message, locale: String)? {
        entries[key].map { ($0.message, chain[$0.locale]) }
    }

    /// The arguments `key`'s message names here, and how it uses each.
    public func arguments(of key: String) -> [String: Message.ArgumentUse]? { entries[key]?.arguments }

    /// `key` written with `arguments`; nil for a key no table on the chain has.
    public func string(_ key: String, _ arguments: [String: MessageArgument]) -> String? {
        guard let entry = entries[key] else { return nil }
        let written = entry.message.format(arguments, in: locales[entry.locale])
        return pseudo ? PseudoLocale.expand(written) : written
    }
}
