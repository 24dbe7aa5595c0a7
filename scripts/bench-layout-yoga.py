#!/usr/bin/env python3
"""Times native Yoga (through pyyoga) on the box tree that trellis-layout-bench emits.

usage: bench-layout-yoga.py TREE.json FRAMES.json
Prints one line per scenario (tab-separated): nodes, first-layout median ms, relayout median ms,
and whether Yoga's frames equal TrellisLayout's (FRAMES.json). Only calculate_layout is timed.
"""
import json
import statistics
import sys
import time

import pyyoga as y

WIDTH = 390.0
EDGES = {"": y.Edge.All, "Horizontal": y.Edge.Horizontal, "Vertical": y.Edge.Vertical, "Top": y.Edge.Top,
         "Bottom": y.Edge.Bottom, "Left": y.Edge.Left, "Right": y.Edge.Right, "Start": y.Edge.Start, "End": y.Edge.End}


def apply_style(node, style):
    for key, value in style.items():
        if key in ("width", "height"):
            setattr(node, key, value)
        elif key == "flexGrow":
            node.flex_grow = value
        elif key == "flexShrink":
            node.flex_shrink = value
        elif key == "flexDirection":
            node.flex_direction = {"row": y.FlexDirection.Row, "column": y.FlexDirection.Column}[value]
        elif key == "flexWrap":
            node.flex_wrap = {"wrap": y.Wrap.Wrap, "nowrap": y.Wrap.NoWrap}[value]
        elif key == "alignItems":
            node.align_items = {"center": y.Align.Center, "flex-start": y.Align.FlexStart,
                                "stretch": y.Align.Stretch}[value]
        else:
            for prefix, setter in (("margin", node.set_margin), ("padding", node.set_padding),
                                   ("border", node.set_border)):
                if key.startswith(prefix) and key[len(prefix):] in EDGES:
                    setter(EDGES[key[len(prefix):]], value)
                    break
            else:
                raise SystemExit(f"bench-layout-yoga: unsupported style {key}")


def build(spec):
    node = y.Node()
    apply_style(node, spec.get("style", {}))
    for child in spec.get("children", []):
        node.add_child(build(child))
    return node


def count(spec):
    return 1 + sum(count(child) for child in spec.get("children", []))


def frames(node):
    return {"left": node.layout_left, "top": node.layout_top, "width": node.layout_width,
            "height": node.layout_height, "children": [frames(child) for child in node.children]}


def same(a, b):
    if any(abs(a[k] - b[k]) > 0.01 for k in ("left", "top", "width", "height")):
        return False
    return len(a["children"]) == len(b["children"]) and all(map(same, a["children"], b["children"]))


def main():
    spec = json.load(open(sys.argv[1]))
    expected = json.load(open(sys.argv[2]))
    nodes = count(spec)
    runs = 21 if nodes >= 10000 else 101

    first = []
    for _ in range(runs if nodes < 10000 else 11):
        root = build(spec)
        start = time.perf_counter_ns()
        root.calculate_layout(WIDTH, None, y.Direction.LTR)
        first.append((time.perf_counter_ns() - start) / 1e6)
    agrees = same(frames(root), expected)

    relayout = []
    for run in range(runs):
        root.width = WIDTH + (1 if run % 2 == 0 else 0)
        start = time.perf_counter_ns()
        root.calculate_layout(WIDTH, None, y.Direction.LTR)
        relayout.append((time.perf_counter_ns() - start) / 1e6)
    print(f"{nodes}\t{statistics.median(first):.3f}\t{statistics.median(relayout):.3f}\t{'same' if agrees else 'DIFFERENT'}")


if __name__ == "__main__":
    main()
