"""The pictures in the command line's formats (``--format text|mermaid|dot``): the renderers of
:mod:`beliefdb.graph`, which the CLI reaches here, with the other renderers."""

from __future__ import annotations

from beliefdb.graph import FORMATS, draw

__all__ = ["FORMATS", "draw"]
