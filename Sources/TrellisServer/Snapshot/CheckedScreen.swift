import TrellisJSON
import TrellisScreens
import TrellisStore
import TrellisTargeting

/// A screen document decoded and checked once, held as its bytes and what serving and checking
/// need of it: its encoding plan, decision points, links and parameters. Not its model: the
/// decoded tree takes several times the document's memory, and a request rarely needs it —
/// answers come from the encoding plan (``ScreenEncodingPlan``), made from the model the check
/// decoded, which then goes at once: at 10,000 screens the process would hold a model of each
/// for nothing, and models freed later leave the heap in pieces the system never gets back.
/// Layouts, previews and client formats decode the model again when they miss, through the
/// snapshot's cache of models (``Snapshot/screen(of:)``).
///
/// Shared by every revision with this content (by ``fingerprint``) and by the configuration
/// baseline's file it came from.
public final class CheckedScreen: Sendable {
    public let id: String
    public let schemaVersion: Int
    public let title: String?
    /// The document as authored: the file's bytes, or the stored revision's; held deflated, for
    /// it is read only when the model is decoded again, a diagnostic is located, or an admin reads
    /// it (the runtime state's revision shares this copy: ``RuntimeState/sharingDocuments(of:served:staged:)``).
    public let document: DocumentBytes
    /// ``ScreenEntry/contentFingerprint(of:)`` of the model: equal for equal content, whatever the formatting.
    public let fingerprint: String
    /// Every Rule and Experiment of the screen, with the rollouts they name.
    public let decisions: ScreenDecisions
    /// Where the screen's navigate actions lead (``Screen/links``), for the navigation check.
    public let links: [ScreenLink]
    /// The screen's `$param` and `$format` placeholders (``Screen/parameters``).
    public let parameters: [ParameterUse]
    /// The parameters' names, each once, sorted; empty for most screens.
    public let parameterNames: [String]
    /// The templates the screen uses, by name: a reload with other templates decodes it again.
    public let templateNames: [String]
    /// What decoded it, with the templates it was expanded with: decoding the document again with
    /// them gives the same model.
    private let decoder: ScreenDecoder
    private let templates: TemplateLibrary
    /// The screen pre-encoded per client schema version, for answer-cache misses: its own made
    /// here, older clients' by their first miss.
    let plans: EncodingPlans

    public init(_ screen: Screen, document: [UInt8], decoder: ScreenDecoder, templates: TemplateLibrary, resolver: ScreenResolver) {
        id = screen.id
        schemaVersion = screen.schemaVersion
        title = screen.title
        self.document = DocumentBytes.deflating(document)
        fingerprint = ScreenEntry.contentFingerprint(of: screen)
        decisions = resolver.decisions(of: screen)
        // Their paths outlive the model they were made in: each in one buffer, not a link per component.
        links = screen.links.map { ScreenLink(path: $0.path.packed(), target: $0.target) }
        parameters = screen.parameters.map { ParameterUse(name: $0.name, path: $0.path.packed(), expects: $0.expects, hasDefault: $0.hasDefault) }
        parameterNames = screen.parameterNames.sorted()
        templateNames = screen.templates
        self.decoder = decoder
        // A screen without templates keeps none alive.
        self.templates = screen.templates.isEmpty ? TemplateLibrary() : templates
        plans = EncodingPlans(schemaVersions: screen.schemaVersion)
        let decisions = decisions
        _ = plans.plan(for: screen.schemaVersion) {
            ScreenEncodingPlan.make(screen, decisions: decisions, clientSchemaVersion: screen.schemaVersion, resolver: resolver)
        }
    }

    /// The model, decoded again from the document as it was checked.
    func decodeModel() -> Result<Screen, DiagnosticsError> {
        decoder.decode(document.bytes, source: "screens/\(id)", expectedID: id, templates: templates)
    }

    /// Every name the screen uses that `targeting` does not define (``ScreenDecisions/checkReferences(in:source:)``).
    func checkReferences(in targeting: TargetingConfiguration, source: String) throws(DiagnosticsError) {
        try decisions.checkReferences(in: targeting, source: source)
    }
}
