"""One self-contained HTML page of a graded lab (no network, no script): the verdicts and
what each check judged, the student's source with each line's counters, the reference's
and the baseline's totals beside the student's, and pictures of the student's own kernel
drawn from the emulator's trace (svg_pictures.py), each beside the reference's of its kind. Written from the grader's report JSON
(`./grade LAB --html FILE`, report.html of a batch, the Gradescope output).

    python3 -m grader.html.report_page REPORT.json OUT.html [--source FILE]
"""
import argparse
import json
import os
import re
import sys
from html import escape

from grader.html import svg_pictures

SOURCE_LIMIT = 1 << 20  # bytes of the student's file shown, at most

STYLE = """
body{font-family:system-ui,sans-serif;margin:24px;color:#222;max-width:1200px}
h1{font-size:22px} h2{font-size:18px;border-bottom:1px solid #ccc;padding-bottom:4px}
.verdict{padding:1px 6px;border-radius:3px;color:#fff;font-weight:600}
.passed{background:#3b8b4b}.failed{background:#d1495b}.skipped,.info{background:#888}
table{border-collapse:collapse;margin:8px 0} td,th{border:1px solid #ddd;padding:2px 6px;font-size:13px}
th{background:#f4f4f4;text-align:left} td.num{text-align:right;font-family:monospace}
div.pair{white-space:nowrap;overflow-x:auto} figure{display:inline-block;white-space:normal;margin:8px 16px 8px 0;vertical-align:top}
figcaption{font-size:12px;max-width:420px}
pre.src{font-size:12px;line-height:1.35;background:#fafafa;border:1px solid #ddd;padding:6px;overflow-x:auto}
.src .ln{color:#999;display:inline-block;width:4em}
.src .flagged{background:#fde2e4}.src .counted{background:#e8f4fa}
.src .note{color:#2e6f8e;font-style:italic}
.why{font-size:13px;color:#444}
"""

UNITS = ("shared-memory loads and stores are warp requests, each served in wavefronts (fewer is better; "
         "the ideal has no bank conflict); global loads are counted in 32-byte sectors (fewer per request "
         "is better: 4 for a warp of packed floats)")


def _student_version(part):
    """The student's counters on the largest counted problem, and the other versions there."""
    versions = part.get("counters", {}).get("versions", []) or []
    mine = [v for v in versions if v.get("version") == "student"]
    if not mine:
        return None, []
    best = max(mine, key=lambda v: v.get("elements", 0))
    others = [v for v in versions if v.get("problem") == best.get("problem") and v is not best]
    return best, others


def _line_of(place):
    m = re.match(r"kernels\.cu:(\d+)$", place or "")
    return int(m.group(1)) if m else None


def _per_line(version):
    lines = {}
    for row in version.get("instructions", []) if version else []:
        n = _line_of(row.get("place"))
        if n is not None:
            lines.setdefault(n, []).append(row)
    return lines


def _describe(row):
    space = "shared" if row.get("shared") else "global"
    req = row.get("requests", 0)
    cost = row.get("cost", 0)
    lanes = row.get("lanes", 0) / req if req else 0
    if row.get("shared"):
        return (f"{space} {row.get('op')}: {req} requests, {cost} wavefronts (ideal {row.get('ideal', 0)}), "
                f"{lanes:.1f} lanes per request")
    return f"{space} {row.get('op')}: {req} requests, {cost} sectors ({cost / req if req else 0:.2f} per request), " \
           f"{lanes:.1f} lanes per request"


def _flagged_lines(part):
    text = " ".join(c.get("detail", "") for c in part.get("checks", []) if c.get("status") == "failed")
    text += " " + " ".join(f.get("detail", "") for f in part.get("correctness", {}).get("failures", []))
    return {int(n) for n in re.findall(r"kernels\.cu:(\d+)", text)}


def _pictures(version, whose, unplaced):
    """The pictures of one version's kernel: (kind, svg, caption), WHOSE naming it in the captions
    and UNPLACED standing for a line the report does not place (the reference's lines never are)."""
    rows = [r for r in (version or {}).get("instructions", []) if r.get("sample_offsets")]
    out = []
    shared = [r for r in rows if r.get("shared") and r.get("op") != "atomic"]
    if shared:
        worst = max(shared, key=lambda r: (r.get("sample_cost", 0), r.get("cost", 0)))
        where = worst.get("place") or unplaced
        out.append(("banks", svg_pictures.bank_grid(worst["sample_offsets"], worst.get("width", 4),
                                                    f"banks of one warp request at {where}"),
                    f"{whose}: the costliest shared-memory request ({worst.get('op')} at {where}): each row a "
                    f"lane, each column a bank. Lanes on one bank at different words wait for each other "
                    f"(red: {_count(worst.get('sample_cost', 0), 'wavefront')} for this request)."))
    stepped = [r for r in shared if len({s[0] for s in r.get("steps", [])}) > 1]
    if stepped:
        tree = max(stepped, key=lambda r: (len({s[0] for s in r["steps"]}), r.get("requests", 0)))
        where = tree.get("place") or unplaced
        out.append(("lanes", svg_pictures.lane_strip(tree["steps"], f"active lanes per step at {where}"),
                    f"{whose}: the lanes that executed {where} in block (0,0,0), one row per step between "
                    f"barriers: a warp with few green lanes still costs a whole warp's issue (divergence)."))
    loads = [r for r in rows if not r.get("shared") and r.get("op") == "load"]
    if loads:
        widest = max(loads, key=lambda r: (r.get("sample_cost", 0), r.get("cost", 0)))
        where = widest.get("place") or unplaced
        out.append(("sectors", svg_pictures.sector_rows(widest["sample_offsets"], widest.get("width", 4),
                                                        f"sectors of one warp load at {where}"),
                    f"{whose}: the global load that touches the most 32-byte sectors in one request ({where})."))
    return [(kind, svg, cap) for kind, svg, cap in out if svg]


