"""From text to candidate beliefs: fragments, the extractors behind a registry, and the evidence gate."""

from __future__ import annotations
