#!/usr/bin/env python3
"""Renders the HTML documentation in headless Chromium and checks what a person would see.

usage: python3 Tests/docs/check_screenshots.py --journey-bin PATH [--keep DIR]

Generates the site with `journey docs journeys --format html`, screenshots the index and one
journey page, and checks the pixels (decoded with the standard library): the pages are not
blank, the Graphviz diagram is drawn (its node fill colour is present) and the tables are
drawn (their header colour is present). Prints `N passed, N failed` last; exits 1 on failure.
"""
import argparse
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

NODE_FILL = (0xEE, 0xF3, 0xFB)   # step boxes in the SVG diagram
TABLE_HEAD = (0xF6, 0xF8, 0xFA)  # <th> background
SUCCESS_FILL = (0xD9, 0xF2, 0xE3)  # success ends


def decode_png(path):
    """(width, height, rows of (r, g, b) tuples) for an 8-bit RGB or RGBA PNG."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", chunk[:10])
            assert depth == 8 and colour in (2, 6), f"unsupported PNG (depth {depth}, colour {colour})"
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous, offset = [], bytearray(stride), 0
    for _ in range(height):
        kind, line = raw[offset], bytearray(raw[offset + 1:offset + 1 + stride])
        offset += 1 + stride
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                pred = left if pa <= pb and pa <= pc else (up if pb <= pc else corner)
                line[i] = (line[i] + pred) & 0xFF
        rows.append([tuple(line[i:i + 3]) for i in range(0, stride, channels)])
        previous = line
    return width, height, rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--journey-bin", required=True)
    parser.add_argument("--keep")
    args = parser.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    chromium = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    results = []

    def check(name, ok, detail=""):
        results.append(ok)
        print(("ok   " if ok else "FAIL ") + name + ("" if ok else f"\n       {detail}"))

    if not chromium or not shutil.which("dot"):
        check("chromium and Graphviz are installed (./scripts/test installs them)", False,
              f"chromium: {chromium}, dot: {shutil.which('dot')}")
        print(f"{sum(results)} passed, {len(results) - sum(results)} failed")
        return 1
    work = args.keep or tempfile.mkdtemp(prefix="journey-docs-")
    site = os.path.join(work, "site")
    run = subprocess.run([args.journey_bin, "docs", "journeys", "--out", site, "--format", "html"],
                         cwd=root, capture_output=True, text=True, timeout=300)
    check("journey docs --format html succeeds", run.returncode == 0, run.stderr)
    for page, expect_success_end in [("index.html", False), ("diia.pin-enter.html", True)]:
        png = os.path.join(work, page.replace(".html", ".png"))
        shot = subprocess.run(
            [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
             "--window-size=1280,2000", f"--screenshot={png}", "file://" + os.path.join(site, page)],
            capture_output=True, text=True, timeout=120)
        if not os.path.exists(png):
            check(f"{page} renders to PNG", False, shot.stderr[-2000:])
            continue
        width, height, rows = decode_png(png)
        pixels = [p for row in rows for p in row]
        colours = set(pixels)
        inked = sum(1 for p in pixels if p != (255, 255, 255)) / len(pixels)
        check(f"{page} renders ({width}×{height})", width == 1280 and height == 2000)
        check(f"{page} is not blank ({inked:.1%} of pixels inked)", inked > 0.02)
        check(f"{page} shows the Graphviz diagram", NODE_FILL in colours, "no pixel has the step boxes' fill colour")
        check(f"{page} shows its tables", TABLE_HEAD in colours, "no pixel has the table header colour")
        if expect_success_end:
            check(f"{page} colours success ends", SUCCESS_FILL in colours)
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    failed = len(results) - sum(results)
    print(f"{sum(results)} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