def _count(n, noun):
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _figure(kind, version, svg, caption):
    return (f'<figure class="picture" data-kind="{kind}" data-version="{version}">{svg}'
            f'<figcaption>{escape(caption)}</figcaption></figure>')


def _picture_pairs(version, others):
    """Each picture of the student's kernel beside the reference's of the same kind on the
    same problem: where the kernel loses, and what the reference does instead."""
    reference = next((v for v in others if v.get("version") == "reference"), None)
    theirs = {kind: (svg, cap) for kind, svg, cap in _pictures(reference, "The reference", "a line of its kernel")} if reference else {}
    html = []
    for kind, svg, caption in _pictures(version, "Your kernel", "a line outside kernels.cu"):
        pair = [_figure(kind, "student", svg, caption)]
        if kind in theirs:
            pair.append(_figure(kind, "reference", *theirs[kind]))
        html.append(f'<div class="pair">{"".join(pair)}</div>')
    return html


def _totals_table(version, others):
    cols = [("shared ld req", "shared_load_requests"), ("shared ld wf", "shared_load_wavefronts"),
            ("shared st req", "shared_store_requests"), ("shared st wf", "shared_store_wavefronts"),
            ("ideal wf", "shared_ideal_wavefronts"), ("global ld req", "global_load_requests"),
            ("global ld sectors", "global_load_sectors"), ("excess warp req", "excess_warp_requests"),
            ("barriers", "barriers"), ("shuffles", "warp_shuffles")]
    head = "".join(f"<th>{escape(c)}</th>" for c, _ in cols)
    body = []
    order = {"baseline": 0, "reference": 1, "student": 2}
    for v in sorted(others + [version], key=lambda v: order.get(v.get("version"), 3)):
        name = "yours" if v.get("version") == "student" else v.get("version", "")
        cells = "".join(f'<td class="num">{v.get(k, 0)}</td>' for _, k in cols)
        body.append(f"<tr><th>{escape(name)}: {escape(v.get('kernel', ''))}</th>{cells}</tr>")
    return (f'<table class="totals"><tr><th>{escape(version.get("problem", ""))}</th>{head}</tr>'
            f'{"".join(body)}</table><p class="why">Units: {escape(UNITS)}.</p>')


def _timing(part):
    t = part.get("timing", {})
    if t.get("status") == "not_measured" or not t.get("kernels"):
        return f'<p class="why">Timing: {escape(t.get("reason") or "not measured")}</p>'
    rows = "".join(f'<tr><td>{escape(k.get("role", ""))}</td><td>{escape(k.get("kernel", ""))}</td>'
                   f'<td class="num">{k.get("median_ms", 0):.4f}</td><td class="num">{k.get("gbps", 0):.0f}</td>'
                   f'<td class="num">{k.get("pct_of_copy", 0):.0f}%</td></tr>' for k in t["kernels"])
    return (f'<p>Speedup over the naive kernel: <b>{t.get("speedup", 0):.2f}x</b> (target {t.get("target", 0):.2f}x, '
            f'the reference {t.get("reference_speedup", 0):.2f}x) on {escape(t.get("problem", ""))}; the measured '
            f'copy bandwidth is {t.get("copy_gbps", 0):.0f} GB/s.</p><table><tr><th>kernel</th><th>name</th>'
            f'<th>median ms</th><th>GB/s</th><th>of copy</th></tr>{rows}</table>')


