"""``/docs`` works without the internet. It was FastAPI's Swagger UI, whose script and stylesheet come
from a CDN: on an air-gapped machine (how many run beliefdb) the page stayed blank. It is now a page the
server renders itself from its OpenAPI document: every operation with its summary, parameters, body
fields and answers; it loads nothing from elsewhere (no script at all) and links /openapi.json."""

from __future__ import annotations

import re
from html import unescape

from fastapi.testclient import TestClient


def test_the_docs_page_lists_every_operation_and_loads_nothing_from_elsewhere(http_client: TestClient) -> None:
    page = http_client.get("/docs", headers={"Accept": "text/html"})
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html"), page.text[:300]
    html = page.text
    assert "<script" not in html.lower()  # nothing to run, so nothing to fetch
    sources = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert sources and all(s.startswith(("/", "#")) for s in sources), sources  # this server's own
    assert "cdn" not in html.lower() and 'href="/openapi.json"' in html
    spec = http_client.get("/openapi.json").json()
    text = unescape(re.sub(r"<[^>]+>", " ", html))
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            assert f'id="{method}-{path}"' in unescape(html), (method, path)
            assert operation["summary"] in text, operation["summary"]
    # a body's fields, with what each is; a query parameter; the answers
    retract = html[html.index('id="post-/retractions"'):]
    retract = retract[:retract.index("</section>")]
    assert "expect" in retract and "fingerprint" in retract and "409" in retract, retract
    listing = html[html.index('id="get-/beliefs"'):]
    assert "limit" in listing[:listing.index("</section>")]
    assert "Bearer" in text  # how to call it
