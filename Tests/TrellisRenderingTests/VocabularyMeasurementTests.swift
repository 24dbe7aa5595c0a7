import Testing
@testable import TrellisScreens
import TrellisText

/// The vocabulary says what authors may write; layout must be able to measure every bit of it.
@Suite struct VocabularyMeasurementTests {
    @Test func everyTextStyleAScreenMayNameHasMetricsOnBothPlatforms() throws {
        for name in ComponentRegistry.textStyles {
            let style = try #require(TextStyle(name: name), "\(name) has no TextStyle")
            for platform in [TextPlatform.ios, .android] {
                #expect(style.metrics(on: platform).size > 0, "\(name) on \(platform)")
            }
        }
    }

    @Test func everyWeightNameMapsToACSSWeight() {
        #expect(ComponentRegistry.weights.count == ComponentRegistry.fontWeights.count)
        #expect(ComponentRegistry.weights.compactMap { ComponentRegistry.fontWeights[$0] } == [100, 200, 300, 400, 500, 600, 700, 800, 900])
    }
}