def _part_section(part, source_lines):
    corr = part.get("correctness", {})
    status = corr.get("status", "skipped")
    html = [f'<section class="part" data-part="{escape(part.get("id", ""))}">',
            f'<h2>Part {escape(part.get("id", ""))}: {escape(part.get("title", ""))} '
            f'(<code>{escape(part.get("kernel", ""))}</code>) {part.get("score", 0):g}/{part.get("max_points", 0):g}</h2>',
            f'<p>Correctness: <span class="verdict {escape(status)}" data-check="correctness">{escape(status)}</span> '
            f'{corr.get("cases", 0) - corr.get("failed", 0)} of {corr.get("cases", 0)} cases right.</p>']
    fails = corr.get("failures", [])[:3]
    if fails:
        html.append("<ul>" + "".join(f'<li>{escape(f.get("input", ""))} input, {escape(f.get("size", ""))}: '
                                     f'{escape(f.get("detail", ""))}</li>' for f in fails) + "</ul>")
    if corr.get("hint"):
        html.append(f'<p class="why">Hint: {escape(corr["hint"])}</p>')
    if part.get("penalty_reason"):
        html.append(f'<p class="why">Points lost: {escape(part["penalty_reason"])}</p>')
    if part.get("ladder"):
        html.append(f'<p class="ladder" data-ladder="1">On the ladder, from your counters: '
                    f'{escape(part["ladder"])}.</p>')
    checks = part.get("checks", [])
    if checks:
        html.append('<table class="checks"><tr><th>check</th><th>verdict</th><th>what it judged</th></tr>' + "".join(
            f'<tr class="check {escape(c.get("status", ""))}"><td>{escape(c.get("name", ""))}</td>'
            f'<td><span class="verdict {escape(c.get("status", ""))}" data-check="{escape(c.get("name", ""))}">'
            f'{escape(c.get("status", ""))}</span></td><td>{escape(c.get("detail", ""))}</td></tr>' for c in checks)
            + "</table>")
    html.append(_timing(part))
    version, others = _student_version(part)
    if version is None:
        html.append('<p class="why">No counters: the emulator counts a part only once it runs correctly.</p>')
    else:
        html.append(_totals_table(version, others))
        html.extend(_picture_pairs(version, others))
    html.append(_source_listing(source_lines, _per_line(version), _flagged_lines(part), part.get("kernel", "")))
    html.append("</section>")
    return "\n".join(html)


def _source_listing(lines, per_line, flagged, kernel):
    if not lines:
        return '<p class="why">The source file could not be read.</p>'
    out = []
    for n, text in enumerate(lines, 1):
        cls = "flagged" if n in flagged else "counted" if n in per_line else ""
        note = "".join(f'<span class="note">  // {escape(_describe(r))}</span>' for r in per_line.get(n, []))
        out.append(f'<span class="{cls}" id="{escape(kernel)}-L{n}"><span class="ln">{n}</span>{escape(text)}{note}</span>')
    return (f'<details{" open" if per_line or flagged else ""}><summary>kernels.cu, each counted line with what '
            f'the emulator counted on it{" (red: a line a finding names)" if flagged else ""}</summary>'
            f'<pre class="src">{chr(10).join(out)}</pre></details>')


def read_source(path):
    try:
        with open(path, "rb") as f:
            return f.read(SOURCE_LIMIT).decode("utf-8", errors="replace").splitlines()
    except OSError:
        return []


def render(report, source_lines):
    title = report.get("summary", report.get("lab", "report"))
    outcome = "passed" if report.get("passed") else "failed"
    parts = "\n".join(_part_section(p, source_lines) for p in report.get("parts", []))
    notes = "".join(f"<li>{escape(n)}</li>" for n in report.get("notes", []))
    lab_checks = "".join(f'<li><span class="verdict {escape(c.get("status", ""))}" data-check="{escape(c.get("name", ""))}">'
                         f'{escape(c.get("status", ""))}</span> {escape(c.get("name", ""))}: {escape(c.get("detail", ""))}</li>'
                         for c in report.get("checks", []))
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
            f'<style>{STYLE}</style></head><body>'
            f'<h1>{escape(title)} <span class="verdict {outcome}" id="outcome">{outcome}</span></h1>'
            f'<p>{escape(report.get("device", ""))}, seed {report.get("seed", "")}; '
            f'{escape(str((report.get("source") or {}).get("path", "")))}</p><ul>{notes}{lab_checks}</ul>'
            f'{parts}</body></html>')


def write(report_path, out_path, source_path=None):
    with open(report_path) as f:
        report = json.load(f)
    source = source_path or (report.get("source") or {}).get("path", "")
    page = render(report, read_source(source) if source else [])
    with open(out_path, "w", encoding="utf-8") as f:
        f.write(page)


def write_beside(report, out_path, source_path):
    """For batch and Gradescope: the page of an already-read report, or False (a page that
    cannot be written never costs a submission its row or its grade)."""
    try:
        page = render(report, read_source(source_path) if source_path else [])
        with open(out_path, "w", encoding="utf-8") as f:
            f.write(page)
        return True
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return False


def main(argv):
    p = argparse.ArgumentParser(description="the HTML report of a graded lab")
    p.add_argument("report")
    p.add_argument("out")
    p.add_argument("--source")
    a = p.parse_args(argv)
    try:
        write(a.report, a.out, a.source)
    except (OSError, ValueError) as e:
        print(f"report_page: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
