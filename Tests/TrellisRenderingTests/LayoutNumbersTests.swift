import Testing
import TrellisJSON
import TrellisLayout
@testable import TrellisRendering

/// The numbers of a layout answer: the screen is the viewport whatever the pixel grid, and frames
/// are written as the shortest decimal of their Float.
@Suite struct LayoutNumbersTests {
    func layout(_ root: String, _ query: String) throws -> (answer: FramedAnswer, text: String) {
        let answer = try Renderer(roots: ["s": root]).layout("s", query)
        return (answer, answer.text)
    }

    /// 412 points at scale 2.625 are 1081.5 pixels, 915 are 2401.875 and 899 are 2359.875: rounded
    /// to the pixel grid alone, the root would be 412.19 × 915.05 (or end at 899.05).
    @Test(arguments: ["", "&safeTop=24&safeBottom=16"])
    func theRootFillsTheViewportExactlyOffTheGrid(safeArea: String) throws {
        let root = #"{"type": "VStack", "id": "root", "subviews": [{"type": "List", "id": "list", "subviews": ["#
            + #"{"type": "Rectangle", "id": "a", "properties": {"height": 100}}, {"type": "Rectangle", "id": "b", "properties": {"height": "fill"}}]},"#
            + #" {"type": "Rectangle", "id": "third", "properties": {"width": "33.3%", "height": 10}}]}"#
        let (answer, _) = try layout(root, "width=412&height=915&scale=2.625" + safeArea)
        let top = safeArea.isEmpty ? 0.0 : 24, bottom = safeArea.isEmpty ? 915.0 : 899
        #expect(answer.frame("root") == AnswerFrame(0, top, 412, bottom - top))
        #expect(answer.frame("list")?.width == 412)
        // Edges away from the viewport's stay on the pixel grid.
        let third = try #require(answer.frame("third"))
        for value in [third.x, third.width] {
            #expect(abs(value * 2.625 - (value * 2.625).rounded()) < 0.001, "\(value) is not on the 1/2.625 grid")
        }
    }

    @Test func onTheGridNothingMoves() throws {
        let (answer, _) = try layout(#"{"type": "VStack", "id": "root"}"#, "width=412&height=915&scale=2")
        #expect(answer.frame("root") == AnswerFrame(0, 0, 412, 915))
    }

    /// Three equal columns of 682 points at scale 3 are 227.33333 wide (682 pixels each).
    @Test func framesAreTheShortestDecimalOfTheirFloat() throws {
        let column = #"{"type": "Rectangle", "properties": {"width": "fill"}}"#
        let (answer, text) = try layout(
            #"{"type": "HStack", "id": "row", "subviews": [\#(column), \#(column), \#(column)]}"#, "width=682&height=100&scale=3")
        #expect(answer.frame("$.root.subviews[0]")?.width == 227.33333)
        #expect(text.contains(#""width":227.33333,"#))
        #expect(!text.contains("227.3333129"))
    }

    @Test(arguments: [227.33333, 1 / 3, 0.1, 412, 1e-7, 16_777_216, -0.5] as [Float])
    func aFloatsJSONNumberReadsBackAsTheSameFloat(value: Float) {
        #expect(Float(value.json) == value)
        #expect(value.json.description == value.description)
    }

    /// The answer writer formats a point value on the stack: the bytes of `.number(value.json)`.
    @Test(arguments: [227.33333, 1 / 3, 0.1, 412, 1e-7, 16_777_216, -0.5, -3, 0, -0.0, 999, 1000, 1e15, 9_007_199_254_740_992,
                      1.8e16, -2.5e17, .greatestFiniteMagnitude, -.leastNormalMagnitude, .leastNonzeroMagnitude] as [Float])
    func theAnswerWriterWritesAPointValueAsItsJSONNumber(value: Float) {
        let written = LayoutAnswerWriter.bytes(capacity: LayoutAnswerWriter.maxNumberLength) { $0.append(value) }
        #expect(String(decoding: written, as: UTF8.self) == String(decoding: JSONWriter.encode(.number(value.json)), as: UTF8.self))
        let frame = LayoutAnswerWriter.bytes(capacity: LayoutAnswerWriter.maxFrameLength) {
            $0.append(LayoutFrame(left: value, top: -value, width: 1, height: value), first: false)
        }
        let encoded = [value, -value, 1, value].map { String(decoding: JSONWriter.encode(.number($0.json)), as: UTF8.self) }
        #expect(String(decoding: frame, as: UTF8.self) == ",\"x\":\(encoded[0]),\"y\":\(encoded[1]),\"width\":\(encoded[2]),\"height\":\(encoded[3])")
    }

    /// Edges are compared in pixels rounded half away from zero, as TrellisLayout rounds them.
    @Test(arguments: [0, 0.5, -0.5, 1.5, 2.5, -2.5, 0.49999999999999994, -0.49999999999999994, 1081.5, 2401.875, 4503599627370495.5,
                      4503599627370496, -4503599627370497, 1e300, .infinity, -.infinity] as [Double])
    func pixelsRoundHalfAwayFromZero(value: Double) {
        #expect(ScreenLayout.roundedHalfAway(value) == value.rounded(.toNearestOrAwayFromZero))
        #expect(ScreenLayout.roundedHalfAway(.nan).isNaN)
    }
}
