"""Sends every case of cases.js to the FastAPI reference app (app.py) in process, through ASGI, and writes the
requests with the answers to goldens.json. Run by `npm run conformance:record` (record.sh), inside a virtualenv
holding the pinned versions of requirements.txt."""

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote

import fastapi
import pydantic

from app import app

HERE = Path(__file__).parent


def request_bytes(case):
    if "raw" in case:
        return case["raw"].encode("utf-8")
    if "body" in case:
        # The same bytes as JSON.stringify, which the jest suite sends.
        return json.dumps(case["body"], ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return None


async def answer(case):
    body = request_bytes(case)
    headers = [(b"host", b"conformance")]
    if body is not None:
        headers.append((b"content-type", case.get("content_type", "application/json").encode()))
        headers.append((b"content-length", str(len(body)).encode()))
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": case["method"],
        "scheme": "http",
        # An ASGI server hands the application the path percent-decoded, and the raw one beside it.
        "path": unquote(case["path"]),
        "raw_path": case["path"].encode(),
        "query_string": case.get("query", "").encode(),
        "root_path": "",
        "headers": headers,
        "client": ("127.0.0.1", 1),
        "server": ("conformance", 80),
    }
    sent = False
    status = None
    chunks = []

    async def receive():
        nonlocal sent
        if sent:
            await asyncio.sleep(3600)
        sent = True
        return {"type": "http.request", "body": body or b"", "more_body": False}

    async def send(message):
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    await app(scope, receive, send)
    raw = b"".join(chunks)
    # `text` is the body byte for byte (key order, spacing, escapes), which the gateway must answer exactly.
    return {"status": status, "body": json.loads(raw or b"null"), "text": raw.decode("utf-8")}


async def main():
    cases = json.loads(subprocess.check_output(["node", str(HERE / "cases.js")]))
    goldens = []
    for case in cases:
        goldens.append({**case, "answer": await answer(case)})
    document = {
        "recorded_with": {
            "python": sys.version.split()[0],
            "fastapi": fastapi.__version__,
            "pydantic": pydantic.VERSION,
        },
        "cases": goldens,
    }
    (HERE / "goldens.json").write_text(json.dumps(document, ensure_ascii=False, indent=1) + "\n")
    invalid = sum(1 for g in goldens if g["answer"]["status"] == 422)
    print(f"recorded {len(goldens)} cases: {invalid} invalid, {len(goldens) - invalid} valid", file=sys.stderr)


asyncio.run(main())
