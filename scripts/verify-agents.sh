#!/usr/bin/env bash
# make verify-agents: install the agents' own code from the npm registry (versions and integrity
# pinned by scripts/verify-agents/package-lock.json) into the cache, outside the repository, one
# folder per lockfile so that branches with other pins do not undo each other's install; then
# hand Pond's restored files to it (resume's TestAgentLoaders, which says what each agent does
# with them). Verified this way: pi (its SessionManager), Claude Code, Codex CLI, Gemini CLI and
# OpenCode (each CLI resumes the restored session against a fake model API on the loopback).
# About 1.3 GB installed (the Claude Code, Codex and OpenCode binaries are most of it).
set -euo pipefail
cd "$(dirname "$0")/.."
src=scripts/verify-agents
lock=$(sha256sum "$src/package-lock.json" | cut -c1-16)
dir="${XDG_CACHE_HOME:-$HOME/.cache}/pond/verify-agents/$lock"
if [ ! -d "$dir/node_modules" ]; then
	tmp="$dir.tmp.$$"
	rm -rf "$tmp"
	mkdir -p "$tmp"
	cp "$src/package.json" "$src/package-lock.json" "$tmp/"
	(cd "$tmp" && npm ci --no-audit --no-fund --ignore-scripts)
	# Whole or not at all: a half-done install is never taken for a finished one.
	mv -T "$tmp" "$dir" 2>/dev/null || rm -rf "$tmp"
fi
cp "$src"/*.mjs "$dir/"
POND_VERIFY_AGENTS="$dir" scripts/go test ./resume/ -run TestAgentLoaders -count=1 -timeout 60m -v "$@" | grep -v -E '^\s*(=== RUN|--- PASS)' | tail -n 80
