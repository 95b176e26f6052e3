#!/usr/bin/env python3
"""Checks the output of `tierfs heatmap` and `tierfs watch` for admin_view_test.sh.

  admin_view_check.py text SEGMENTS.json LS.json HEATMAP.txt [--colour] [--width=N]
  admin_view_check.py png SEGMENTS.json LS.json PNG
  admin_view_check.py heatmap-json SEGMENTS.json LS.json HEATMAP.json
  admin_view_check.py watch WATCH.txt N TIERS
  admin_view_check.py watch-json WATCH.jsonl N TIERS
  admin_view_check.py trace HEATMAP.txt TRACE.csv WINDOWS SEGMENT_SIZE [--colour]
  admin_view_check.py trace-png PNG HEATMAP.txt WINDOWS

TRACE.csv is `tierfs-trace to-csv --full` of the trace `tierfs heatmap --trace` drew.

SEGMENTS.json and LS.json are `tierfs --json segments` and `tierfs --json ls` of
the same directory. Prints what is wrong and exits 1, or exits 0.
"""
import json
import math
import re
import struct
import sys
import zlib

GLYPHS = " .:-=+*#%@"
SGR = re.compile(r"\x1b\[([0-9;]*)m")


def fail(message):
    print(message)
    sys.exit(1)


def files_of(segments_path, dir_prefix="/db/"):
    """{relative name: {segment: report}} of the placed segments."""
    files = {}
    for r in json.load(open(segments_path)):
        name = r["file"][len(dir_prefix):] if r["file"].startswith(dir_prefix) else r["file"]
        files.setdefault(name, {})[r["segment"]] = r
    return files


def expected_glyph(value, hottest):
    """The glyph of `value`, or the set of two glyphs it may be at a step's edge."""
    if value <= 0 or hottest <= 0:
        return {" "}
    x = 9 * min(1.0, value / hottest)
    out = {GLYPHS[max(1, min(9, math.ceil(x)))]}
    if abs(x - round(x)) < 1e-6:
        for nudge in (-1e-3, 1e-3):
            out.add(GLYPHS[max(1, min(9, math.ceil(x + nudge)))])
    return out


def parse_rows(text, colour):
    """{name: [(glyph, sgr params or None)]} of the file lines, continuation lines joined."""
    rows, current = {}, None
    for line in text.splitlines():
        # name, cells per tier, copies (not with --trace), the cells
        m = re.match(r"^  (\S+)\s+[0-9/]+\s+(?:(?:-|[0-9]+)\s+)?\|(.*)\|$", line)
        cont = re.match(r"^ +\|(.*)\|$", line)
        if m:
            current = m.group(1)
            body = m.group(2)
            rows[current] = []
        elif cont and current is not None:
            body = cont.group(1)
        else:
            current = None
            continue
        style = None
        i = 0
        while i < len(body):
            s = SGR.match(body, i)
            if s:
                style = s.group(1)
                i = s.end()
                continue
            rows[current].append((body[i], style if colour else None))
            i += 1
    return rows


