#!/usr/bin/env bash
# Records goldens.json from the FastAPI reference app: a virtualenv with the pinned versions of requirements.txt,
# then record.py. Needs python3 (3.9+) with venv and pip, and a reachable package index.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="${CONFORMANCE_VENV:-$here/.venv}"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
cd "$here"
"$venv/bin/python" record.py
# The committed file is prettier's layout (the repository's), so a new recording differs only where answers do.
npx --no-install prettier --write goldens.json >/dev/null
