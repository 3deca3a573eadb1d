"""A memory viewer — in the spirit of PyTorch's ``torch/cuda/_memory_viz.py`` (``segment_plot``/``trace_plot``).

:func:`render_html` turns a ``memory._snapshot()`` dict (or its pickle) into one self-contained HTML page —
inline SVG and a few lines of JavaScript, nothing fetched from the network:

- **segments**: every segment of every device as a bar (width proportional to its size, one row each, sorted
  by address), divided into its blocks, coloured by state: *allocated* (in use by a tensor), *pending free*
  (freed, waiting for another stream's events), *split* (a free block inside a segment that is also in use:
  cached but not releasable) and *cached* (a free segment that ``empty_cache`` would give back).  Hovering a
  block shows its address, size, requested size and the stack that allocated it;
- **timeline** (when history was recorded): reserved and allocated bytes after every trace event of each
  device, as step lines, with out-of-memory events marked; the largest allocations of the trace are listed
  with their stacks.

Invariant: the page depends only on the snapshot; every number it prints is read from it.
"""

from __future__ import annotations

import html
import json
import pickle

from .caching_allocator import format_size

__all__ = ["render_html", "save_html", "segment_summary", "timeline"]

COLOURS = {"allocated": "#3b7dd8", "pending_free": "#f0a030", "split": "#c9ccd1", "cached": "#8fd19e"}
_WIDTH, _ROW, _LABEL = 900, 18, 200


def _load(snapshot):
    if isinstance(snapshot, (bytes, bytearray)):
        return pickle.loads(snapshot)
    if isinstance(snapshot, str):
        with open(snapshot, "rb") as f:
            return pickle.load(f)
    return snapshot


def _block_kind(seg, block) -> str:
    state = block["state"]
    if state == "active_allocated":
        return "allocated"
    if state == "active_pending_free":
        return "pending_free"
    return "cached" if len(seg["blocks"]) == 1 else "split"


def segment_summary(snapshot) -> dict:
    """Bytes per block kind over all segments: ``{"allocated": …, "pending_free": …, "split": …, "cached": …}``."""
    out = dict.fromkeys(COLOURS, 0)
    for seg in _load(snapshot)["segments"]:
        for block in seg["blocks"]:
            out[_block_kind(seg, block)] += block["size"]
    return out


def timeline(snapshot, device: int = 0) -> list:
    """``[(event index, action, reserved bytes, allocated bytes)]`` after each trace event of ``device``.

    Allocated bytes count requests from ``alloc`` until ``free_completed``; reserved bytes follow
    ``segment_alloc``/``segment_free``.  Values before the first event are inferred from the state at snapshot
    time, so a trace that starts mid-run (a full ring buffer) still ends at the snapshot's numbers.
    """
    snap = _load(snapshot)
    traces = snap.get("device_traces") or []
    trace = traces[device] if device < len(traces) else []
    segs = [s for s in snap["segments"] if s.get("device", 0) == device]
    reserved_end = sum(s["total_size"] for s in segs)
    allocated_end = sum(b["requested_size"] for s in segs for b in s["blocks"] if b["state"] != "inactive")
    deltas = [_delta(e) for e in trace]
    reserved = reserved_end - sum(d[0] for d in deltas)
    allocated = allocated_end - sum(d[1] for d in deltas)
    points = []
    for i, (e, (dr, da)) in enumerate(zip(trace, deltas, strict=True)):
        reserved += dr
        allocated += da
        points.append((i, e["action"], reserved, allocated))
    return points


def _delta(entry):
    action, size = entry["action"], entry.get("size", 0)
    return {"segment_alloc": (size, 0), "segment_free": (-size, 0), "alloc": (0, size),
            "free_completed": (0, -size)}.get(action, (0, 0))


def _frames_text(frames, limit=12) -> str:
    lines = [f"{f.get('filename', '?')}:{f.get('line', '?')} {f.get('name', '?')}" for f in frames[:limit]]
    if len(frames) > limit:
        lines.append(f"... {len(frames) - limit} more frames")
    return "\n".join(lines)


def _segments_svg(segments) -> str:
    if not segments:
        return "<p>No segments: the allocator holds no device memory.</p>"
    biggest = max(s["total_size"] for s in segments)
    rows = []
    for r, seg in enumerate(sorted(segments, key=lambda s: (s.get("device", 0), s["address"]))):
        y = r * _ROW
        label = (f"{seg.get('device', 0)}:{seg['address']:#x} {seg['segment_type']} s{seg['stream']} "
                 f"{format_size(seg['total_size'])}")
        rows.append(f'<text x="0" y="{y + 13}" class="lbl">{html.escape(label)}</text>')
        scale = (_WIDTH - _LABEL) * max(seg["total_size"] / biggest, 0.02) / seg["total_size"]
        x = float(_LABEL)
        for block in seg["blocks"]:
            w = max(block["size"] * scale, 0.5)
            kind = _block_kind(seg, block)
            tip = (f"{kind} at {block['address']:#x}\nsize {format_size(block['size'])}, requested "
                   f"{format_size(block.get('requested_size', 0))}\n{_frames_text(block.get('frames') or [])}")
            rows.append(f'<rect x="{x:.2f}" y="{y + 2}" width="{w:.2f}" height="{_ROW - 4}" fill="{COLOURS[kind]}" '
                        f'stroke="#fff" stroke-width="0.5" data-tip="{html.escape(tip, quote=True)}"/>')
            x += block["size"] * scale
    height = len(segments) * _ROW + 4
    return f'<svg width="{_WIDTH}" height="{height}" class="plot">{"".join(rows)}</svg>'


