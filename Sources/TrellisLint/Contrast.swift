import Foundation
import TrellisRendering

/// WCAG 2.2's contrast: relative luminance and contrast ratio (§ "contrast ratio", "relative
/// luminance"), and colours composited as a browser paints them.
enum Contrast {
    /// The relative luminance of an opaque colour (alpha is ignored: composite first).
    static func luminance(_ color: PaintedColor) -> Double {
        func linear(_ channel: Double) -> Double {
            let c = channel / 255
            return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * linear(color.red) + 0.7152 * linear(color.green) + 0.0722 * linear(color.blue)
    }

    /// (L1 + 0.05) / (L2 + 0.05), the lighter over the darker: from 1 to 21.
    static func ratio(_ a: PaintedColor, _ b: PaintedColor) -> Double {
        let la = luminance(a), lb = luminance(b)
        return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
    }

    /// `top` painted over the opaque `bottom` with `top`'s alpha times `opacity`.
    static func over(_ top: PaintedColor, _ bottom: PaintedColor, opacity: Double = 1) -> PaintedColor {
        let a = top.alpha * opacity
        return PaintedColor(
            red: top.red * a + bottom.red * (1 - a), green: top.green * a + bottom.green * (1 - a),
            blue: top.blue * a + bottom.blue * (1 - a))
    }

    /// WCAG's large text: at least 18 point, or 14 point bold — typographic points, 1/72 inch,
    /// which CSS draws as 24 and 18.67 px. An app's point is drawn as one CSS px in the preview (as
    /// a browser draws a CSS px), so the thresholds are 24 and 18.67 app points, bold from weight 700
    /// (as axe-core reads WCAG).
    static func isLarge(size: Double, weight: Int) -> Bool {
        let typographicPoints = size * 72 / 96
        return typographicPoints >= 18 || (weight >= 700 && typographicPoints >= 14)
    }

    /// The least contrast text of this size and weight needs (WCAG 1.4.3).
    static func minimum(size: Double, weight: Int) -> Double { isLarge(size: size, weight: weight) ? 3 : 4.5 }
}
