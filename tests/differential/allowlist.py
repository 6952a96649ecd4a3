"""Every intended or known difference between the twin and the real SGLang 0.5.23 server that the differential
tests observe, as {difference_id: reason}. A difference not listed fails its probe's test; an entry no longer
observed fails test_allowlist_still_observed (the list cannot rot). Ids are what tests/differential/wire.py's
`compare` prints: `<probe>: <what differs>`. "not yet fixed" marks a twin gap, not an intended difference.

Observed to agree (no entry): /server_info's key set, /v1/models, /health, unknown routes (404), the chat
completion body, the chat SSE stream (event kinds role → content → finish → usage → [DONE] and every chunk
kind's fields and types), every request-validation probe (status, error JSON shape and message text, with the
handler's site-packages, the served model's name and, where a probe says so, context numbers blanked).
"""

from __future__ import annotations

ALLOWED: dict[str, str] = {
}

