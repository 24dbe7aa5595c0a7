import TrellisJSON
import TrellisLayout
import TrellisScreens
import TrellisText

/// Reading the laid-out tree back, with the viewport's edges kept where they are.
extension ScreenLayout {
    /// Absolute positions of a parent's top-left corner in points: as TrellisLayout placed it
    /// (`laidOut`, what its children's frames are relative to) and as the answer gives it (`given`).
    struct Origin {
        var laidOut: (x: Float, y: Float)
        var given: (x: Float, y: Float)
        static let screen = Origin(laidOut: (0, 0), given: (0, 0))
    }

    /// The component's frame, bar, separators and subviews, relative to the parent at `origin`.
    func result(_ placed: Placed, in origin: Origin = .screen) -> LaidOutComponent {
        let planned = placed.planned
        let (frame, own) = place(placed.node.frame, in: origin)
        var text: LaidOutText?
        if let spec = planned.text, !planned.hidden {
            let width = frame.width - planned.insets.left - planned.insets.right
            let face = (family: spec.chain.faces.first?.family ?? spec.family, weight: spec.chain.faces.first?.weight ?? spec.weight)
            if keepsLines {
                let shown = spec.lines(width: width)
                text = LaidOutText(
                    text: spec.text, family: face.family, weight: face.weight, size: spec.size, lineHeight: spec.lineHeight,
                    lines: shown.lines, lineWidths: shown.widths, lineCount: shown.lines.count, isTruncated: shown.truncated)
            } else {
                let summary = placed.lineSummary(of: spec, width: width)
                text = LaidOutText(
                    text: spec.text, family: face.family, weight: face.weight, size: spec.size, lineHeight: spec.lineHeight,
                    lines: [], lineWidths: [], lineCount: summary.count, isTruncated: summary.truncated)
            }
        }
        var bar: LaidOutPart?
        if let node = placed.bar, let part = planned.barPart {
            bar = LaidOutPart(layoutId: part.layoutId, frame: place(node.frame, in: own).frame)
        }
        return LaidOutComponent(
            component: planned.component, layoutId: planned.layoutId, frame: frame, isHidden: planned.hidden,
            insets: planned.insets, text: text, bar: bar,
            separators: zip(planned.separatorParts, placed.separators).map { part, node in
                LaidOutPart(layoutId: part.layoutId, frame: place(node.frame, in: own).frame)
            },
            subviews: placed.children.map { result($0, in: own) })
    }

    /// One component of the compact layout answer, as ``result(_:in:)`` reads it back and
    /// ``ScreenFrames/jsonValue(_:)`` has it, member for member: the frames written between the
    /// bytes its plan encoded once.
    func write(_ placed: Placed, in origin: Origin, to out: inout [UInt8]) {
        typealias Writer = LayoutAnswerWriter
        let planned = placed.planned
        let (frame, own) = place(placed.node.frame, in: origin)
        out.append(contentsOf: planned.encoded.head)
        Writer.append(frame, first: true, to: &out)
        out.append(0x7D)
        if planned.hidden { Writer.append(literal: ",\"hidden\":true", to: &out) }
        if let node = placed.bar, let part = planned.barPart {
            Writer.append(literal: ",\"bar\":", to: &out)
            Writer.append(part, frame: place(node.frame, in: own).frame, to: &out)
        }
        if !placed.separators.isEmpty {
            Writer.append(literal: ",\"separators\":[", to: &out)
            for (index, node) in placed.separators.enumerated() {
                if index > 0 { out.append(0x2C) }
                Writer.append(planned.separatorParts[index], frame: place(node.frame, in: own).frame, to: &out)
            }
            out.append(0x5D)
        }
        if let spec = planned.text, !planned.hidden {
            let summary = placed.lineSummary(of: spec, width: frame.width - planned.insets.left - planned.insets.right)
            if summary.count > 0 {
                Writer.append(literal: ",\"lines\":", to: &out)
                JSONWriter.append(integer: Int64(summary.count), to: &out)
            }
            if summary.truncated { Writer.append(literal: ",\"truncated\":true", to: &out) }
        }
        out.append(contentsOf: planned.encoded.members)
        if !placed.children.isEmpty {
            Writer.append(literal: ",\"subviews\":[", to: &out)
            for (index, child) in placed.children.enumerated() {
                if index > 0 { out.append(0x2C) }
                write(child, in: own, to: &out)
            }
            out.append(0x5D)
        }
        out.append(contentsOf: planned.encoded.metadata)
        out.append(0x7D)
    }

