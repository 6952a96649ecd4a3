"""Which engine-log lines the log view hides by default: HTTP access lines that answered fine.

The console itself polls /metrics and /server_info every few seconds, so a launched engine's log is mostly
uvicorn access lines (`INFO:     127.0.0.1:44996 - "GET /metrics HTTP/1.1" 200 OK`). This classifies display
lines only (nothing is parsed for figures): an access line with a 1xx–3xx status is noise; one with a 4xx/5xx
status is kept, as is every other line.
"""

from __future__ import annotations

METHODS = ("GET ", "POST ", "HEAD ", "PUT ", "DELETE ", "OPTIONS ", "PATCH ")


def is_access_noise(line: str) -> bool:
    """True for an HTTP access-log line (`"METHOD /path HTTP/x.y" NNN`) whose status is below 400."""
    i = line.find(" HTTP/")
    if i < 0:
        return False
    q = line.rfind('"', 0, i)  # the quote that opens the request line
    if q < 0 or not line.startswith(METHODS, q + 1):
        return False
    j = line.find('" ', i)
    if j < 0:
        return False
    status = line[j + 2:j + 5]
    return len(status) == 3 and status.isdigit() and int(status) < 400