def _timeline_svg(points) -> str:
    if not points:
        return "<p>No trace: record one with <code>_record_memory_history()</code> before the snapshot.</p>"
    h, pad = 220, 40
    top = max(max(p[2] for p in points), max(p[3] for p in points), 1)
    n = max(len(points) - 1, 1)

    def xy(i, v):
        return pad + (_WIDTH - 2 * pad) * i / n, h - pad - (h - 2 * pad) * v / top

    parts = []
    for col, key, name in ((COLOURS["cached"], 2, "reserved"), (COLOURS["allocated"], 3, "allocated")):
        pts, prev = [], None
        for p in points:
            x, y = xy(p[0], p[key])
            if prev is not None:
                pts.append(f"{x:.1f},{prev:.1f}")
            pts.append(f"{x:.1f},{y:.1f}")
            prev = y
        parts.append(f'<polyline points="{" ".join(pts)}" fill="none" stroke="{col}" stroke-width="2">'
                     f'<title>{name}</title></polyline>')
    for p in points:
        if p[1] == "oom":
            x, _ = xy(p[0], 0)
            parts.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{pad}" y2="{h - pad}" stroke="#d33" '
                         f'data-tip="out of memory at event {p[0]}"/>')
    parts.append(f'<text x="{pad}" y="14" class="lbl">peak {format_size(top)}; {len(points)} events</text>')
    parts.append(f'<line x1="{pad}" x2="{_WIDTH - pad}" y1="{h - pad}" y2="{h - pad}" stroke="#888"/>')
    return f'<svg width="{_WIDTH}" height="{h}" class="plot">{"".join(parts)}</svg>'


def _top_allocations(trace, k=10) -> str:
    allocs = sorted((e for e in trace if e["action"] == "alloc"), key=lambda e: -e.get("size", 0))[:k]
    if not allocs:
        return ""
    rows = "".join(f"<tr><td>{format_size(e['size'])}</td><td>{e.get('addr', 0):#x}</td>"
                   f"<td><pre>{html.escape(_frames_text(e.get('frames') or [], 6))}</pre></td></tr>" for e in allocs)
    return f"<table><tr><th>size</th><th>address</th><th>allocated at</th></tr>{rows}</table>"


_STYLE = """body{font-family:sans-serif;margin:20px;color:#222}.lbl{font:11px monospace;fill:#333}
.plot rect:hover{stroke:#000;stroke-width:1.5}#tip{position:fixed;display:none;background:#fffbe6;
border:1px solid #aaa;padding:6px;font:11px monospace;white-space:pre;pointer-events:none;max-width:700px}
table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ddd;padding:3px 6px;vertical-align:top}
pre{margin:0}.key span{display:inline-block;width:12px;height:12px;margin:0 4px 0 12px;vertical-align:middle}"""
_SCRIPT = """const tip=document.getElementById('tip');document.addEventListener('mousemove',ev=>{
const t=ev.target.getAttribute&&ev.target.getAttribute('data-tip');if(!t){tip.style.display='none';return;}
tip.textContent=t;tip.style.display='block';tip.style.left=(ev.clientX+14)+'px';tip.style.top=(ev.clientY+14)+'px';});"""


def render_html(snapshot, title: str = "glasstorch memory snapshot") -> str:
    """The viewer page for a snapshot dict (or a pickle's bytes or path)."""
    snap = _load(snapshot)
    segments = snap.get("segments", [])
    summary = segment_summary(snap)
    key = "".join(f'<span style="background:{c}"></span>{k.replace("_", " ")} {format_size(summary[k])}'
                  for k, c in COLOURS.items())
    body = [f"<h1>{html.escape(title)}</h1>", f'<div class="key">{key}</div>',
            f"<h2>Segments ({len(segments)})</h2>", _segments_svg(segments)]
    traces = snap.get("device_traces") or []
    for device, trace in enumerate(traces):
        body.append(f"<h2>Timeline, device {device}</h2>")
        body.append(_timeline_svg(timeline(snap, device)))
        body.append(_top_allocations(trace))
    data = json.dumps({"summary": summary, "segments": len(segments)})
    return (f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            f"<style>{_STYLE}</style></head><body>{''.join(body)}<div id=\"tip\"></div>"
            f"<script id=\"data\" type=\"application/json\">{data}</script><script>{_SCRIPT}</script>"
            f"</body></html>")


def save_html(snapshot, path: str, title: str = "glasstorch memory snapshot") -> str:
    """Write :func:`render_html` to ``path`` and return the path."""
    with open(path, "w", encoding="utf-8") as f:
        f.write(render_html(snapshot, title))
    return path
