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
    /// bytes its plan encoded once. ``PlannedComponent/answerBound`` counts what this writes.
    func write(_ placed: Placed, in origin: Origin, to out: inout LayoutAnswerWriter) {
        let planned = placed.planned
        let (frame, own) = place(placed.node.frame, in: origin)
        out.append(planned.encoded.head)
        out.append(frame, first: true)
        out.append(byte: 0x7D)
        if planned.hidden { out.append(literal: ",\"hidden\":true") }
        if let node = placed.bar, let part = planned.barPart {
            out.append(literal: ",\"bar\":")
            out.append(part, frame: place(node.frame, in: own).frame)
        }
        if !placed.separators.isEmpty {
            out.append(literal: ",\"separators\":[")
            for (index, node) in placed.separators.enumerated() {
                if index > 0 { out.append(byte: 0x2C) }
                out.append(planned.separatorParts[index], frame: place(node.frame, in: own).frame)
            }
            out.append(byte: 0x5D)
        }
        if let spec = planned.text, !planned.hidden {
            let summary = placed.lineSummary(of: spec, width: frame.width - planned.insets.left - planned.insets.right)
            if summary.count > 0 {
                out.append(literal: ",\"lines\":")
                out.append(integer: Int64(summary.count))
            }
            if summary.truncated { out.append(literal: ",\"truncated\":true") }
        }
        out.append(planned.encoded.members)
        if !placed.children.isEmpty {
            out.append(literal: ",\"subviews\":[")
            for (index, child) in placed.children.enumerated() {
                if index > 0 { out.append(byte: 0x2C) }
                write(child, in: own, to: &out)
            }
            out.append(byte: 0x5D)
        }
        out.append(planned.encoded.metadata)
        out.append(byte: 0x7D)
    }

    /// `frame` (relative, as laid out) as the answer gives it, and the origin it makes for its
    /// children. The screen is the viewport, exactly: TrellisLayout rounds edges to the pixel grid,
    /// and where the viewport is not a whole number of pixels (412 points at scale 2.625 are
    /// 1081.5 px) an edge at the viewport's right or bottom lands on the pixel next to it (a root
    /// 412.19 wide). So an edge that rounds to the same pixel as one of the screen's own lines (its
    /// right and bottom edges, and the safe area's top and bottom) is put on that line; every other
    /// edge stays where TrellisLayout put it, so children keep their place.
    func place(_ frame: LayoutFrame, in origin: Origin) -> (frame: LayoutFrame, origin: Origin) {
        let x = place(frame.left, frame.width, parent: (origin.laidOut.x, origin.given.x), lines: screenLines.x)
        let y = place(frame.top, frame.height, parent: (origin.laidOut.y, origin.given.y), lines: screenLines.y)
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

    /// The screen's lines on one axis, in points, with the pixels they round to: up to three, the
    /// first that an edge rounds to winning. Found once per layout, not once per edge.
    struct ScreenLines {
        let lines: (Float, Float, Float)
        let pixels: (Double, Double, Double)

        /// The viewport's right edge, and its safe area's top and bottom and its bottom edge.
        static func of(_ viewport: LayoutViewport) -> (x: ScreenLines, y: ScreenLines) {
            (ScreenLines((viewport.width, viewport.width, viewport.width), scale: viewport.scale),
             ScreenLines((viewport.safeTop, viewport.height - viewport.safeBottom, viewport.height), scale: viewport.scale))
        }

        private init(_ lines: (Float, Float, Float), scale: Float) {
            self.lines = lines
            pixels = (pixel(lines.0, scale), pixel(lines.1, scale), pixel(lines.2, scale))
        }
    }

    /// `edge` (absolute, points), or the first of `lines` that rounds to the same pixel. (Pixels
    /// round half away from zero; TrellisLayout rounds halves up, which differs only for a
    /// negative edge on a half pixel.)
    private func snap(_ edge: Float, to lines: ScreenLines) -> Float {
        let edgePixel = pixel(edge, viewport.scale)
        if edgePixel == lines.pixels.0 { return lines.lines.0 }
        if edgePixel == lines.pixels.1 { return lines.lines.1 }
        if edgePixel == lines.pixels.2 { return lines.lines.2 }
        return edge
    }
}

/// The pixel `points` fall on at `scale`, rounded half away from zero.
private func pixel(_ points: Float, _ scale: Float) -> Double {
    ScreenLayout.roundedHalfAway(Double(points) * Double(scale))
}
