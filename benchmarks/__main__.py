"""`python -m benchmarks [--quick] [--only GROUP ...]`: print the benchmark table."""

from __future__ import annotations

import argparse
import importlib
import sys
import time
import traceback
from collections.abc import Sequence

from ._report import GROUPS, Row, load_line, print_table


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument(
        "--quick", action="store_true", help="fewer runs, shorter waits, no browser (CI smoke)"
    )
    parser.add_argument(
        "--only", nargs="+", choices=GROUPS, metavar="GROUP", help=f"run only these: {GROUPS}"
    )
    args = parser.parse_args(argv)
    rows: list[Row] = []
    started = time.monotonic()
    print(f"mcp-widgets benchmarks{' (--quick)' if args.quick else ''}; {load_line()}", flush=True)
    for group in args.only or GROUPS:
        t0 = time.monotonic()
        try:
            module = importlib.import_module(f"benchmarks.{group}")
            got = module.run(args.quick)
        except Exception as exc:
            traceback.print_exc()
            got = [Row(group, "ERROR", None, unit="", note=f"{type(exc).__name__}: {exc}"[:200])]
        rows += got
        print(f"[{group}: {time.monotonic() - t0:.1f} s]", file=sys.stderr, flush=True)
    print()
    print_table(rows)
    print(f"\n(total {time.monotonic() - started:.0f} s; medians; ratio = median / baseline; {load_line()})")
    return 1 if any(r.name == "ERROR" for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
