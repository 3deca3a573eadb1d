"""``python -m glasstorch.emu.memory_viz snapshot.pickle -o out.html`` — the memory viewer from the command line.

PyTorch's counterpart is ``python -m torch.cuda._memory_viz segment_plot snapshot.pickle -o out.html``; those
subcommand names are accepted too (every one produces the same page: segments and timeline).  The page is
built by ``glasstorch/_device/memory_viz.py`` from a pickle written by ``memory._dump_snapshot``.
"""

from __future__ import annotations

import argparse
import sys

from .._device.memory_viz import render_html, save_html, segment_summary, timeline

__all__ = ["main", "render_html", "save_html", "segment_summary", "timeline"]

_SUBCOMMANDS = ("segment_plot", "trace_plot", "memory", "segments")


def main(argv=None) -> int:
    """Parse ``[subcommand] snapshot.pickle [-o out.html] [--title T]`` and write the page."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in _SUBCOMMANDS:
        argv = argv[1:]
    parser = argparse.ArgumentParser(prog="python -m glasstorch.emu.memory_viz",
                                     description="Render a memory snapshot pickle as a self-contained HTML page.")
    parser.add_argument("input", help="a pickle from torch.emu.memory._dump_snapshot()")
    parser.add_argument("-o", "--output", default="output.html", help="where to write the page (output.html)")
    parser.add_argument("--title", default=None, help="the page title (the input's name by default)")
    args = parser.parse_args(argv)
    save_html(args.input, args.output, args.title or args.input)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
