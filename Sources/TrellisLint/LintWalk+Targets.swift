import TrellisLayout
import TrellisRendering

extension LintWalk {
    /// Every button and component with an action smaller than the platform's minimum, in either
    /// dimension (Apple's 44×44 pt, Material's 48×48 dp); with ``LintOptions/targetSpacingException``,
    /// not when it stands far enough from every other target (WCAG 2.5.8).
    func tapTargetFindings() -> [LintFinding] {
        let minimum = options.minimumTarget[configuration.device.platform] ?? 44
        let small = targets.indices.filter { targets[$0].rect.width < minimum - pixel || targets[$0].rect.height < minimum - pixel }
        var out: [LintFinding] = []
        for index in small {
            let target = targets[index]
            if options.targetSpacingException && isSpaced(index, small: Set(small), diameter: minimum) { continue }
            let size = "\(LintNumber.text(Double(target.rect.width)))×\(LintNumber.text(Double(target.rect.height))) \(configuration.device.unit)"
            out.append(LintFinding(
                screenId: screenId, path: target.path, layoutId: target.node.layoutId, rule: .tapTarget, locale: locale,
                configuration: configuration, value: "\(size) (needs \(LintNumber.text(Double(minimum)))×\(LintNumber.text(Double(minimum))))"))
        }
        return out
    }

    /// Whether a circle of `diameter` centred on target `index` meets no other target, nor the
    /// circle of another undersized one.
    private func isSpaced(_ index: Int, small: Set<Int>, diameter: Float) -> Bool {
        let rect = targets[index].rect
        let center = (x: rect.x + rect.width / 2, y: rect.y + rect.height / 2)
        let radius = diameter / 2
        for other in targets.indices where other != index {
            let o = targets[other].rect
            let dx = max(o.x - center.x, 0, center.x - o.maxX), dy = max(o.y - center.y, 0, center.y - o.maxY)
            if dx * dx + dy * dy < radius * radius { return false }
            if small.contains(other) {
                let ox = o.x + o.width / 2 - center.x, oy = o.y + o.height / 2 - center.y
                if ox * ox + oy * oy < diameter * diameter { return false }
            }
        }
        return true
    }
}
