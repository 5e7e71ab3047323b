"""The ``beliefdb demo`` stories: the corrected return policy, and an agent's run repaired."""

from __future__ import annotations
