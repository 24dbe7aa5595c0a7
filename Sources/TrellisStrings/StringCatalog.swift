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
    }

    /// The locale a request is answered in: the table chosen for its locale (what
    /// `Content-Language` says and what an answer is cached under), or the pseudo-locale.
    public struct Resolved: Hashable, Sendable {
        public let tag: String
        /// The tables it reads, most specific first, the default last.
        public let chain: [String]
        /// `en-XA`: the default locale's messages, accented, bracketed and 40 % longer.
        public let pseudo: Bool
    }

    public func resolve(_ requested: String?) -> Resolved {
        let candidates = requested.map(LocaleTag.fallbacks(of:)) ?? []
        if candidates.first == PseudoLocale.tag {
            return Resolved(tag: PseudoLocale.tag, chain: [defaultLocale], pseudo: true)
        }
        var chain = candidates.filter { tables[$0] != nil }
        if !chain.contains(defaultLocale) { chain.append(defaultLocale) }
        return Resolved(tag: chain[0], chain: chain, pseudo: false)
    }

    /// The message for `key` along the resolved chain, and the locale of the table it came from.
    public func message(_ key: String, in resolved: Resolved) -> (message: Message, locale: String)? {
        for tag in resolved.chain {
            if let message = tables[tag]?[key] { return (resolved.pseudo ? message.pseudoLocalized() : message, tag) }
        }
        return nil
    }

    /// `key` written for the resolved locale; nil for a key no table on its chain has.
    public func string(_ key: String, _ arguments: [String: MessageArgument], in resolved: Resolved) -> String? {
        guard let (message, tag) = message(key, in: resolved) else { return nil }
        let written = message.format(arguments, in: MessageLocale(tag))
        return resolved.pseudo ? PseudoLocale.expand(written) : written
    }

    /// What each table lacks or has too many of, against the default's keys: a translation not
    /// made yet (`missing`: reported, the default's text is shown) or a key the default does not
    /// have (`unknown`: a mistake, it can never be shown), and arguments a translation names that
    /// the default's message does not.
    public func coverage() -> [Coverage] {
        let reference = tables[defaultLocale] ?? [:]
        return tables.keys.sorted().filter { $0 != defaultLocale }.map { tag in
            let table = tables[tag] ?? [:]
            let extraArguments = table.keys.sorted().compactMap { key -> (String, [String])? in
                guard let original = reference[key] else { return nil }
                let extra = Set(table[key]!.arguments.keys).subtracting(original.arguments.keys).sorted()
                return extra.isEmpty ? nil : (key, extra)
            }
            return Coverage(
                locale: tag, keys: reference.count, missing: reference.keys.filter { table[$0] == nil }.sorted(),
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
