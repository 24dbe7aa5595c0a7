import TrellisLayout

/// A feed of cards whose ten views each are placed by pins (a Pins container per card), and the
/// same cards built from flexbox rows and columns, for `--pins`: what constraints cost against
/// flexbox for the same frames' worth of work.
///
/// Each card: an avatar, a title and a subtitle beside it, a badge, a full-width image, a body
/// text that wraps, three buttons and a timestamp. Texts are leaves whose measure function
/// wraps a fixed run of text at the offered width (18 points a line), so the bench measures the
/// layout, not a font.
enum PinsFeed {
    static let cardCount = 100
    static let viewsPerCard = 10

    static let pins = [
        "H:|-12-[avatar(40)]-8-[title]-(>=8)-[badge(24)]-12-|",
        "H:[avatar]-8-[subtitle]-(>=12)-|",
        "V:|-12-[avatar(40)]-12-[image(120)]-8-[body]-8-[like]-12-|",
        "V:|-12-[title]-2-[subtitle]",
        "V:[badge(24)]",
        "H:|[image]|",
        "H:|-12-[body]-12-|",
        "H:|-12-[like]-16-[comment]-16-[share]-(>=12)-[timestamp]-12-|",
    ]
    static let align = ["badge": "centerY:title", "comment": "top:like", "share": "top:like", "timestamp": "centerY:like"]
    static let views = ["avatar", "title", "subtitle", "badge", "image", "body", "like", "comment", "share", "timestamp"]

    /// The constraints of one card, parsed once (parsing is the server's work at load, not per layout).
    static let constraints: [PinConstraint] = {
        var constraints: [PinConstraint] = []
        do {
            for format in pins { constraints += try VisualFormat.parse(format).constraints }
            for (view, text) in align.sorted(by: { $0.key < $1.key }) { constraints += try PinAlignment.parse(text, view: view).constraints }
        } catch {
            fatalError("pins feed: \(error)")
        }
        return constraints
    }()

    /// A text leaf: `characters` of 7-point glyphs wrapped at the offered width, 18 points a line.
    static func text(_ characters: Int) -> LayoutNode {
        LayoutNode(measure: { width, widthMode, _, _ in
            let natural = Float(characters * 7)
            let used = widthMode == .undefined || width.isNaN ? natural : min(natural, max(width, 7))
            let lines = (natural / used).rounded(.up)
            return Size(width: widthMode == .exactly ? width : used, height: lines * 18)
        })
    }

    static func box(_ width: Float?, _ height: Float?) -> LayoutNode {
        var style = Style()
        if let width { style.width = .points(width) }
        if let height { style.height = .points(height) }
        return LayoutNode(style: style)
    }

    static func feedRoot() -> LayoutNode {
        var style = Style()
        style.width = .points(Feed.viewportWidth)
        style.padding.all = .points(8)
        return LayoutNode(style: style)
    }

    /// The leaves of one card, in `views` order.
    static func leaves() -> [LayoutNode] {
        [box(40, 40), text(24), text(14), box(24, 24), box(nil, 120), text(90), text(5), text(8), text(6), text(10)]
    }

    static func pinnedFeed() -> LayoutNode {
        let root = feedRoot()
        for _ in 0..<cardCount {
            var style = Style()
            style.margin.bottom = .points(8)
            let card = LayoutNode(style: style)
            card.pinLayout = PinLayout(constraints: constraints, views: views)
            for leaf in leaves() { card.addChild(leaf) }
            root.addChild(card)
        }
        return root
    }

    /// The same card from rows and columns: header row (avatar, title over subtitle, badge), the
    /// image, the body, and a footer row of buttons and the timestamp.
    static func flexFeed() -> LayoutNode {
        let root = feedRoot()
        for _ in 0..<cardCount {
            let leaves = leaves()
            var cardStyle = Style()
            cardStyle.margin.bottom = .points(8)
            let card = LayoutNode(style: cardStyle)
            var rowStyle = Style()
            rowStyle.flexDirection = .row
            rowStyle.alignItems = .center
            rowStyle.padding.all = .points(12)
            let header = LayoutNode(style: rowStyle)
            var titlesStyle = Style()
            titlesStyle.flexGrow = 1
            titlesStyle.flexShrink = 1
            titlesStyle.margin.horizontal = .points(8)
            let titles = LayoutNode(style: titlesStyle)
            titles.addChild(leaves[1])
            titles.addChild(leaves[2])
            header.addChild(leaves[0])
            header.addChild(titles)
            header.addChild(leaves[3])
            var bodyStyle = Style()
            bodyStyle.margin.all = .points(8)
            bodyStyle.margin.horizontal = .points(12)
            leaves[5].style = bodyStyle
            let footer = LayoutNode(style: rowStyle)
            for button in leaves[6...8] {
                var style = Style()
                style.margin.end = .points(16)
                button.style = style
                footer.addChild(button)
            }
            var spacerStyle = Style()
            spacerStyle.flexGrow = 1
            footer.addChild(LayoutNode(style: spacerStyle))
            footer.addChild(leaves[9])
            card.addChild(header)
            card.addChild(leaves[4])
            card.addChild(leaves[5])
            card.addChild(footer)
            root.addChild(card)
        }
        return root
    }

    /// Median milliseconds of a first layout of a fresh tree and of a relayout at a new width.
    static func time(_ make: () -> LayoutNode, runs: Int) -> (first: Double, relayout: Double) {
        let clock = ContinuousClock()
        var first: [Double] = [], relayout: [Double] = []
        for run in 0..<runs {
            let root = make()
            var start = clock.now
            root.calculateLayout(availableWidth: Feed.viewportWidth, availableHeight: nil)
            first.append(milliseconds(clock.now - start))
            var style = root.style
            style.width = .points(Feed.viewportWidth + Float(run % 2 == 0 ? 1 : -1))
            root.style = style
            start = clock.now
            root.calculateLayout(availableWidth: Feed.viewportWidth, availableHeight: nil)
            relayout.append(milliseconds(clock.now - start))
        }
        return (median(first), median(relayout))
    }

    /// Prints both trees' times side by side, and checks both put the card's views in place.
    static func run(runs: Int) {
        let pinned = pinnedFeed(), flex = flexFeed()
        pinned.calculateLayout(availableWidth: Feed.viewportWidth, availableHeight: nil)
        flex.calculateLayout(availableWidth: Feed.viewportWidth, availableHeight: nil)
        let views = countNodes(pinned) - 1 - cardCount
        let pins = time(pinnedFeed, runs: runs), boxes = time(flexFeed, runs: runs)
        print("\(cardCount) cards, \(views) pinned views (\(constraints.count) constraints a card); median ms per calculateLayout, \(runs) runs")
        print("tree\tfirst layout\trelayout\tfeed height")
        print("pins\t\(format(pins.first))\t\(format(pins.relayout))\t\(pinned.frame.height)")
        print("flexbox\t\(format(boxes.first))\t\(format(boxes.relayout))\t\(flex.frame.height)")
        print("pins / flexbox\t\(format(pins.first / boxes.first))\t\(format(pins.relayout / boxes.relayout))")
        print("per pinned view\t\(format(pins.first * 1000 / Double(views))) µs\t\(format(pins.relayout * 1000 / Double(views))) µs")
    }
}