def check_text(segments_path, ls_path, text_path, colour, width):
    files = files_of(segments_path)
    levels = {f["name"][4:]: f["level"] for f in json.load(open(ls_path))}
    text = open(text_path).read()
    if width:
        long = [l for l in text.splitlines() if l.startswith("  ") and len(SGR.sub("", l)) > width]
        if long:
            fail("lines longer than %d columns: %r" % (width, long[:2]))
    m = re.search(r"in equal steps up to the hottest segment's ([0-9.]+)", text)
    if not m:
        fail("no scale line:\n" + text)
    hottest = max(r["heat"] for f in files.values() for r in f.values())
    if abs(float(m.group(1)) - hottest) > 0.051:
        fail("scale says the hottest is %s, the segments' hottest is %f" % (m.group(1), hottest))
    for t, name in ((0, "green"), (1, "yellow")):
        if not re.search(r"\b%d \S+ \(%s\)" % (t, name), SGR.sub("", text)):
            fail("the legend does not name tier %d's colour, %s" % (t, name))
    rows = parse_rows(text, colour)
    ssts = [n for n in levels if n.endswith(".sst")]
    if not ssts:
        fail("no table file in ls")
    for name in ssts:
        if name not in rows:
            fail("table file %s has no line:\n%s" % (name, text))
    for name, segs in files.items():
        cells = rows.get(name)
        if cells is None:
            fail("%s has placed segments but no line" % name)
        if len(cells) != max(segs) + 1:
            fail("%s: %d glyphs for %d segments" % (name, len(cells), max(segs) + 1))
        for s, r in segs.items():
            glyph, style = cells[s]
            if glyph not in expected_glyph(r["heat"], hottest):
                fail("%s:%d: glyph %r for heat %f of %f" % (name, s, glyph, r["heat"], hottest))
            if colour:
                want = "0;%s%d;%d" % ("4;" if r["copy_tier"] >= 0 else "", 42 + r["tier"],
                                       30 if r["tier"] in (0, 1, 4) else 97)
                if style != want:
                    fail("%s:%d on tier %d (copy %d): style %r, expected %r" %
                         (name, s, r["tier"], r["copy_tier"], style, want))
    # Files are grouped by level: each line comes under its own level's title.
    level = None
    for line in text.splitlines():
        t = re.match(r"^level (\d+): ", line)
        if t:
            level = int(t.group(1))
        elif line.startswith("no level"):
            level = -1
        m = re.match(r"^  (\S+\.sst) ", line)
        if m and levels.get(m.group(1)) != level:
            fail("%s (level %s) is listed under level %s" %
                 (m.group(1), levels.get(m.group(1)), level))
    if colour != ("\x1b[" in text):
        fail("colour %s, but the text %s ANSI sequences" % (colour, "has no" if colour else "has"))


