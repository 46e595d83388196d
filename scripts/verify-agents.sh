#!/usr/bin/env bash
# make verify-agents: install agents' own session loaders from the npm registry (versions and
# integrity pinned by scripts/verify-agents/package-lock.json) into the cache, outside the
# repository, then load Pond's restored files with them (resume's TestAgentLoaders).
# Agents verified this way: pi (@mariozechner/pi-coding-agent's SessionManager).
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${XDG_CACHE_HOME:-$HOME/.cache}/pond/verify-agents"
src=scripts/verify-agents
mkdir -p "$dir"
if ! cmp -s "$src/package-lock.json" "$dir/package-lock.json" || [ ! -d "$dir/node_modules" ]; then
	cp "$src/package.json" "$src/package-lock.json" "$dir/"
	(cd "$dir" && npm ci --no-audit --no-fund --ignore-scripts)
fi
cp "$src"/*.mjs "$dir/"
POND_VERIFY_AGENTS="$dir" scripts/go test ./resume/ -run TestAgentLoaders -count=1 -v "$@" | grep -v -E '^\s*(=== RUN|--- PASS)' | tail -n 60
