import TrellisLayout
import TrellisScreens
import TrellisText

/// `GET /preview/{id}/preview.svg`: the same picture as the HTML preview, as one SVG document
/// (`curl -o home.svg`). Each component is a `<g>` translated to its frame, with `data-id`.
/// Text names the face it was measured with, declared by `fontFaces` (``WebFonts``) with URLs on
/// this server: opened from the server the SVG draws in those faces; saved to a file, in the
/// viewer's own fonts.
public enum PreviewSVG {
    public static func render(_ frames: ScreenFrames, fontFaces: String = "") -> String {
        let v = frames.viewport
        let w = Markup.number(v.width), h = Markup.number(v.height)
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(w)" height="\(h)" viewBox="0 0 \(w) \(h)">
            <title>\(Markup.escape(frames.screen.title ?? frames.screen.id)) — Trellis preview</title>
            <defs><style>\(fontFaces)text{font-variant-ligatures:none;font-kerning:normal}</style><clipPath id="screen-clip"><rect width="\(w)" height="\(h)"/></clipPath></defs>
            <rect width="\(w)" height="\(h)" fill="#FFFFFF"/>
            <g clip-path="url(#screen-clip)">

            """
        var clips = 0
        if let root = frames.root { draw(root, frames, clips: &clips, into: &out) }
        out += "</g>\n</svg>\n"
        return out
    }

    private static func rect(_ frame: LayoutFrame, fill: String, radius: Float = 0, extra: String = "") -> String {
        "<rect width=\"\(Markup.number(frame.width))\" height=\"\(Markup.number(frame.height))\""
            + (radius > 0 ? " rx=\"\(Markup.number(radius))\"" : "") + " fill=\"\(fill)\"\(extra)/>"
    }

    private static func draw(_ node: LaidOutComponent, _ frames: ScreenFrames, clips: inout Int, into out: inout String) {
        guard !node.isHidden else { return }
        let paint = PreviewPaint(node)
        let frame = node.frame
        out += "<g data-id=\"\(Markup.escape(node.layoutId))\" transform=\"translate(\(Markup.number(frame.left)),\(Markup.number(frame.top)))\""
        if let opacity = paint.opacity { out += " opacity=\"\(Markup.number(opacity))\"" }
        out += ">"
        if let fill = paint.fill, paint.placeholderLabel != nil {
            let i = node.insets
            out += "<rect x=\"\(Markup.number(i.left))\" y=\"\(Markup.number(i.top))\" width=\"\(Markup.number(max(0, frame.width - i.left - i.right)))\" height=\"\(Markup.number(max(0, frame.height - i.top - i.bottom)))\""
                + (paint.cornerRadius > 0 ? " rx=\"\(Markup.number(paint.cornerRadius))\"" : "") + " fill=\"\(fill)\"/>"
        } else if let fill = paint.fill {
            if paint.isCircle {
                out += "<ellipse cx=\"\(Markup.number(frame.width / 2))\" cy=\"\(Markup.number(frame.height / 2))\" rx=\"\(Markup.number(frame.width / 2))\" ry=\"\(Markup.number(frame.height / 2))\" fill=\"\(fill)\"/>"
            } else {
                out += rect(frame, fill: fill, radius: paint.cornerRadius)
            }
        }
        if let color = paint.borderColor, paint.borderWidth > 0 {
            let inset = paint.borderWidth / 2
            out += "<rect x=\"\(Markup.number(inset))\" y=\"\(Markup.number(inset))\" width=\"\(Markup.number(max(0, frame.width - paint.borderWidth)))\" height=\"\(Markup.number(max(0, frame.height - paint.borderWidth)))\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"\(Markup.number(paint.borderWidth))\""
                + (paint.cornerRadius > 0 ? " rx=\"\(Markup.number(paint.cornerRadius))\"" : "") + "/>"
        }
        if let label = paint.placeholderLabel, frame.width >= 40, frame.height >= 20 {
            out += "<text x=\"\(Markup.number(frame.width / 2))\" y=\"\(Markup.number(frame.height / 2))\" text-anchor=\"middle\" dominant-baseline=\"central\" font-family=\"sans-serif\" font-size=\"11\" fill=\"#6B7280\">\(Markup.escape(label))</text>"
        }
        if let text = node.text { drawText(text, node, paint, frames, into: &out) }
        if let bar = node.bar { drawBar(bar, node, frames, into: &out) }
        for separator in node.separators {
            out += "<g data-id=\"\(Markup.escape(separator.layoutId))\" transform=\"translate(\(Markup.number(separator.frame.left)),\(Markup.number(separator.frame.top)))\">"
                + rect(separator.frame, fill: "rgba(229,231,235,1)") + "</g>"
        }
        // Scroll views and carousels show only what is inside their frame, as on a device.
        let clipped = paint.clipsContent
        if clipped {
            clips += 1
            out += "<clipPath id=\"clip-\(clips)\">" + rect(frame, fill: "#000") + "</clipPath><g clip-path=\"url(#clip-\(clips))\">"
        }
        for child in node.subviews { draw(child, frames, clips: &clips, into: &out) }
        if clipped { out += "</g>" }
        out += "</g>\n"
    }

    private static func drawText(
        _ text: LaidOutText, _ node: LaidOutComponent, _ paint: PreviewPaint, _ frames: ScreenFrames, into out: inout String
    ) {
        let insets = node.insets
        let rtl = frames.viewport.direction == .rtl
        let left = insets.left, right = node.frame.width - insets.right
        let (x, anchor): (Float, String) = switch paint.textAlign {
        case .center: ((left + right) / 2, "middle")
        case .leading: rtl ? (right, "end") : (left, "start")
        case .trailing: rtl ? (left, "start") : (right, "end")
        }
        let lineHeight = Float(text.lineHeight)
        var top = insets.top
        if paint.centersTextVertically {
            top += max(0, (node.frame.height - insets.top - insets.bottom - Float(text.lines.count) * lineHeight) / 2)
        }
        out += "<text font-family=\"\(Markup.fontFamily(text.family))\" font-size=\"\(Markup.number(Float(text.size)))\" font-weight=\"\(text.weight)\" fill=\"\(paint.textColor)\" text-anchor=\"\(anchor)\" xml:space=\"preserve\">"
        for (index, line) in text.lines.enumerated() {
            let y = top + (Float(index) + 0.5) * lineHeight
            out += "<tspan x=\"\(Markup.number(x))\" y=\"\(Markup.number(y))\" dominant-baseline=\"central\">\(Markup.escape(line))</tspan>"
        }
        out += "</text>"
    }

    private static func drawBar(_ bar: LaidOutPart, _ node: LaidOutComponent, _ frames: ScreenFrames, into out: inout String) {
        let paint = BarPaint(bar, node, frames.viewport)
        let family = Markup.fontFamily(frames.viewport.platform.systemFamily)
        let f = bar.frame
        out += "<g data-id=\"\(Markup.escape(bar.layoutId))\" transform=\"translate(\(Markup.number(f.left)),\(Markup.number(f.top)))\">"
        out += rect(f, fill: BarPaint.background)
        switch paint.title {
        case .large(let title):
            out += "<text x=\"16\" y=\"\(Markup.number(f.height - 16))\" font-family=\"\(family)\" font-size=\"34\" font-weight=\"\(BarPaint.largeTitleWeight)\" fill=\"\(BarPaint.titleColor)\">\(Markup.escape(title))</text>"
        case .inline(let title, centered: false):
            let rtl = frames.viewport.direction == .rtl
            out += "<text x=\"\(Markup.number(rtl ? f.width - 16 : 16))\" y=\"\(Markup.number(f.height / 2))\" text-anchor=\"\(rtl ? "end" : "start")\" dominant-baseline=\"central\" font-family=\"\(family)\" font-size=\"17\" font-weight=\"\(BarPaint.inlineTitleWeight)\" fill=\"\(BarPaint.titleColor)\">\(Markup.escape(title))</text>"
        case .inline(let title, centered: true):
            out += "<text x=\"\(Markup.number(f.width / 2))\" y=\"\(Markup.number(f.height / 2))\" text-anchor=\"middle\" dominant-baseline=\"central\" font-family=\"\(family)\" font-size=\"17\" font-weight=\"\(BarPaint.inlineTitleWeight)\" fill=\"\(BarPaint.titleColor)\">\(Markup.escape(title))</text>"
        case nil:
            break
        }
        for tab in paint.tabs {
            out += "<text x=\"\(Markup.number(tab.left + tab.width / 2))\" y=\"\(Markup.number(paint.tabLabelHeight / 2))\" text-anchor=\"middle\" dominant-baseline=\"central\" font-family=\"\(family)\" font-size=\"11\" font-weight=\"\(BarPaint.tabWeight)\" fill=\"\(tab.color)\">\(Markup.escape(tab.title))</text>"
        }
        out += "</g>"
    }
}
