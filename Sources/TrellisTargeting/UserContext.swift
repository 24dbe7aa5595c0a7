/// Who is asking: the facts about one user and client that rules are evaluated against.
///
/// Built-in attributes are addressed in conditions by these names: `userId`, `platform`,
/// `appVersion`, `osVersion`, `schemaVersion`, `locale`, `country`, `now`. Any other name is looked
/// up in ``attributes``. A condition on an attribute the context does not have is false, whatever
/// its operator (`notEquals` and `notIn` included); write `{"not": …}` around a positive condition
/// to include users without the attribute.
public struct UserContext: Sendable, Equatable {
    /// The stable id bucketing uses. Without one, rollouts admit nobody and experiments give their
    /// default variant.
    public var userID: String?
    /// The client platform in lower case: `ios`, `android`, `web`, …
    public var platform: String?
    public var appVersion: SemanticVersion?
    public var osVersion: SemanticVersion?
    /// The highest component schema version the client renders.
    public var schemaVersion: Int?
    /// A language tag such as `de-DE` or `en`.
    public var locale: String?
    /// An ISO 3166-1 alpha-2 code in upper case, such as `DE`.
    public var country: String?
    /// Free attributes (`attr.NAME=value`), compared as text or parsed per operator.
    public var attributes: [String: String]
    /// The time of the request in seconds since 1970-01-01T00:00:00Z, set by the server (never by
    /// the client); conditions on `now` are false without it.
    public var now: Double?

    public init(
        userID: String? = nil, platform: String? = nil, appVersion: SemanticVersion? = nil,
        osVersion: SemanticVersion? = nil, schemaVersion: Int? = nil, locale: String? = nil, country: String? = nil,
        attributes: [String: String] = [:], now: Double? = nil
    ) {
        self.userID = userID
        self.platform = platform
        self.appVersion = appVersion
        self.osVersion = osVersion
        self.schemaVersion = schemaVersion
        self.locale = locale
        self.country = country
        self.attributes = attributes
        self.now = now
    }

    /// The names conditions use for the built-in attributes; `attr.` names may not take them.
    public static let builtInAttributes: Set<String> = [
        "userId", "platform", "appVersion", "osVersion", "schemaVersion", "locale", "country", "now",
    ]

    /// A built-in attribute, by the name conditions use.
    public enum BuiltInAttribute: String, Sendable {
        case userId, platform, appVersion, osVersion, schemaVersion, locale, country, now
    }

    /// The attribute `name` as text, or nil when the context does not have it.
    public func text(of name: String) -> String? { text(of: BuiltInAttribute(rawValue: name), named: name) }

    /// The same, for a name already looked up among the built-in ones (`builtIn`, nil for a free
    /// attribute): a condition looks its attribute up once, not at every evaluation.
    public func text(of builtIn: BuiltInAttribute?, named name: String) -> String? {
        switch builtIn {
        case .userId: userID
        case .platform: platform
        case .appVersion: appVersion?.description
        case .osVersion: osVersion?.description
        case .schemaVersion: schemaVersion.map(String.init)
        case .locale: locale
        case .country: country
        case .now: now.map { RFC3339.string(fromSeconds: $0) }
        case nil: attributes[name]
        }
    }
}