    /// `frame` (relative, as laid out) as the answer gives it, and the origin it makes for its
    /// children. The screen is the viewport, exactly: TrellisLayout rounds edges to the pixel grid,
    /// and where the viewport is not a whole number of pixels (412 points at scale 2.625 are
    /// 1081.5 px) an edge at the viewport's right or bottom lands on the pixel next to it (a root
    /// 412.19 wide). So an edge that rounds to the same pixel as one of the screen's own lines (its
    /// right and bottom edges, and the safe area's top and bottom) is put on that line; every other
    /// edge stays where TrellisLayout put it, so children keep their place.
    func place(_ frame: LayoutFrame, in origin: Origin) -> (frame: LayoutFrame, origin: Origin) {
        let x = place(frame.left, frame.width, parent: (origin.laidOut.x, origin.given.x), lines: (viewport.width, nil, nil))
        let y = place(
            frame.top, frame.height, parent: (origin.laidOut.y, origin.given.y),
            lines: (viewport.safeTop, viewport.height - viewport.safeBottom, viewport.height))
        return (
            LayoutFrame(left: x.position, top: y.position, width: x.size, height: y.size),
            Origin(laidOut: (x.start.laidOut, y.start.laidOut), given: (x.start.given, y.start.given)))
    }

    /// One axis of `place(_:in:)`; the frame's own numbers whenever nothing moved, so that no
    /// arithmetic touches them.
    private func place(_ position: Float, _ size: Float, parent: (laidOut: Float, given: Float), lines: ScreenLines)
        -> (position: Float, size: Float, start: (laidOut: Float, given: Float))
    {
        let start = parent.laidOut + position, end = start + size
        let givenStart = snap(start, to: lines), givenEnd = snap(end, to: lines)
        let startMoved = givenStart != start || parent.given != parent.laidOut
        return (
            startMoved ? givenStart - parent.given : position,
            givenStart != start || givenEnd != end ? givenEnd - givenStart : size,
            (start, givenStart))
    }

    /// `value.rounded(.toNearestOrAwayFromZero)` without a call into libm (a miss rounds some 700
    /// edges): below 2^52 the integer part and the fraction are exact.
    static func roundedHalfAway(_ value: Double) -> Double {
        guard value.magnitude < 4_503_599_627_370_496 else { return value }  // whole already, or NaN
        let whole = Double(Int64(value))
        let fraction = value - whole
        return fraction >= 0.5 ? whole + 1 : fraction <= -0.5 ? whole - 1 : whole
    }

    /// The screen's lines on one axis, in points: up to three, the first that matches winning.
    typealias ScreenLines = (Float, Float?, Float?)

    /// `edge` (absolute, points), or the first of `lines` that rounds to the same pixel (as
    /// TrellisLayout rounds: halves up).
    private func snap(_ edge: Float, to lines: ScreenLines) -> Float {
        let scale = Double(viewport.scale)
        func pixel(_ points: Float) -> Double { Self.roundedHalfAway(Double(points) * scale) }
        let edgePixel = pixel(edge)
        if pixel(lines.0) == edgePixel { return lines.0 }
        if let line = lines.1, pixel(line) == edgePixel { return line }
        if let line = lines.2, pixel(line) == edgePixel { return line }
        return edge
    }
}
