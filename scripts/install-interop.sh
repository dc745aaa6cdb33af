#!/usr/bin/env bash
# Installs the interop tests' npm packages exactly as pinned by their lockfiles:
#   tests/interop/              @lancedb/lancedb 0.31.0 (Lance 8), apache-arrow 18.1.0
#   tests/interop/lancedb-0.39/ @lancedb/lancedb 0.39.0 (Lance 12, file format 2.2), apache-arrow 18.1.0
# Skips a directory whose node_modules already matches its lockfile.
set -euo pipefail
interop="$(cd "$(dirname "$0")/../tests/interop" && pwd)"
for dir in "$interop" "$interop/lancedb-0.39"; do
  cd "$dir"
  stamp=node_modules/.package-lock.json
  if [ -f "$stamp" ] && [ "$stamp" -nt package-lock.json ] && \
     node -e "require('@lancedb/lancedb')" >/dev/null 2>&1; then
    echo "install-interop: ${dir#"$interop"/} node_modules up to date"
    continue
  fi
  echo "install-interop: npm ci in ${dir}"
  npm ci --no-audit --no-fund
done