def read_png(path):
    """(width, height, rows of (r, g, b)) of an 8-bit RGB PNG, checking its CRCs."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("%s is not a PNG" % path)
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        if zlib.crc32(kind + body) != crc:
            fail("%s: bad CRC in chunk %r" % (path, kind))
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    if not ihdr or kind != b"IEND":
        fail("%s: no IHDR or no IEND" % path)
    width, height, depth, colour_type = ihdr[:4]
    if depth != 8 or colour_type != 2:
        fail("%s: depth %d colour type %d, expected 8-bit RGB" % (path, depth, colour_type))
    raw = zlib.decompress(idat)
    stride = width * 3
    if len(raw) != height * (stride + 1):
        fail("%s: %d bytes of pixels for %d x %d" % (path, len(raw), width, height))
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - 3] if i >= 3 else 0
            b = prev[i]
            c = prev[i - 3] if i >= 3 else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * 3:x * 3 + 3]) for x in range(width)])
        prev = line
    return width, height, rows


def check_png(segments_path, ls_path, png_path):
    files = files_of(segments_path)
    levels = {f["name"][4:]: f["level"] for f in json.load(open(ls_path))}
    # The rows' order: by level (unknown last), by name within a level.
    order = sorted(files, key=lambda n: (levels.get(n, -1) % (1 << 32), n))
    columns = max(max(s) + 1 for s in files.values())
    width, height, rows = read_png(png_path)
    cell = 8
    if (width, height) != (columns * cell, len(files) * cell):
        fail("%s is %d x %d, expected %d x %d (%d segments wide, %d files, %d-pixel cells)" %
             (png_path, width, height, columns * cell, len(files) * cell, columns, len(files),
              cell))
    # Each cell's lower part (below where a copy is marked) has its home tier's hue: tier 0
    # green (g > r, g > b), tier 1 yellow (r > g > b); no segment grey.
    for i, name in enumerate(order):
        row = rows[i * cell + cell - 1]
        for s in range(columns):
            r, g, b = row[s * cell + cell // 2]
            hue = 0 if g > r and g > b else 1 if r > g > b else None
            want = files[name][s]["tier"] if s in files[name] else None
            if hue != want:
                fail("%s: %s:%d has the colour %r, expected tier %s's" %
                     (png_path, name, s, (r, g, b), want))


def check_watch(path, n, tiers):
    text = open(path).read()
    blocks = [b for b in re.split(r"(?m)^(?=tierfs watch )", text) if b.strip()]
    if len(blocks) != n:
        fail("%d blocks, expected %d:\n%s" % (len(blocks), n, text))
    for k, block in enumerate(blocks, 1):
        if not re.match(r"tierfs watch \S+ \(process \d+\): sample %d of %d at " % (k, n), block):
            fail("block %d's title:\n%s" % (k, block))
        lines = block.splitlines()
        if not lines[1].split()[:6] == ["tier", "device", "r/s", "w/s", "rMB/s", "wMB/s"]:
            fail("block %d's header: %r" % (k, lines[1]))
        io = 0.0
        for t in range(tiers):
            cols = lines[2 + t].split()
            if cols[0] != str(t) or not cols[-1].endswith("%"):
                fail("block %d's row for tier %d: %r" % (k, t, lines[2 + t]))
            io += float(cols[2]) + float(cols[3])
        if io <= 0:
            fail("block %d: no reads or writes per second on any tier:\n%s" % (k, block))
        if not re.search(r"(?m)^hit share: ", block) or not re.search(r"(?m)^moves ", block):
            fail("block %d has no hit share or moves line:\n%s" % (k, block))


def check_heatmap_json(segments_path, ls_path, json_path):
    """Every placed segment of SEGMENTS.json, and nothing else, in its file's row with its
    tier, copy and heat; each file's level as LS.json has it; rows by level, then name."""
    segs = json.load(open(segments_path))
    levels = {f["name"]: f["level"] for f in json.load(open(ls_path))}
    got = json.load(open(json_path))
    if not got.get("tiers") or "files" not in got:
        fail("%s: no tiers or no files: %r" % (json_path, list(got)))
    rows = got["files"]
    want = {}
    for r in segs:
        want.setdefault(r["file"], {})[r["segment"]] = r
    if sorted(r["file"] for r in rows) != sorted(want):
        fail("%s: files %r, expected %r" % (json_path, sorted(r["file"] for r in rows),
                                              sorted(want)))
    order = [(r["level"] % 1000, r["name"]) for r in rows]  # -1 (unknown) sorts last
    if order != sorted(order):
        fail("%s: rows not by level, then name: %r" % (json_path, order))
    for row in rows:
        f = row["file"]
        if row["level"] != levels.get(f):
            fail("%s: %s at level %r, ls says %r" % (json_path, f, row["level"], levels.get(f)))
        if "/db/" + row["name"] != f:
            fail("%s: %s named %r" % (json_path, f, row["name"]))
        cells = {c["segment"]: c for c in row["segments"] if c["tier"] >= 0}
        if sorted(cells) != sorted(want[f]):
            fail("%s: %s has segments %r, expected %r" % (json_path, f, sorted(cells),
                                                           sorted(want[f])))
        for i, c in cells.items():
            r = want[f][i]
            if (c["tier"], c["copy_tier"]) != (r["tier"], r["copy_tier"]) or \
                    not math.isclose(c["heat"], r["heat"], rel_tol=1e-9, abs_tol=1e-9):
                fail("%s: %s:%d is %r, segments says %r" % (json_path, f, i, c, r))
        per_tier = [sum(1 for c in cells.values() if c["tier"] == t)
                    for t in range(len(got["tiers"]))]
        if row["segments_per_tier"] != per_tier or \
                row["copies"] != sum(1 for c in cells.values() if c["copy_tier"] >= 0):
            fail("%s: %s's counts %r / %r" % (json_path, f, row["segments_per_tier"],
                                              row["copies"]))
    hottest = max((r["heat"] for r in segs), default=0)
    if not math.isclose(got["max_value"], hottest, rel_tol=1e-9, abs_tol=1e-9):
        fail("%s: max_value %r, the hottest segment %r" % (json_path, got["max_value"], hottest))


def check_watch_json(path, n, tiers):
    """N lines, each one sample's object with every tier's rates, as the text blocks."""
    lines = open(path).read().splitlines()
    if len(lines) != n:
        fail("%d lines, expected %d:\n%s" % (len(lines), n, "\n".join(lines)))
    for k, line in enumerate(lines, 1):
        s = json.loads(line)
        if s["sample"] != k or s["seconds"] <= 0 or not s["pid"]:
            fail("line %d: sample %r over %r s, pid %r" % (k, s["sample"], s["seconds"], s["pid"]))
        if [t["tier"] for t in s["tiers"]] != list(range(tiers)):
            fail("line %d: tiers %r" % (k, [t["tier"] for t in s["tiers"]]))
        io = 0.0
        for t in s["tiers"]:
            for key in ("reads_per_s", "writes_per_s", "read_mb_per_s", "write_mb_per_s",
                        "used_bytes", "capacity"):
                if not isinstance(t[key], (int, float)) or t[key] < 0:
                    fail("line %d, tier %d: %s %r" % (k, t["tier"], key, t.get(key)))
            for key in ("read_await_us", "write_await_us"):
                if t[key] is not None and t[key] < 0:
                    fail("line %d, tier %d: %s %r" % (k, t["tier"], key, t[key]))
            io += t["reads_per_s"] + t["writes_per_s"]
        if io <= 0:
            fail("line %d: no reads or writes per second on any tier: %s" % (k, line))
        share = s["tier0_share"]
        if share is not None and not 0 <= share <= 1:
            fail("line %d: tier 0's share %r" % (k, share))
        if "enabled" not in s["migration"]:
            fail("line %d: no migration object: %s" % (k, line))


