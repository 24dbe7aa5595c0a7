import TrellisJSON
import TrellisLayout
import TrellisRoutes
import TrellisScreens
import TrellisText

/// `GET /preview/{id}`: the layout as an HTML page of absolutely positioned boxes, one per
/// component, each with `data-id` = its layout id. Text is drawn line by line as TrellisText broke
/// it, in the face it was measured with (served by `GET /fonts/{file}`, declared by `fontFaces`),
/// with ligatures off as TrellisText measures. Buttons are `<button>`s and pictures `<img>`s with no
/// source, named as a screen reader names them (``Semantics``), so an accessibility checker judges
/// the page as TrellisLint judges the screen (docs/lint.md).
public enum PreviewHTML {
    /// - Parameters:
    ///   - linkQuery: the query a link to another preview carries on (who is looking, at what size);
    ///     each component that navigates becomes a link to `/preview?url=…` with it.
    ///   - fontFaces: the `@font-face` rules of the faces the page draws (``WebFonts``).
    public static func render(_ frames: ScreenFrames, check: Bool, linkQuery: String = "", fontFaces: String = "") -> String {
        let v = frames.viewport
        var out = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=\(Markup.number(v.width))">
            <title>\(Markup.escape(frames.screen.title ?? frames.screen.id)) — Trellis preview</title>
            <style>
            \(fontFaces)html,body{margin:0;padding:0;background:#fff}
            #screen{position:relative;overflow:hidden;background:#fff;width:\(Markup.number(v.width))px;height:\(Markup.number(v.height))px}
            #screen div{position:absolute;box-sizing:border-box;margin:0;padding:0}
            .line{position:absolute;white-space:pre;overflow:hidden;text-overflow:clip;font-variant-ligatures:none;font-kerning:normal}
            .ph{position:absolute;display:flex;align-items:center;justify-content:center;overflow:hidden;font:11px/13px system-ui,sans-serif;color:#6B7280;text-align:center;word-break:break-all}
            .ph::after{content:attr(data-label)}
            img.image{position:absolute;left:0;top:0;width:100%;height:100%;opacity:0}
            #screen button{position:absolute;box-sizing:border-box;margin:0;padding:0;border:0;background:transparent;font:inherit;color:inherit;text-align:inherit;cursor:pointer}
            .target{position:absolute;left:0;top:0;right:0;bottom:0;z-index:1;cursor:pointer}
            .bar-title{position:absolute;white-space:pre;overflow:hidden}
            a.link{position:absolute;left:0;top:0;right:0;bottom:0;z-index:1;cursor:pointer}
            a.link:hover{outline:2px solid rgba(37,99,235,.6);outline-offset:-2px}
            </style></head>
            <body><div id="screen" dir="\(v.direction.rawValue)">
            """
        if let root = frames.root { draw(root, frames, linkQuery, check: check, into: &out) }
        out += "</div>\n"
        if check { out += checkScript }
        out += "</body></html>\n"
        return out
    }

    private static func box(_ frame: LayoutFrame) -> String {
        "left:\(Markup.number(frame.left))px;top:\(Markup.number(frame.top))px;width:\(Markup.number(frame.width))px;height:\(Markup.number(frame.height))px"
    }

    /// Once the web fonts are in, reports where the browser drew every element into
    /// `<pre id="positions">`, and into `<pre id="text">` each text line's drawn extent (a Range
    /// over its text), its box, the width TrellisText measured (`data-width`), its font, and the
    /// state of every `@font-face` — for the Chromium test, and for people.
    static let checkScript = "<script>" + checkScriptText + "</script>\n"

    /// The text of ``checkScript``'s element, which the preview's Content-Security-Policy allows by
    /// its SHA-256 and allows nothing else.
    public static let checkScriptText = "\n" + """
        (function(){function report(){var r=[];document.querySelectorAll('[data-id]').forEach(function(e){var b=e.getBoundingClientRect();
        r.push({id:e.getAttribute('data-id'),x:b.x,y:b.y,width:b.width,height:b.height});});
        var t=[];document.querySelectorAll('.line').forEach(function(e){var g=document.createRange();g.selectNodeContents(e);var b=g.getBoundingClientRect(),s=e.getBoundingClientRect(),c=getComputedStyle(e);
        t.push({id:e.parentElement.getAttribute('data-id'),text:e.textContent,left:b.left,right:b.right,width:b.width,boxLeft:s.left,boxRight:s.right,
        measured:parseFloat(e.getAttribute('data-width')),family:c.fontFamily.split(',')[0].replace(/["']/g,'').trim(),weight:c.fontWeight});});
        var f=[];if(document.fonts){document.fonts.forEach(function(x){f.push({family:x.family.replace(/["']/g,''),weight:x.weight,status:x.status});});}
        [['positions',r],['text',{lines:t,fonts:f}]].forEach(function(a){var p=document.createElement('pre');p.id=a[0];p.textContent=JSON.stringify(a[1]);document.body.appendChild(p);});}
        if(document.fonts&&document.fonts.ready){document.fonts.ready.then(report);}else{report();}})();
        """ + "\n"

    private static func draw(_ node: LaidOutComponent, _ frames: ScreenFrames, _ linkQuery: String, check: Bool, into out: inout String) {
        guard !node.isHidden else { return }
        let paint = PreviewPaint(node)
        var css = box(node.frame)
        let isImage = paint.placeholderLabel != nil
        if let fill = paint.fill, !isImage { css += ";background:\(fill)" }
        if isImage {
            // The picture fills the content box; padding stays clear.
        } else if paint.isCircle { css += ";border-radius:50%" } else if paint.cornerRadius > 0 { css += ";border-radius:\(Markup.number(paint.cornerRadius))px" }
        if let color = paint.borderColor, paint.borderWidth > 0 {
            css += ";box-shadow:inset 0 0 0 \(Markup.number(paint.borderWidth))px \(color)"  // a CSS border would move the children
        }
        if let opacity = paint.opacity { css += ";opacity:\(Markup.number(opacity))" }
        if paint.clipsContent { css += ";overflow:hidden" }
        // A button is a <button>, named by its accessibilityLabel or its title as an app's is, so
        // that a checker (axe-core, scripts/lint-vs-axe) judges what a screen reader would say.
        let element = node.component.kind == .button ? "button" : "div"
        let semantics = Semantics(node)
        out += "<\(element) data-id=\"\(Markup.escape(node.layoutId))\" data-type=\"\(Markup.escape(node.component.type))\"\(element == "button" ? " type=\"button\"" + semantics.ariaLabel : "") style=\"\(css)\">"
        if let label = paint.placeholderLabel {
            let i = node.insets
            var ph = "top:\(Markup.number(i.top))px;left:\(Markup.number(i.left))px;bottom:\(Markup.number(i.bottom))px;right:\(Markup.number(i.right))px"
            if let fill = paint.fill { ph += ";background:\(fill)" }
            if paint.cornerRadius > 0 { ph += ";border-radius:\(Markup.number(paint.cornerRadius))px" }
            // Too small for a legible label (an icon): the box alone, the name as a tooltip. The
            // label is the preview's, not the app's: drawn by CSS, it is no text of the page.
            let legible = node.frame.width >= 40 && node.frame.height >= 20
            out += "<span class=\"ph\" title=\"\(Markup.escape(label))\"\(legible ? " data-label=\"\(Markup.escape(label))\"" : "") style=\"\(ph)\">"
            // The picture as the app shows it to a screen reader: its label, nothing when
            // decorative, and no alt at all when it has neither. No source: nothing is fetched.
            out += "<img class=\"image\"\(semantics.alt)></span>"
        }
        if let text = node.text { drawText(text, node, paint, frames, check: check, into: &out) }
        if let bar = node.bar { drawBar(bar, node, frames, into: &out) }
        for separator in node.separators {
            out += "<div data-id=\"\(Markup.escape(separator.layoutId))\" style=\"\(box(separator.frame));background:rgba(229,231,235,1)\"></div>"
        }
        for child in node.subviews { draw(child, frames, linkQuery, check: check, into: &out) }
        if let url = navigation(node.component.properties.first { $0.key == "action" }?.value) {
            // Last, so it lies over the component's own drawing; a child's link lies over its parent's.
            let href = "/preview?url=" + PercentEncoding.encode(url) + (linkQuery.isEmpty ? "" : "&" + linkQuery)
            out += "<a class=\"link\" href=\"\(Markup.escape(href))\" title=\"\(Markup.escape(url))\"\(semantics.ariaLabel)></a>"
        } else if semantics.isTappable && node.component.kind != .button {
            // Another action (track, share, …): a control all the same, the size a finger meets.
            out += "<span class=\"target\" role=\"button\" tabindex=\"0\"\(semantics.ariaLabel)></span>"
        }
        out += "</\(element)>\n"
    }

    /// The in-app URL an action navigates to: a `navigate`'s, or the first in a `sequence`.
    static func navigation(_ action: JSONValue?) -> String? {
        guard let action else { return nil }
        switch action["type"]?.stringValue {
        case "navigate": return action["url"]?.stringValue
        case "sequence": return action["actions"]?.arrayValue?.lazy.compactMap(navigation).first
        default: return nil
        }
    }

    private static func drawText(
        _ text: LaidOutText, _ node: LaidOutComponent, _ paint: PreviewPaint, _ frames: ScreenFrames, check: Bool,
        into out: inout String
    ) {
        let align = switch paint.textAlign { case .leading: "start"; case .center: "center"; case .trailing: "end" }
        let insets = node.insets
        let lineCount = Float(text.lines.count)
        // A button's title is centred vertically; text starts at the top of its content box.
        let contentHeight = node.frame.height - insets.top - insets.bottom
        var top = insets.top
        if paint.centersTextVertically { top += max(0, (contentHeight - lineCount * Float(text.lineHeight)) / 2) }
        let font = "font-family:\(Markup.fontFamily(text.family));font-size:\(Markup.number(Float(text.size)))px;font-weight:\(text.weight);line-height:\(Markup.number(Float(text.lineHeight)))px;color:\(paint.textColor);text-align:\(align)"
        // Each line is aligned by the layout's direction, but its own text runs in the direction
        // of its first strong character (`<bdi>`), as both platforms lay out a paragraph: English in
        // a right-to-left screen keeps "VAT." with its period after the T, shaped (and kerned) as
        // one run, as TrellisText measured it.
        for (index, line) in text.lines.enumerated() {
            let y = top + Float(index) * Float(text.lineHeight)
            let measured = check && index < text.lineWidths.count ? " data-width=\"\(Markup.number(Float(text.lineWidths[index])))\"" : ""
            out += "<span class=\"line\"\(measured) style=\"left:\(Markup.number(insets.left))px;right:\(Markup.number(insets.right))px;top:\(Markup.number(y))px;height:\(Markup.number(Float(text.lineHeight)))px;\(font)\"><bdi>\(Markup.escape(line))</bdi></span>"
        }
    }

    private static func drawBar(_ bar: LaidOutPart, _ node: LaidOutComponent, _ frames: ScreenFrames, into out: inout String) {
        let paint = BarPaint(bar, node, frames.viewport)
        let family = Markup.fontFamily(frames.viewport.platform.systemFamily)
        let edge = paint.isBottom ? "inset 0 1px 0 rgba(209,213,219,1)" : "inset 0 -1px 0 rgba(229,231,235,1)"
        out += "<div data-id=\"\(Markup.escape(bar.layoutId))\" style=\"\(box(bar.frame));background:\(BarPaint.background);box-shadow:\(edge)\">"
        switch paint.title {
        case .inline(let title, let centered):
            out += "<span class=\"bar-title\" style=\"left:16px;right:16px;top:0;font:\(BarPaint.inlineTitleWeight) 17px \(family);line-height:\(Markup.number(bar.frame.height))px;text-align:\(centered ? "center" : "start");color:\(BarPaint.titleColor)\">\(Markup.escape(title))</span>"
        case .large(let title):
            out += "<span class=\"bar-title\" style=\"left:16px;right:16px;bottom:8px;font:\(BarPaint.largeTitleWeight) 34px \(family);line-height:41px;text-align:start;color:\(BarPaint.titleColor)\">\(Markup.escape(title))</span>"
        case nil:
            break
        }
        for tab in paint.tabs {
            out += "<span class=\"bar-title\" style=\"left:\(Markup.number(tab.left))px;width:\(Markup.number(tab.width))px;top:0;font:\(BarPaint.tabWeight) 11px \(family);line-height:\(Markup.number(paint.tabLabelHeight))px;text-align:center;color:\(tab.color)\">\(Markup.escape(tab.title))</span>"
        }
        out += "</div>"
    }
}

extension PreviewHTML {
    /// What a screen reader is told of a component, as HTML attributes.
    struct Semantics {
        /// ` aria-label="…"` from a non-blank `accessibilityLabel`, else nothing: a control's name
        /// (a button's, a link's); a div without a role takes none.
        var ariaLabel = ""
        /// An image's ` alt="…"`: its label, empty when decorative, absent with neither.
        var alt = ""
        /// Whether the component has an action (a control).
        var isTappable: Bool

        init(_ node: LaidOutComponent) {
            let properties = ComponentProperties(members: node.component.properties)
            let label = properties.string("accessibilityLabel").flatMap { $0.allSatisfy(\.isWhitespace) ? nil : $0 }
            isTappable = properties["action"] != nil
            if let label { ariaLabel = " aria-label=\"\(Markup.escape(label))\"" }
            if node.component.kind == .image {
                if let label { alt = " alt=\"\(Markup.escape(label))\"" } else if properties.bool("decorative") == true { alt = " alt=\"\"" }
            }
        }
    }

    /// The page a preview link leads to when the app handles the URL itself: which handler, with
    /// what parameters, and how it would be presented.
    public static func nativeTarget(_ resolution: RouteResolution, handler: String) -> String {
        let rows = resolution.parameters.map { "<tr><th>\(Markup.escape($0.name))</th><td>\(Markup.escape(JSONWriter.string($0.value)))</td></tr>" }
        let redirects = resolution.redirects.map { "<li>\(Markup.escape($0.from)) → \(Markup.escape($0.to)) (\(Markup.escape($0.because.description)))</li>" }
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>\(Markup.escape(handler)) — Trellis preview</title>
            <style>body{font:15px/1.5 system-ui,sans-serif;margin:24px;color:#111827}code{background:#F3F4F6;padding:1px 4px;border-radius:4px}th{text-align:left;padding-right:16px}</style>
            </head><body>
            <p><code>\(Markup.escape(resolution.url))</code> opens <strong>\(Markup.escape(handler))</strong>, a screen the app implements itself
            (route <code>\(Markup.escape(resolution.route))</code>, presented as \(Markup.escape(resolution.presentation.style.rawValue))).</p>
            \(rows.isEmpty ? "" : "<table>" + rows.joined() + "</table>")
            \(redirects.isEmpty ? "" : "<p>Redirected on the way:</p><ul>" + redirects.joined() + "</ul>")
            </body></html>

            """
    }
}
