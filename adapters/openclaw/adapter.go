// Package openclaw reads the sessions of OpenClaw (formerly Clawdbot/Moltbot, npm `openclaw`),
// an agent built on pi's session format. Its state dir ($OPENCLAW_STATE_DIR, else ~/.openclaw)
// holds one folder per agent, agents/<agentId>/, and every agent's sessions are read, in two
// eras that upgrades leave side by side:
//
//   - the database (canonical since 2026.8): agents/<agentId>/agent/openclaw-agent.sqlite.
//     session_nodes holds one logical conversation per routing key ("agent:main:main"),
//     session_windows one row per transcript generation of it (the session; linked to the
//     generation before by previous_session_id, with the reason: reset, rollover, fork, rewind,
//     compaction …, and to the session that spawned it by parent_session_key), and
//     transcript_events the session's pi v3 lines by seq, each in event_json or, from 1 KiB,
//     zstd-compressed in event_zstd. One source per session window. A window OpenClaw moved to
//     cold storage has no events left there: they are read from its archive
//     (session_transcript_cold_archives: in the database, or in sessions/cold/).
//   - the legacy files: agents/<agentId>/sessions/<sessionId>.jsonl (pi v3 lines) indexed by
//     sessions.json (session key → entry). One source per file. A file whose session the
//     database also holds is listed as superseded: the database is what OpenClaw reads.
//   - archives beside them: <name>.jsonl.deleted.<time> and <name>.jsonl.reset.<time>, each
//     possibly .zst-compressed, which OpenClaw writes when it deletes a session, resets it, or
//     reclaims an old generation to save space. Pond keeps what agents purge, so they are read
//     as sessions (options.openclaw.archived says which kind); one whose session is live
//     elsewhere is superseded.
//
// Lines map as pi's do (adapters/pi: ReadFile and Lines, with OpenClaw as the host). What the
// lines do not say comes from OpenClaw's own records, kept verbatim under the session's
// options.openclaw: the window row and its node's (or, for a file, its sessions.json entry).
// Lineage: a window's previous_session_id is its parent (a fork's cut point is the node's
// fork_source_entry_id); a spawned session (sub-agent, key "agent:<id>:subagent:…") has the
// window of its parent key current when it started as parent, and the source agent
// openclaw/subagent; cron runs are openclaw/cron.
//
// Left out: the sidecar trajectory files (*.trajectory.jsonl) and the database's
// trajectory_runtime_events, runtime telemetry rather than conversation; the database's
// navigation_json, an index derived from the event; and session_transcript_archives rows,
// which OpenClaw publishes as the archive files read above.
package openclaw

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/pondhq/pond/adapters"
)

// Name is the adapter's name and the sessions' source_agent.
const Name = "openclaw"

// stateDirEnv is OpenClaw's override of its state dir.
const stateDirEnv = "OPENCLAW_STATE_DIR"

// dbName is the per-agent database, under agents/<agentId>/agent/.
const dbName = "openclaw-agent.sqlite"

// Adapter reads OpenClaw sessions. The zero value is ready to use.
type Adapter struct{}

var _ adapters.Adapter = Adapter{}

// New returns the OpenClaw adapter.
func New() Adapter { return Adapter{} }

// Name implements adapters.Adapter.
func (Adapter) Name() string { return Name }

// Capabilities implements adapters.Adapter.
func (Adapter) Capabilities() adapters.Capabilities {
	return adapters.Capabilities{Restore: true, ToolCalls: true, Subagents: true, Incremental: true}
}

// Roots implements adapters.Adapter: $OPENCLAW_STATE_DIR (a leading ~ expanded, as OpenClaw
// does), else ~/.openclaw, or the legacy ~/.clawdbot when only that exists (OpenClaw's own
// choice). The same on every OS.
func (Adapter) Roots(env adapters.Env) []string {
	if env.Getenv != nil {
		if dir := strings.TrimSpace(env.Getenv(stateDirEnv)); dir != "" {
			return []string{expandHome(dir, env.Home)}
		}
	}
	if env.Home == "" {
		return nil
	}
	dir := filepath.Join(env.Home, ".openclaw")
	if _, err := os.Stat(dir); err != nil {
		if legacy := filepath.Join(env.Home, ".clawdbot"); isDir(legacy) {
			return []string{legacy}
		}
	}
	return []string{dir}
}

