"""Pictures of one kernel's memory behaviour, drawn as inline SVG from the emulator's trace
(the instruction rows of a report: sample_offsets, steps; grader/core/result.hpp).

- bank_grid: one shared-memory warp request as 32 lanes x 32 banks; lanes that share a
  bank on different words are served one after another (a bank conflict);
- lane_strip: the lanes of each warp that executed an instruction, step by step (a
  reduction tree's active lanes halving, or staying packed);
- sector_rows: the 32-byte sectors of global memory that one warp request touches.
Every function returns an <svg> element as text, sized in CSS pixels.
"""
from html import escape

CELL = 11
BUSY = "#d1495b"      # a lane served after another on its bank
SERVED = "#2e86ab"    # a lane served in the first wavefront (or a broadcast)
IDLE = "#eeeeee"
ACTIVE = "#3b8b4b"


def _svg(width, height, body, label):
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" role="img" aria-label="{escape(label)}">'
            f'<title>{escape(label)}</title>{"".join(body)}</svg>')


def _text(x, y, s, size=9, anchor="start"):
    return f'<text x="{x}" y="{y}" font-size="{size}" font-family="monospace" text-anchor="{anchor}">{escape(str(s))}</text>'


def bank_order(offsets, width=4):
    """Per lane: (bank, the wavefront it is served in, counting from 0), None for a lane
    that took no part. Lanes on one word share its wavefront (a broadcast); lanes on one
    bank and different words take one wavefront each. 8- and 16-byte accesses are served
    by half- and quarter-warps, as course/bank_wavefronts.hpp counts them."""
    per_phase = {16: 8, 8: 16}.get(width, 32)
    out = [None] * 32
    for first in range(0, 32, per_phase):
        words_on_bank = {}
        for lane in range(first, first + per_phase):
            off = offsets[lane] if lane < len(offsets) else -1
            if off < 0:
                continue
            for piece in range(max(1, width // 4)):
                word = off // 4 + piece
                bank = word % 32
                seen = words_on_bank.setdefault(bank, [])
                if word not in seen:
                    seen.append(word)
                if piece == 0:
                    out[lane] = (bank, seen.index(word))
    return out


def bank_grid(offsets, width, label):
    order = bank_order(offsets, width)
    left, top = 34, 22
    body = [_text(left, 10, "bank 0 … 31 →"), _text(2, top + 8, "lane")]
    most = 0
    for lane in range(32):
        y = top + lane * CELL
        body.append(_text(left - 4, y + 8, lane, 8, "end"))
        for bank in range(32):
            x = left + bank * CELL
            hit = order[lane] is not None and order[lane][0] == bank
            colour = IDLE
            if hit:
                wave = order[lane][1]
                most = max(most, wave + 1)
                colour = SERVED if wave == 0 else BUSY
            cls = ' class="hit"' if hit else ""
            body.append(f'<rect{cls} x="{x}" y="{y}" width="{CELL - 1}" height="{CELL - 1}" fill="{colour}"/>')
    height = top + 32 * CELL + 16
    body.append(_text(left, height - 4, f"{most}-way: the busiest bank serves {most} word(s) one after another"
                      if most > 1 else "conflict-free: every bank serves at most one word"))
    return _svg(left + 32 * CELL + 4, height, body, label)


def lane_strip(steps, label, max_rows=24):
    """steps: [step, warp, lanes] per request of block (0,0,0)."""
    if not steps:
        return ""
    rows = sorted({s for s, _, _ in steps})[:max_rows]
    warps = sorted({w for _, w, _ in steps})[:8]
    lanes = {}
    for s, w, mask in steps:
        lanes[(s, w)] = lanes.get((s, w), 0) | mask
    cell = 5
    left, top = 46, 22
    gap = 4
    body = [_text(left, 10, "warps of block (0,0,0), 32 lanes each →")]
    for wi, w in enumerate(warps):
        body.append(_text(left + wi * (32 * cell + gap), top - 2, f"warp {w}", 8))
    for ri, s in enumerate(rows):
        y = top + ri * (cell + 3)
        body.append(_text(left - 4, y + 5, f"step {s}", 8, "end"))
        for wi, w in enumerate(warps):
            mask = lanes.get((s, w), 0)
            x0 = left + wi * (32 * cell + gap)
            for lane in range(32):
                on = mask >> lane & 1
                cls = ' class="on"' if on else ""
                body.append(f'<rect{cls} x="{x0 + lane * cell}" y="{y}" width="{cell - 1}" height="{cell}" '
                            f'fill="{ACTIVE if on else IDLE}"/>')
    width = left + len(warps) * (32 * cell + gap)
    return _svg(width, top + len(rows) * (cell + 3) + 6, body, label)


def sector_rows(offsets, width, label):
    """One row per lane, one column per 32-byte sector of the request's span."""
    lanes = [(lane, off) for lane, off in enumerate(offsets) if off >= 0]
    if not lanes:
        return ""
    first = min(off // 32 for _, off in lanes)
    last = max((off + max(width, 1) - 1) // 32 for _, off in lanes)
    columns = min(last - first + 1, 64)
    touched = set()
    left, top = 34, 22
    body = [_text(left, 10, "32-byte sectors →")]
    for lane, off in lanes:
        y = top + lane * CELL
        body.append(_text(left - 4, y + 8, lane, 8, "end"))
        for sector in range(off // 32, (off + max(width, 1) - 1) // 32 + 1):
            col = sector - first
            touched.add(sector)
            if col < columns:
                body.append(f'<rect class="sector" x="{left + col * CELL}" y="{y}" width="{CELL - 1}" '
                            f'height="{CELL - 1}" fill="{SERVED}"/>')
    height = top + 32 * CELL + 16
    ideal = max(1, (len(lanes) * width + 31) // 32)
    body.append(_text(left, height - 4, f"{len(touched)} sectors for {len(lanes)} lanes of {width} bytes "
                      f"(packed: {ideal})"))
    return _svg(max(left + columns * CELL + 4, 300), height, body, label)
