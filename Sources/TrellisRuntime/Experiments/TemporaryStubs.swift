// TEMPORARY until the experiment fields land.
import TrellisTargeting
extension TargetingConfiguration.Experiment {
    package var metricNames: [String] { [] }
}
extension Snapshot {
    package var serverExposedExperiments: Set<String> { [] }
}
