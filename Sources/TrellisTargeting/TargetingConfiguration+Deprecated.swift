// The `enabled` spelling of an experiment's state, from before experiments had a status. Kept so
// that code written against it still builds while it moves to `status`; targeting.json still
// accepts `"enabled"` (see TargetingConfiguration+ExperimentDecoding.swift), and that stays.

extension TargetingConfiguration.Experiment {
    /// An experiment that is running (`enabled`) or paused (not `enabled`).
    @available(*, deprecated, message: "use init(variants:status:defaultVariant:overrides:description:)")
    public init(variants: [Variant], enabled: Bool, defaultVariant: String, description: String? = nil) {
        self.init(variants: variants, status: enabled ? .running : .paused, defaultVariant: defaultVariant, description: description)
    }

    /// Whether the experiment is running. Setting `true` runs it (a concluded experiment loses its
    /// winner); setting `false` pauses it.
    @available(*, deprecated, message: "use status")
    public var enabled: Bool {
        get { status == .running }
        set { status = newValue ? .running : .paused }
    }
}
