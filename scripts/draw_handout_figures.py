#!/usr/bin/env python3
"""Draws the handouts' explanatory pictures as SVG (not measurements: those are plot_results.py's).

  lab4_grid_stride    lab 4 A: a grid of 3 blocks of 4 threads sweeping 40 elements
  lab4_block_combine  lab 4 A: warp shuffles -> one value per warp in shared memory -> warp 0 -> out
  lab4_float4         lab 4 B: float4 loads, two in flight per thread, and the n % 4 tail
  lab5_transpose_tile lab 5 B: input tile -> shared tile[32][33] -> output tile, and the banks

The output is deterministic (no date, fixed SVG ids), so drawing again changes no file unless
the drawing changed:

    python3 -m scripts.draw_handout_figures                    # writes docs/images/<name>.svg
    python3 -m scripts.draw_handout_figures --png /tmp/check   # also PNG previews, to look at
"""
import argparse
import os
import sys

from matplotlib.patches import FancyArrowPatch, Rectangle

from scripts.plot_style import PALETTE, plt

BLUE, ORANGE, GREEN, VERMILION, PURPLE, SKY, YELLOW, BLACK = PALETTE
GREY = "#BBBBBB"
FONT = 8


def tint(color, amount):
    """COLOR mixed with white: amount 1 is the colour itself, 0 is white."""
    rgb = [int(color[i:i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(255 - (255 - c) * amount):02X}" for c in rgb)


def board(width, height, width_in=8.0):
    """A figure WIDTH_IN inches wide whose one axes spans it, in square units of WIDTH x HEIGHT
    with y downwards, no frame."""
    fig = plt.figure(figsize=(width_in, width_in * height / width))
    ax = fig.add_axes([0, 0, 1, 1])
    ax.set_xlim(0, width)
    ax.set_ylim(height, 0)
    ax.set_aspect("equal")
    ax.axis("off")
    return fig, ax


def box(ax, x, y, w, h, fc="white", ec=BLACK, lw=0.6, text=None, size=FONT, hatch=None, ls="-", **kw):
    ax.add_patch(Rectangle((x, y), w, h, facecolor=fc, edgecolor=ec, linewidth=lw, hatch=hatch, linestyle=ls))
    if text is not None:
        ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=size, **kw)


def arrow(ax, start, end, color=BLACK, lw=0.9, style="-|>", rad=0.0, ls="-"):
    ax.add_patch(FancyArrowPatch(start, end, arrowstyle=style, mutation_scale=8, color=color, linewidth=lw,
                                 connectionstyle=f"arc3,rad={rad}", linestyle=ls, shrinkA=1, shrinkB=1))


def note(ax, x, y, text, size=FONT, **kw):
    kw.setdefault("ha", "left")
    kw.setdefault("va", "top")
    ax.text(x, y, text, fontsize=size, linespacing=1.35, **kw)


def grid_stride():
    """Lab 4 A: 3 blocks x 4 threads, T = 12, n = 40: sweeps of 12 consecutive elements."""
    blocks, threads, n = 3, 4, 40
    T = blocks * threads
    colors = [BLUE, ORANGE, GREEN]
    follow = 5  # the thread whose elements are outlined
    fig, ax = board(25.5, 7.6)
    x0, y0, c = 4.3, 1.9, 1.05
    note(ax, 0, 0.05, f"A grid-stride loop: {blocks} blocks of {threads} threads, T = blockDim.x × gridDim.x = "
         f"{T} threads, n = {n} elements", size=FONT + 1, weight="bold")
    # Header: the blocks, then each thread's global index g.
    for b in range(blocks):
        box(ax, x0 + b * threads * c, y0 - 1.0, threads * c, 0.5, fc=tint(colors[b], 0.55), lw=0.5,
            text=f"block {b}")
        for t in range(threads):
            g = b * threads + t
            ax.text(x0 + (g + 0.5) * c, y0 - 0.25, f"g={g}", ha="center", va="center", fontsize=FONT - 1)
    note(ax, x0 - 0.2, y0 - 0.75, "blockIdx.x", ha="right", va="center")
    note(ax, x0 - 0.2, y0 - 0.25, "thread (global index)", ha="right", va="center")
    # One row per sweep: element i is read by thread i % T.
    sweeps = (n + T - 1) // T
    for s in range(sweeps):
        y = y0 + s * 1.25
        note(ax, x0 - 0.2, y + 0.45, f"sweep {s}: elements {s * T}-{min(n, (s + 1) * T) - 1}", ha="right",
             va="center")
        for g in range(T):
            i = s * T + g
            x = x0 + g * c
            if i >= n:
                box(ax, x + 0.04, y, c - 0.08, 0.9, fc="white", ec=GREY, ls="--", text="–", color="#777777")
                continue
            mine = g == follow
            box(ax, x + 0.04, y, c - 0.08, 0.9, fc=tint(colors[g // threads], 0.75 if mine else 0.3),
                ec=BLACK, lw=1.8 if mine else 0.4, text=str(i), weight="bold" if mine else "normal")
    last = y0 + (sweeps - 1) * 1.25
    xr = x0 + T * c + 0.5
    note(ax, xr, y0 - 1.0,
         f"Thread g adds elements g, g + T, g + 2T, ...\ninto one register, until the index reaches n.\n\n"
         f"Outlined: thread g = {follow} (block 1, thread 1)\nadds elements 5, 17 and 29.\n\n"
         f"Each sweep reads {T} consecutive elements\nwith {T} consecutive threads: coalesced.\n\n"
         f"n = {n} is not a multiple of T: in sweep {sweeps - 1}\nthreads {n - (sweeps - 1) * T}-{T - 1} "
         "have no element (–):\nthey add nothing in that sweep.", size=FONT)
    arrow(ax, (x0 + (follow + 0.5) * c, y0 + 0.95), (x0 + (follow + 0.5) * c, y0 + 1.2), lw=1.2)
    arrow(ax, (x0 + (follow + 0.5) * c, y0 + 2.2), (x0 + (follow + 0.5) * c, y0 + 2.45), lw=1.2)
    note(ax, x0, last + 1.15, "Each row is one pass of the loop: i = g, then i += T while i < n. The grid is sized "
         "by the GPU\n(a few blocks per SM), not by n: a larger n means more sweeps, not more blocks.", size=FONT)
    return fig


def block_combine():
    """Lab 4 A: a block of 4 warps combines its 128 per-thread sums."""
    warps = 4
    colors = [BLUE, ORANGE, GREEN, PURPLE]
    lane, small = 0.14, FONT - 0.5
    fig, ax = board(25.5, 10.3)
    note(ax, 0, 0.05, "Combining the threads of a block (here 4 warps, 128 threads) after the loop",
         size=FONT + 1, weight="bold")
    x0, y0, dy, h = 1.5, 3.3, 1.55, 0.7
    # 1. The warps' registers.
    note(ax, 0, 1.1, "1. each lane holds the sum\n    of its grid-stride loop\n    (a register)", size=small)
    xs = 8.0  # the warps' sums
    sums = []
    for w in range(warps):
        y = y0 + w * dy
        note(ax, x0 - 0.15, y + h / 2, f"warp {w}", ha="right", va="center", size=small)
        for k in range(32):
            box(ax, x0 + k * lane, y, lane, h, fc=tint(colors[w], 0.35), ec="white", lw=0.3)
        ax.add_patch(Rectangle((x0, y), 32 * lane, h, fill=False, edgecolor=BLACK, linewidth=0.6))
        ax.text(x0, y + h + 0.25, "lane 0", fontsize=FONT - 2, ha="left", va="center")
        ax.text(x0 + 32 * lane, y + h + 0.25, "lane 31", fontsize=FONT - 2, ha="right", va="center")
        # 2. Shuffles: lane 0 ends with the warp's sum.
        arrow(ax, (x0 + 32 * lane + 0.1, y + h / 2), (xs - 0.05, y + h / 2))
        box(ax, xs, y, 1.4, h, fc=tint(colors[w], 0.8), text=f"sum {w}", size=FONT - 1)
        sums.append((xs + 1.4, y + h / 2))
    note(ax, 6.9, 1.1, "2. five shuffles,\n    +16 +8 +4 +2 +1:\n    lane 0 has the\n    warp's sum", size=small)
    # 3. Lane 0 of each warp writes its entry of a shared array.
    xsh, hsh = 11.6, 0.6
    note(ax, 10.9, 1.1, "3. lane 0 writes\n    warp_sums[w]\n    (shared memory)", size=small)
    for w in range(warps):
        box(ax, xsh, y0 + w * hsh, 1.4, hsh, fc=tint(colors[w], 0.8), text=f"[{w}]", size=FONT - 1)
        arrow(ax, sums[w], (xsh - 0.05, y0 + (w + 0.5) * hsh))
    box(ax, xsh, y0 + warps * hsh, 1.4, 2.2, fc="white", ec=GREY, hatch="////", ls="--")
    ax.text(xsh + 0.7, y0 + warps * hsh + 2.35, "[4]..[31]: unused\nwith 4 warps", fontsize=FONT - 2,
            ha="center", va="top", color="#555555")
    # The one barrier of the combine.
    xb = 14.5
    ax.plot([xb, xb], [1.1, 9.1], color=VERMILION, linewidth=1.6, linestyle=(0, (4, 2)))
    ax.text(xb, 9.25, "__syncthreads()\n(once per block)", color=VERMILION, fontsize=small, ha="center",
            va="top")
    # 4. Warp 0 reads the entries (0 past the last warp) and shuffles again.
    xw, yw = 17.2, y0 + 0.6
    note(ax, 15.2, 1.1, "4. warp 0 reads the entries back\n    (lane i reads warp_sums[i]) and adds\n"
         "    them with five more shuffles", size=small)
    for k in range(32):
        fc = tint(colors[k], 0.8) if k < warps else "white"
        box(ax, xw + k * lane, yw, lane, h, fc=fc, ec=GREY if k >= warps else "white", lw=0.3)
    ax.add_patch(Rectangle((xw, yw), 32 * lane, h, fill=False, edgecolor=BLACK, linewidth=0.6))
    ax.text(xw, yw + h + 0.25, "lane 0", fontsize=FONT - 2, ha="left", va="center")
    ax.text(xw + 32 * lane, yw - 0.25, "lanes 4..31: no entry (only 4 warps)", fontsize=FONT - 2, ha="right",
            va="center", color="#555555")
    note(ax, xw - 0.15, yw + h / 2, "warp 0", ha="right", va="center", size=small)
    arrow(ax, (xsh + 1.45, y0 + 2 * hsh), (xw - 1.45, yw + h / 2))
    # 5. Thread 0 writes the block's sum.
    yo = yw + 2.7
    arrow(ax, (xw + 0.5 * lane, yw + h + 0.45), (xw + 0.5 * lane, yo - 0.05))
    box(ax, xw - 0.2, yo, 5.6, 0.9, fc=tint(VERMILION, 0.3), text="out[blockIdx.x] = block sum", size=FONT - 0.5)
    note(ax, xw - 0.2, yo + 1.2, "5. thread 0 (lane 0 of warp 0) writes\n    the block's sum; the next pass "
         "adds\n    the blocks' sums the same way", size=small)
    return fig


def float4_body():
    """Lab 4 B: 2 blocks x 4 threads, two float4 loads in flight per thread, n = 67 = 16 x 4 + 3."""
    blocks, threads, loads = 2, 4, 2
    T = blocks * threads
    vectors = T * loads
    tail = 3
    n = 4 * vectors + tail
    colors = [BLUE, ORANGE]
    fig, ax = board(27.0, 8.3)
    note(ax, 0, 0.05, f"Part B: float4 loads, {loads} in flight per thread, and the n % 4 tail "
         f"({blocks} blocks of {threads} threads, T = {T}, n = {n})", size=FONT + 1, weight="bold")
    x0, y0, f, gap = 4.2, 2.0, 0.38, 0.2
    vw = 4 * f
    rows = [("load a: v[g]", 0), ("load b: v[g + T]", T)]
    for r, (label, first) in enumerate(rows):
        y = y0 + r * 1.9
        note(ax, x0 - 0.2, y + 0.45, label, ha="right", va="center")
        for g in range(T):
            v = first + g
            x = x0 + g * (vw + gap)
            for k in range(4):
                box(ax, x + k * f, y, f, 0.9, fc=tint(colors[g // threads], 0.35), ec="white", lw=0.4)
            ax.add_patch(Rectangle((x, y), vw, 0.9, fill=False, edgecolor=BLACK, linewidth=0.8))
            ax.text(x + vw / 2, y + 0.45, f"g={g}", ha="center", va="center", fontsize=FONT - 0.5)
            ax.text(x + vw / 2, y + 1.2, f"in[{4 * v}..{4 * v + 3}]", ha="center", va="center",
                    fontsize=FONT - 2, color="#444444")
    for b in range(blocks):
        xb = x0 + b * threads * (vw + gap)
        box(ax, xb, y0 - 0.95, threads * (vw + gap) - gap, 0.5, fc=tint(colors[b], 0.55), lw=0.5,
            text=f"block {b}: threads g = {b * threads}-{b * threads + threads - 1}")
    # Tail: the last n % 4 floats.
    yt = y0 + 2 * 1.9 + 0.3
    note(ax, x0 - 0.2, yt + 0.45, f"tail: n % 4 = {tail}", ha="right", va="center")
    for k in range(tail):
        box(ax, x0 + k * f, yt, f, 0.9, fc=tint(VERMILION, 0.45), ec=BLACK, lw=0.8, hatch="///")
    ax.text(x0 + tail * f + 0.25, yt + 0.45, f"in[{4 * vectors}..{n - 1}]: not a whole float4. Added once, by one "
            "thread\nof the whole grid (here block 0, thread 0), not once per block", fontsize=FONT,
            va="center", ha="left")
    xr = x0 + T * (vw + gap) + 0.3
    note(ax, xr, y0 - 0.95,
         "v = (const float4*) in: n / 4 = 16 vectors.\nEach box is one float4: 4 consecutive\n"
         "floats, fetched by one 16-byte load.\n\n"
         f"Thread g issues both loads, v[g] and v[g + T],\ninto separate registers before adding\n"
         "either: it waits once for 32 bytes\ninstead of twice for 16.\n\n"
         "The reference keeps 4 loads in flight\nin blocks of 1024 threads.", size=FONT)
    note(ax, x0, yt + 1.35, "Each load instruction is still coalesced: consecutive threads read consecutive "
         "16-byte vectors.", size=FONT)
    return fig


def transpose_tile():
    """Lab 5 B: block (bx, by) = (1, 2) of a 64 x 96 input, through tile[32][33], to the 96 x 64 output."""
    fig, ax = board(27.0, 10.9)
    note(ax, 0, 0.05, "Lab 5 B: one block's tile, from the input through shared tile[32][33] to the output",
         size=FONT + 1, weight="bold")
    s = 1.45  # one 32 x 32 tile
    bx, by = 1, 2
    small = FONT - 0.5
    # The input: rows = 64, cols = 96, 2 x 3 tiles; block (bx, by) reads tile row bx, tile column by.
    xi, yi = 0.3, 2.7
    note(ax, xi, 1.15, "input: rows = 64, cols = 96;\nblock (bx, by) reads tile\n(row bx, column by)", size=small)
    for r in range(2):
        for c in range(3):
            hit = (r, c) == (bx, by)
            box(ax, xi + c * s, yi + r * s, s, s, fc=tint(BLUE, 0.6) if hit else tint(BLUE, 0.12),
                lw=1.6 if hit else 0.5, text=f"block\n({r}, {c})", size=FONT - 1.5,
                weight="bold" if hit else "normal")
    note(ax, xi, yi + 2 * s + 0.25, "block (1, 2) reads rows 32-63,\ncolumns 64-95", size=small)
    # The output: 96 x 64, 3 x 2 tiles; block (bx, by) writes tile row by, tile column bx.
    xo, yo = 21.3, 2.7
    note(ax, xo, 1.15, "output: 96 x 64;\nblock (bx, by) writes tile\n(row by, column bx)", size=small)
    for r in range(3):
        for c in range(2):
            hit = (r, c) == (by, bx)
            box(ax, xo + c * s, yo + r * s, s, s, fc=tint(ORANGE, 0.7) if hit else tint(ORANGE, 0.15),
                lw=1.6 if hit else 0.5, text=f"block\n({c}, {r})", size=FONT - 1.5,
                weight="bold" if hit else "normal")
    note(ax, xo + 2 * s + 0.3, yo, "blockIdx.x\nruns along\nthe output's\nrows", size=FONT - 1.5,
         color="#444444")
    note(ax, xo, yo + 3 * s + 0.25, "block (1, 2) writes rows 64-95,\ncolumns 32-63", size=small)
    # The shared tile, shown in part: rows 0-3 and 31, columns 0-3, 30, 31 and the padding column 32.
    rows = [0, 1, 2, 3, None, 31]
    cols = [0, 1, 2, 3, None, 30, 31, 32]
    read = 1  # the column a warp reads
    cw, ch = 0.95, 0.78
    xs, ys = 9.0, 3.3
    note(ax, xs - 0.9, 1.15, "shared float tile[32][33] (rows r, columns c);\nthe number in each word is its bank, "
         "(33 r + c) % 32", size=small)
    for j, c in enumerate(cols):
        ax.text(xs + (j + 0.5) * cw, ys - 0.15, "…" if c is None else ("32\npad" if c == 32 else str(c)),
                ha="center", va="bottom", fontsize=FONT - 1.5, color=VERMILION if c == read else BLACK)
    ax.text(xs - 0.2, ys - 0.15, "r \\ c", ha="right", va="bottom", fontsize=FONT - 1.5)
    for i, r in enumerate(rows):
        ax.text(xs - 0.2, ys + (i + 0.5) * ch, "⋮" if r is None else str(r), ha="right", va="center",
                fontsize=FONT - 1.5)
        for j, c in enumerate(cols):
            x, y = xs + j * cw, ys + i * ch
            if r is None or c is None:
                ax.text(x + cw / 2, y + ch / 2, "⋮" if r is None and c is not None else "…", ha="center",
                        va="center", fontsize=FONT - 1, color="#555555")
                continue
            bank = (33 * r + c) % 32
            if c == 32:
                box(ax, x, y, cw, ch, fc="#EEEEEE", ec=GREY, hatch="////", lw=0.5)
                ax.text(x + cw / 2, y + ch / 2, str(bank), ha="center", va="center", fontsize=FONT - 1.5,
                        color="#777777")
            elif c == read:
                box(ax, x, y, cw, ch, fc=tint(VERMILION, 0.45), ec=BLACK, lw=0.9, text=str(bank),
                    size=FONT - 0.5, weight="bold")
            else:
                box(ax, x, y, cw, ch, fc=tint(SKY, 0.25) if r == 0 else "white", ec=GREY, lw=0.5, text=str(bank),
                    size=FONT - 1.5)
    ax.add_patch(Rectangle((xs, ys), 7 * cw, ch, fill=False, edgecolor=BLUE, linewidth=1.6))
    ax.add_patch(Rectangle((xs + read * cw, ys), cw, 6 * ch, fill=False, edgecolor=VERMILION, linewidth=1.8))
    # Arrows: input tile -> shared tile -> output tile.
    arrow(ax, (xi + 3 * s + 0.1, yi + 1.5 * s), (xs - 0.75, ys + 0.5 * ch), color=BLUE, lw=1.3)
    ax.text((xi + 3 * s + xs) / 2 - 0.3, yi + 1.5 * s + 0.25, "load:\ncoalesced\nreads", color=BLUE,
            fontsize=FONT - 1, ha="center", va="top")
    arrow(ax, (xs + 8 * cw + 0.1, ys + 1.5 * ch), (xo - 0.1, yo + 2.5 * s), color=VERMILION, lw=1.3, rad=0.15)
    ax.text((xs + 8 * cw + xo) / 2 + 0.5, ys + 1.2 * ch, "store:\ncoalesced\nwrites", color=VERMILION,
            fontsize=FONT - 1, ha="center", va="bottom")
    yb = ys + 6 * ch + 0.55
    note(ax, xi, yb,
         "Load (blue): a warp reads 32 consecutive floats of input row 32·bx + r and writes them to row r of the "
         "tile: 32 consecutive words, 32 banks.\n"
         "Store (red): a warp reads column c of the tile, lane k reading tile[k][c], and writes 32 consecutive "
         "floats of output row 32·by + c.\n"
         "With 33 words per row, lane k's word is in bank (k + c) % 32: 32 different banks, one wavefront "
         "(column 1: banks 1, 2, 3, ..., 31, 0).\n"
         "Column 32 is padding, never read or written: it only shifts each row by one bank. "
         "With tile[32][32] a column lies in one bank: a 32-way conflict.", size=FONT - 1)
    return fig


FIGURES = {
    "lab4_grid_stride": grid_stride,
    "lab4_block_combine": block_combine,
    "lab4_float4": float4_body,
    "lab5_transpose_tile": transpose_tile,
}


def save_svg(fig, out_dir, name, png_dir=None):
    """Writes NAME.svg into OUT_DIR, the same bytes every time; optionally a PNG preview into PNG_DIR."""
    # A fixed salt gives fixed ids (clip paths and the like); no date and no matplotlib version in the file.
    plt.rcParams["svg.hashsalt"] = "cuda-labs-handout-figures"
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, f"{name}.svg")
    fig.savefig(path, format="svg", bbox_inches="tight", pad_inches=0.05, metadata={"Date": None, "Creator": None})
    paths = [path]
    if png_dir:
        os.makedirs(png_dir, exist_ok=True)
        paths.append(os.path.join(png_dir, f"{name}.png"))
        fig.savefig(paths[-1], format="png", bbox_inches="tight", pad_inches=0.05, dpi=150)
    plt.close(fig)
    return paths


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help=f"figures to draw (default: all): {', '.join(FIGURES)}")
    parser.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs",
                                                      "images"), help="folder for the SVGs (default: docs/images)")
    parser.add_argument("--png", metavar="DIR", help="also write PNG previews into DIR")
    args = parser.parse_args(argv)
    unknown = [name for name in args.names if name not in FIGURES]
    if unknown:
        parser.error(f"no figure {', '.join(unknown)}; the figures: {', '.join(FIGURES)}")
    try:
        for name in args.names or FIGURES:
            for p in save_svg(FIGURES[name](), args.out, name, args.png):
                print(os.path.relpath(p))
    except OSError as e:
        print(f"draw_handout_figures: cannot write: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
