import TrellisJSON
import TrellisLayout
import TrellisScreens
import TrellisText

/// What a preview draws for one component, shared by the HTML and SVG renderers: colours from the
/// screen's properties, with defaults that make each type recognisable.
struct PreviewPaint {
    var fill: String?
    var textColor: String
    var cornerRadius: Float
    var borderWidth: Float
    var borderColor: String?
    var opacity: Float?
    var isCircle = false
    /// A labelled placeholder box (images: no network fetches).
    var placeholderLabel: String?
    var textAlign: TextAlign = .leading
    /// Text centred in the content box's height (a button's title), rather than from its top.
    var centersTextVertically = false
    /// Only what lies inside the frame is shown, as on a device (scroll views, carousels).
    var clipsContent = false

    enum TextAlign { case leading, center, trailing }

    init(_ node: LaidOutComponent) {
        let p = ComponentProperties(members: node.component.properties)
        let v = ComponentProperties(members: node.component.values)
        fill = p.string("backgroundColor").flatMap(Self.css)
        textColor = p.string("foregroundColor").flatMap(Self.css) ?? "rgba(17,24,39,1)"
        cornerRadius = p.number("cornerRadius") ?? 0
        borderWidth = p.number("borderWidth") ?? 0
        borderColor = p.string("borderColor").flatMap(Self.css) ?? (borderWidth > 0 ? "rgba(0,0,0,1)" : nil)
        opacity = p.number("opacity")
        switch p.string("alignment") {
        case "center": textAlign = .center
        case "trailing": textAlign = .trailing
        default: break
        }
        switch node.component.kind {
        case .rectangle, .circle:
            fill = p.string("foregroundColor").flatMap(Self.css) ?? fill ?? "rgba(0,0,0,1)"
            isCircle = node.component.kind == .circle
        case .image:
            // An icon takes its tint; a picture is a grey box.
            let tint = v.string("systemIconName") != nil ? p.string("foregroundColor").flatMap(Self.css) : nil
            fill = tint ?? fill ?? "rgba(229,231,235,1)"
            placeholderLabel = v.string("systemIconName") ?? v.string("localImageName")
                ?? v.string("imageUrl").map { url in String(url.split(separator: "/").last ?? Substring(url)) } ?? "image"
        case .divider:
            fill = p.string("foregroundColor").flatMap(Self.css) ?? fill ?? "rgba(209,213,219,1)"
        case .button:
            textAlign = .center
            centersTextVertically = true
            if cornerRadius == 0 { cornerRadius = 8 }
            switch p.string("style") {
            case "primary", nil:
                fill = fill ?? "rgba(37,99,235,1)"
                textColor = p.string("foregroundColor").flatMap(Self.css) ?? "rgba(255,255,255,1)"
            case "destructive":
                fill = fill ?? "rgba(220,38,38,1)"
                textColor = p.string("foregroundColor").flatMap(Self.css) ?? "rgba(255,255,255,1)"
            case "secondary":
                fill = fill ?? "rgba(229,231,235,1)"
                textColor = p.string("foregroundColor").flatMap(Self.css) ?? "rgba(17,24,39,1)"
            default:
                textColor = p.string("foregroundColor").flatMap(Self.css) ?? "rgba(37,99,235,1)"
            }
        case .scrollView, .carousel:
            clipsContent = true
        case .text, .hStack, .vStack, .zStack, .list, .spacer, .tabBar, .tab, .navigation, .pins:
            break
        }
    }

    /// `#RGB`, `#RRGGBB` or `#RRGGBBAA` as `rgba(r,g,b,a)`; nil for anything else (the decoder
    /// refuses other colours, and nothing unchecked reaches the markup).
    static func css(_ hex: String) -> String? {
        let digits = Array(hex.utf8.dropFirst())
        guard hex.hasPrefix("#"), [3, 6, 8].contains(digits.count) else { return nil }
        var values: [Int] = []
        for d in digits {
            switch d {
            case 0x30...0x39: values.append(Int(d - 0x30))
            case 0x41...0x46: values.append(Int(d - 0x41 + 10))
            case 0x61...0x66: values.append(Int(d - 0x61 + 10))
            default: return nil
            }
        }
        let channels: [Int] = digits.count == 3
            ? values.map { $0 * 17 } + [255]
            : stride(from: 0, to: values.count, by: 2).map { values[$0] * 16 + values[$0 + 1] } + (digits.count == 6 ? [255] : [])
        let alpha = Double(channels[3]) / 255
        return "rgba(\(channels[0]),\(channels[1]),\(channels[2]),\(Markup.number(Float(alpha))))"
    }
}

