#!/usr/bin/env bash
# Installs the interop tests' npm packages (@lancedb/lancedb 0.31.0, apache-arrow 18.1.0) exactly
# as pinned by tests/interop/package-lock.json. Skips the install when node_modules already
# matches the lockfile.
set -euo pipefail
cd "$(dirname "$0")/../tests/interop"
stamp=node_modules/.package-lock.json
if [ -f "$stamp" ] && [ "$stamp" -nt package-lock.json ] && \
   node -e "require('@lancedb/lancedb')" >/dev/null 2>&1; then
  echo "install-interop: node_modules up to date"
  exit 0
fi
echo "install-interop: npm ci in tests/interop"
npm ci --no-audit --no-fund