func expandHome(dir, home string) string {
	switch {
	case home == "":
		return dir
	case dir == "~":
		return home
	case strings.HasPrefix(dir, "~/"), strings.HasPrefix(dir, `~\`):
		return filepath.Join(home, dir[2:])
	}
	return dir
}

func isDir(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.IsDir()
}

// agentDirs lists root's agents/<agentId> folders, sorted.
func agentDirs(root string) ([]string, error) {
	if _, err := os.Stat(root); err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(filepath.Join(root, "agents"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if dir := filepath.Join(root, "agents", e.Name()); isDir(dir) {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}

// Scan implements adapters.Adapter: every session window of every agent's database, then
// every agent's legacy transcripts and archives, a session read from one place only.
func (Adapter) Scan(ctx context.Context, env adapters.Env, root string) ([]adapters.Source, error) {
	agents, err := agentDirs(root)
	if err != nil {
		return nil, fmt.Errorf("openclaw: scan %s: %w", root, err)
	}
	var out []adapters.Source
	live := map[string]bool{} // session ids the databases hold
	for _, agent := range agents {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		db := filepath.Join(root, "agents", agent, "agent", dbName)
		if _, err := os.Stat(db); err != nil {
			continue
		}
		srcs, err := scanDB(ctx, env, root, agent, db)
		if err != nil {
			return nil, err
		}
		for _, s := range srcs {
			live[s.Hint] = true
		}
		out = append(out, srcs...)
	}
	for _, agent := range agents {
		srcs, err := scanFiles(ctx, root, agent, live)
		if err != nil {
			return nil, err
		}
		out = append(out, srcs...)
	}
	return out, nil
}

// racyWindow is how long after its last write a file is too fresh to vouch for: a second write
// within the same tick of the file system's clock may leave its size and time as they were.
const racyWindow = 2 * time.Second

// RootStamp implements adapters.Adapter: each agent database's adapters.SQLiteStamp, and the
// name, size and modification time of every file in each agent's sessions folder (everything
// Scan reads). "" while one of those files is younger than racyWindow.
func (Adapter) RootStamp(ctx context.Context, env adapters.Env, root string) (string, error) {
	agents, err := agentDirs(root)
	if err != nil {
		return "", fmt.Errorf("openclaw: stamp %s: %w", root, err)
	}
	h := sha256.New()
	now := time.Now()
	for _, agent := range agents {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		db := filepath.Join(root, "agents", agent, "agent", dbName)
		if _, err := os.Stat(db); err == nil {
			st, err := adapters.SQLiteStamp(db)
			if err != nil {
				return "", fmt.Errorf("openclaw: %w", err)
			}
			fmt.Fprintf(h, "db %s %s\n", agent, st)
		}
		dir := filepath.Join(root, "agents", agent, "sessions")
		ents, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("openclaw: stamp %s: %w", root, err)
		}
		for _, e := range ents {
			info, err := os.Stat(filepath.Join(dir, e.Name()))
			if err != nil {
				continue // gone since
			}
			if info.IsDir() {
				continue
			}
			if now.Sub(info.ModTime()) < racyWindow {
				return "", nil
			}
			fmt.Fprintf(h, "file %s %s %s\n", agent, e.Name(), adapters.FileStamp(info))
		}
	}
	return "v1:" + hex.EncodeToString(h.Sum(nil)[:16]), nil
}

// Read implements adapters.Adapter.
func (Adapter) Read(ctx context.Context, env adapters.Env, src adapters.Source, cur adapters.Cursor, out adapters.Emitter) (adapters.Cursor, error) {
	if src.Skip != "" {
		return adapters.Cursor{Stamp: src.Stamp}, nil // another source holds the session
	}
	if strings.Contains(src.Key, "#") {
		return readDB(ctx, env, src, cur, out)
	}
	return readFile(ctx, env, src, cur, out)
}