def check_trace(text_path, csv_path, windows, segment_size, colour):
    """Recounts each segment's user reads per window from the CSV and compares."""
    rows = [l.rstrip("\n").split(",") for l in open(csv_path)][1:]
    end = max(int(r[0]) for r in rows)
    width = end // windows + 1
    counts, levels = {}, {}  # (file id, kind, segment) -> [window][tier or None]
    for time_ns, _, file_id, kind, offset, size, kind_io, _, level, tier, _ in rows:
        offset, size = int(offset), int(size)
        if kind_io != "R" or size == 0:
            continue
        w = min(int(time_ns) // width, windows - 1)
        for seg in range(offset // segment_size, (offset + size - 1) // segment_size + 1):
            key = (int(file_id), kind, seg)
            cells = counts.setdefault(key, [dict() for _ in range(windows)])
            t = int(tier) if int(tier) >= 0 else None
            cells[w][t] = cells[w].get(t, 0) + 1
            if int(level) >= 0:
                levels[key] = int(level)
    hottest = max(sum(c.values()) for cells in counts.values() for c in cells)
    text = open(text_path).read()
    got = parse_rows(text, colour)
    names = {"#%d.%s:%d" % k: k for k in counts}
    if set(got) != set(names):
        fail("rows %s, expected %s" % (sorted(set(got) ^ set(names))[:5], "the read segments"))
    for name, key in names.items():
        cells = got[name]
        if len(cells) != windows:
            fail("%s: %d glyphs for %d windows" % (name, len(cells), windows))
        for w, (glyph, style) in enumerate(cells):
            n = sum(counts[key][w].values())
            if glyph not in expected_glyph(n, hottest):
                fail("%s window %d: glyph %r for %d reads of %d" % (name, w, glyph, n, hottest))
            if colour:
                tiers = {t: c for t, c in counts[key][w].items() if t is not None}
                tier = min(tiers, key=lambda t: (-tiers[t], t)) if tiers else None
                want = "0" if tier is None else "0;%d;30" % (42 + tier)
                if style != want:
                    fail("%s window %d: style %r, expected %r (reads by tier %r)" %
                         (name, w, style, want, counts[key][w]))
    level = None
    for line in text.splitlines():
        t = re.match(r"^level (\d+): ", line)
        if t:
            level = int(t.group(1))
        elif line.startswith("no level"):
            level = -1
        m = re.match(r"^  (#\S+) ", line)
        if m and levels.get(names[m.group(1)], -1) != level:
            fail("%s is listed under level %s" % (m.group(1), level))


def check_trace_png(png_path, text_path, windows):
    rows = parse_rows(open(text_path).read(), False)
    width, height, _ = read_png(png_path)
    if (width, height) != (windows * 8, len(rows) * 8):
        fail("%s is %d x %d, expected %d x %d" %
             (png_path, width, height, windows * 8, len(rows) * 8))


def main(argv):
    if argv[1] == "text":
        width = 0
        for a in argv[5:]:
            if a.startswith("--width="):
                width = int(a[8:])
        check_text(argv[2], argv[3], argv[4], "--colour" in argv[5:], width)
    elif argv[1] == "png":
        check_png(argv[2], argv[3], argv[4])
    elif argv[1] == "trace":
        check_trace(argv[2], argv[3], int(argv[4]), int(argv[5]), "--colour" in argv[6:])
    elif argv[1] == "trace-png":
        check_trace_png(argv[2], argv[3], int(argv[4]))
    elif argv[1] == "heatmap-json":
        check_heatmap_json(argv[2], argv[3], argv[4])
    elif argv[1] == "watch":
        check_watch(argv[2], int(argv[3]), int(argv[4]))
    elif argv[1] == "watch-json":
        check_watch_json(argv[2], int(argv[3]), int(argv[4]))
    else:
        fail("unknown check " + argv[1])


if __name__ == "__main__":
    main(sys.argv)
