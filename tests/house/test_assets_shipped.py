"""The widgets' front-end code ships in the package and loads nothing from the network: each anywidget's ES
module is a file under mcp_widgets/widgets/assets/, given to anywidget as its text, with no `import` of a URL
(Colab's widget manager, JupyterLab's, Notebook's and VS Code's load it the same way; a page without the
network, or one that blocks a CDN, still shows every form)."""

from __future__ import annotations

import re
from pathlib import Path

ASSETS = Path(__file__).resolve().parents[2] / "mcp_widgets" / "widgets" / "assets"
# A static `import ... from "..."`, a bare `import "..."`, a dynamic `import("...")`, or a CSS `@import`.
IMPORTS = re.compile(r"""\bimport\b[^;]*?["'`]([^"'`]+)["'`]|@import\s+(?:url\()?["']?([^"')\s;]+)""")


def test_every_module_and_stylesheet_imports_nothing() -> None:
    files = sorted(p for p in ASSETS.iterdir() if p.suffix in (".js", ".css"))
    assert files, f"no assets in {ASSETS}"
    imported = {p.name: [a or b for a, b in IMPORTS.findall(p.read_text(encoding="utf-8"))] for p in files}
    assert {name: found for name, found in imported.items() if found} == {}


def test_the_pattern_finds_what_it_looks_for() -> None:
    samples = [
        'import confetti from "https://esm.sh/canvas-confetti@1";',
        "const m = await import('https://cdn.example/x.js');",
        'import "https://cdn.example/side-effect.js";',
        '@import url("https://fonts.example/css");',
    ]
    assert [a or b for s in samples for a, b in IMPORTS.findall(s)] == [
        "https://esm.sh/canvas-confetti@1",
        "https://cdn.example/x.js",
        "https://cdn.example/side-effect.js",
        "https://fonts.example/css",
    ]