/// Escaping and number formatting for HTML and XML output.
enum Markup {
    /// Text safe inside an element or a quoted attribute, in HTML and XML alike.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default:
                // Control characters other than tab/newline are not allowed in XML 1.0.
                if scalar.value < 0x20 && scalar != "\t" && scalar != "\n" { out += "\u{FFFD}" } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out
    }

    /// A number as CSS/SVG writes it: no exponent, at most 4 decimals, no trailing zeros.
    static func number(_ value: Float) -> String {
        guard value.isFinite else { return "0" }
        let scaled = (Double(value) * 10_000).rounded()
        let negative = scaled < 0
        let magnitude = Int64(abs(scaled))
        let whole = magnitude / 10_000
        var fraction = String(magnitude % 10_000)
        fraction = String(repeating: "0", count: 4 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return (negative && magnitude != 0 ? "-" : "") + String(whole) + (fraction.isEmpty ? "" : "." + fraction)
    }

    /// A quoted CSS string that is safe as it is in an HTML `<style>` (raw text, no entities) and
    /// in an XML one: anything but letters, digits, space and `-_.:/?=` is a CSS hex escape.
    static func cssString(_ text: String) -> String {
        var out = "'"
        for scalar in text.unicodeScalars {
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", " ", "-", "_", ".", ":", "/", "?", "=", "%": out.unicodeScalars.append(scalar)
            default: out += "\\" + String(scalar.value, radix: 16) + " "
            }
        }
        return out + "'"
    }

    static func fontFamily(_ family: String) -> String {
        "'\(escape(family))', Inter, Roboto, 'Helvetica Neue', Arial, sans-serif"
    }

    /// The title of each Tab of a TabBar (for drawing the bar).
    static func tabTitles(_ node: LaidOutComponent) -> [(title: String, selected: Bool)] {
        node.subviews.map { tab in
            (ComponentProperties(members: tab.component.values).string("title") ?? "", !tab.isHidden)
        }
    }
}

/// What a preview draws in a Navigation or TabBar bar, decided once for both renderers.
struct BarPaint {
    static let background = "rgba(249,250,251,1)"
    /// The weights bar text is drawn in.
    static let inlineTitleWeight = 600, largeTitleWeight = 700, tabWeight = 500
    static let titleColor = "#111827"

    enum Title {
        /// iOS's large title, at the bar's leading edge under the status bar.
        case large(String)
        /// One line across the bar: centred on iOS, at the leading edge on Android.
        case inline(String, centered: Bool)
    }

    struct Tab {
        var title: String
        /// The tab's slot in the bar, mirrored in right-to-left layouts.
        var left: Float
        var width: Float
        var color: String
    }

    var title: Title?
    var tabs: [Tab] = []
    /// A tab bar, at the bottom of its component: the edge toward the content is its top.
    var isBottom = false
    /// Tab labels sit in the bar's first 49 points (the rest is the home-indicator area).
    var tabLabelHeight: Float

    init(_ bar: LaidOutPart, _ node: LaidOutComponent, _ viewport: LayoutViewport) {
        tabLabelHeight = min(bar.frame.height, 49)
        let properties = ComponentProperties(members: node.component.properties)
        switch node.component.kind {
        case .navigation:
            let text = ComponentProperties(members: node.component.values).string("title") ?? ""
            let inline = properties.string("titleDisplayMode") == "inline" || viewport.platform == .android
            title = inline ? .inline(text, centered: viewport.platform != .android) : .large(text)
            return
        case .tabBar:
            isBottom = true
        // The layout gives no other kind a bar (``ScreenLayout/plan(_:path:in:shown:chains:)``).
        case .text, .image, .hStack, .vStack, .zStack, .list, .rectangle, .circle, .spacer, .divider, .button, .scrollView,
            .tab, .carousel, .pins:
            break
        }
        let tint = properties.string("tintColor").flatMap(PreviewPaint.css) ?? "rgba(37,99,235,1)"
        let titles = Markup.tabTitles(node)
        let width = bar.frame.width / Float(max(1, titles.count))
        tabs = titles.enumerated().map { index, tab in
            let slot = viewport.direction == .rtl ? titles.count - 1 - index : index
            return Tab(title: tab.title, left: Float(slot) * width, width: width, color: tab.selected ? tint : "rgba(107,114,128,1)")
        }
    }
}
