package resume

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/all"
	"github.com/pondhq/pond/adapters/restore"
	"github.com/pondhq/pond/resume/terminal"
	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/session/view"
)

// Transcript is one stored session with its messages in order (timestamp, then id) and each
// message's parts by ordinal: the shape the store reads back, and what an encoder gets.
type Transcript = restore.Transcript

// ErrNotStored is what an Archive returns (wrapped) for a session it does not hold.
var ErrNotStored = errors.New("session not stored")

// Archive is what a restore reads. The store implements it; resume never writes to it.
type Archive interface {
	Transcript(ctx context.Context, id string) (*Transcript, error)
	// Children lists the sessions whose parent is id (of every kind: resume picks the
	// sub-agents among them).
	Children(ctx context.Context, id string) ([]string, error)
}

// The restore's outcome is the read model's (session/view), so every face reads it as it is;
// these names are resume's own words for it.
type (
	Status   = view.ResumeStatus
	Fidelity = view.Fidelity
	File     = view.ResumeFile
	Outcome  = view.ResumeOutcome
)

// Statuses, each with its exit code (Status.Code).
const (
	OK           = view.ResumeOK
	NotStored    = view.ResumeNotStored
	UnknownAgent = view.ResumeUnknownAgent
	TooDeep      = view.ResumeTooDeep
	NoNativeDir  = view.ResumeNoNativeDir
	CwdMissing   = view.ResumeCwdMissing
	UnsafePath   = view.ResumeUnsafePath
	TargetExists = view.ResumeTargetExists
	WriteFailed  = view.ResumeWriteFailed
)

// Fidelities.
const (
	Native     = view.FidelityNative
	Foreign    = view.FidelityForeign
	Downgraded = view.FidelityDowngraded
)

// IDFromFileName is the downgrade reason of a session whose records carry no id of their own
// (restore.IDFromFileName).
const IDFromFileName = restore.IDFromFileName

// MarkKey is the key under which a foreign restore records where it came from
// (restore.MarkKey).
const MarkKey = restore.MarkKey

// Mark is the value under MarkKey.
type Mark = restore.Mark

// Request asks for one restore.
type Request struct {
	Session string // the stored session's id
	To      string // the target adapter's name ("claude-code", …)
	// OutDir is the root of the agent's own layout to write under (a folder standing for
	// ~/.claude, ~/.codex, …); "" or "native" writes under the agent's real root: Root when
	// set, else NativeRoot(To, Env).
	OutDir string
	// Root is the agent's real root as the caller resolved it (NativeRoot in its own
	// environment): the CLI sends it to the daemon, whose environment may differ.
	Root string
	Env  adapters.Env
	// ImportDir is where documents go that the agent imports itself (OpenCode) when OutDir is
	// native: a folder of Pond's, never inside the agent's database directory.
	ImportDir string
	Now       func() time.Time // nil: time.Now
}

func fail(o *Outcome, st Status, format string, args ...any) *Outcome {
	o.Status, o.Code, o.Message = st, st.Code(), fmt.Sprintf(format, args...)
	return o
}

// Restore plans and writes one restore. The returned outcome always says what happened; the
// error is non-nil only for a failure of the archive itself (then the outcome is nil).
func Restore(ctx context.Context, a Archive, req Request) (*Outcome, error) {
	o := &Outcome{Session: req.Session, To: req.To, Files: []File{}}
	_, enc, ok := target(req.To)
	if !ok {
		why := "Pond restores into " + strings.Join(Targets(), ", ")
		if a, known := all.ByName(req.To); known {
			if d, ok := a.(adapters.Describer); ok && d.Describe().NoRestore != "" {
				why = d.Describe().NoRestore + " (Pond restores into " + strings.Join(Targets(), ", ") + ")"
			}
		}
		return fail(o, UnknownAgent, "cannot restore into %q: %s", req.To, why), nil
	}
	now := time.Now
	if req.Now != nil {
		now = req.Now
	}
	batch, err := loadLineage(ctx, a, req.Session)
	if errors.Is(err, ErrNotStored) {
		return fail(o, NotStored, "session %s is not in the archive (pond sync captures it; pond sql lists what is stored)", req.Session), nil
	}
	var deep *tooDeepError
	if errors.As(err, &deep) {
		return fail(o, TooDeep, "%v", deep), nil
	}
	if err != nil {
		return nil, err
	}
	root := batch[0]
	o.From, o.Cwd = root.Session.SourceAgent, root.Session.Project
	for _, t := range batch {
		// Ids name files and go into the resume command; an archive from before ids were
		// checked at capture and ingest may still hold one that is not safe.
		if err := session.CheckID(t.Session.ID); err != nil {
			return fail(o, UnsafePath, "the stored session id %s: nothing was written", err), nil
		}
	}

	dest, err := destination(req)
	if err != nil {
		return fail(o, NoNativeDir, "%v", err), nil
	}
	o.Root = dest.root
	var guard func(string) error
	if !dest.native {
		// Checked before encoding too: Gemini's encoder reads projects.json below the root.
		guard = checkOutDir
		if err := checkOutDir(dest.root); err != nil {
			return fail(o, UnsafePath, "%v: nothing was written", err), nil
		}
	}
	native := family(root.Session.SourceAgent) == req.To
	o.Native = native
	plan, err := enc.Encode(&restore.Job{Batch: batch, Native: native, Root: dest.root, ImportDir: dest.importDir})
	var unsafe *restore.UnsafeError
	if errors.As(err, &unsafe) {
		return fail(o, UnsafePath, "%v: nothing was written (the archive may hold someone else's export or ingest; Pond writes only below %s)", err, dest.root), nil
	}
	if err != nil { // a missing destination folder
		return fail(o, NoNativeDir, "%v", err), nil
	}
	o.ID, o.Argv = plan.ID, plan.Argv
	if plan.Cwd != "" {
		o.Cwd = plan.Cwd
	}
	o.Command = terminal.ShellLine(o.Cwd, o.Argv)
	if plan.NeedsCwd {
		if !filepath.IsAbs(o.Cwd) {
			for i := range plan.Files {
				plan.Files[i].Downgrade(fmt.Sprintf("the session recorded no working directory (only the project key %q): resume it from the project's folder", o.Cwd))
			}
		} else if _, err := os.Stat(o.Cwd); err != nil {
			if dest.native {
				return fail(o, CwdMissing, "the session's working directory %s no longer exists and %s only resumes a session from it: create the folder, or restore with --out-dir", o.Cwd, req.To), nil
			}
			for i := range plan.Files {
				plan.Files[i].Downgrade(fmt.Sprintf("working directory %s does not exist on this machine", o.Cwd))
			}
		}
	}
	roots := []string{dest.root}
	if dest.importDir != "" && dest.importDir != dest.root {
		roots = append(roots, dest.importDir)
	}
	err = writeBatch(ctx, roots, guard, plan.Files, req.Env.WriteRows, now())
	for _, f := range plan.Files {
		o.Files = append(o.Files, f.File)
	}
	if err != nil {
		var exists *existsError
		if errors.As(err, &exists) {
			return fail(o, TargetExists, "%v: nothing was written (restore elsewhere with --out-dir)", err), nil
		}
		var refused *unsafeError
		if errors.As(err, &refused) {
			return fail(o, UnsafePath, "%v: nothing was written", err), nil
		}
		return fail(o, WriteFailed, "%v (the files written before the failure were removed)", err), nil
	}
	o.Status, o.Code = OK, 0
	return o, nil
}

// family is an agent's adapter name without its sub-kind: "claude-code/subagent" → "claude-code".
func family(agent string) string {
	name, _, _ := strings.Cut(agent, "/")
	return name
}

// target is the adapter named to and its encoder, when Pond restores into that agent: the
// adapter declares Capabilities().Restore and implements restore.Encoder (adapters/all's tests
// check that the two agree).
func target(to string) (adapters.Adapter, restore.Encoder, bool) {
	a, ok := all.ByName(to)
	if !ok || !a.Capabilities().Restore {
		return nil, nil, false
	}
	enc, ok := a.(restore.Encoder)
	return a, enc, ok
}

// Targets lists the agents Pond restores into, in adapters/all's order.
func Targets() []string {
	var out []string
	for _, a := range all.Adapters() {
		if _, _, ok := target(a.Name()); ok {
			out = append(out, a.Name())
		}
	}
	return out
}

// NativeRoot is the real root of agent to on this machine as env sees it (its environment
// variables, e.g. CLAUDE_CONFIG_DIR or CODEX_HOME, then the home directory), or "" for an agent
// Pond does not restore into or when there is no home directory.
func NativeRoot(to string, env adapters.Env) string {
	a, _, ok := target(to)
	if !ok {
		return ""
	}
	roots := a.Roots(env)
	if len(roots) == 0 {
		return ""
	}
	return roots[0]
}

// dest is where a restore writes.
type dest struct {
	root      string // the agent's root (or the folder standing for it)
	native    bool   // root is the agent's real root on this machine
	importDir string // for agents restored through an import document
}

func destination(req Request) (dest, error) {
	if req.OutDir != "" && req.OutDir != "native" {
		abs, err := filepath.Abs(req.OutDir)
		if err != nil {
			return dest{}, err
		}
		return dest{root: abs, importDir: abs}, nil
	}
	root := req.Root
	if root == "" {
		root = NativeRoot(req.To, req.Env)
	}
	if root == "" {
		return dest{}, fmt.Errorf("cannot find %s's folder on this machine (no home directory): pass --out-dir", req.To)
	}
	return dest{root: root, native: true, importDir: req.ImportDir}, nil
}

// tooDeepError refuses a lineage deeper than a session and its children.
type tooDeepError struct{ session, child, grandchild string }

func (e *tooDeepError) Error() string {
	return fmt.Sprintf("session %s has a child %s with children of its own (%s …): Pond restores a session with its direct children only; restore %s on its own", e.session, e.child, e.grandchild, e.child)
}

// loadLineage reads a session and its sub-agents, refusing sub-agents of sub-agents.
func loadLineage(ctx context.Context, a Archive, id string) ([]*Transcript, error) {
	t, err := a.Transcript(ctx, id)
	if err != nil {
		return nil, err
	}
	kids, err := subagents(ctx, a, t)
	if err != nil {
		return nil, err
	}
	batch := []*Transcript{t}
	for _, k := range kids {
		grand, err := subagents(ctx, a, k)
		if err != nil {
			return nil, err
		}
		if len(grand) > 0 {
			return nil, &tooDeepError{session: id, child: k.Session.ID, grandchild: grand[0].Session.ID}
		}
		batch = append(batch, k)
	}
	return batch, nil
}

// subagents reads the stored children of t that are its own sub-agents, captured on this
// machine: the sub-kind of t's agent (claude-code/subagent for claude-code), every message
// stored by that agent's adapter (options.pond.ingest.adapter, which the store stamps and no
// caller can set), and no restore mark. Other sessions that name t as their parent are not its
// lineage: forks and continuations are sessions of their own, a captured copy of an earlier
// restore (options.pond.restored_from) links to its original only for search, and a session
// that came through the ingest route or `pond import` may have been planted under t by whoever
// wrote it; each is restored on its own when asked for.
func subagents(ctx context.Context, a Archive, t *Transcript) ([]*Transcript, error) {
	ids, err := a.Children(ctx, t.Session.ID)
	if err != nil {
		return nil, err
	}
	agent := family(t.Session.SourceAgent)
	var out []*Transcript
	for _, id := range ids {
		c, err := a.Transcript(ctx, id)
		if err != nil {
			return nil, err
		}
		if c.Session.SourceAgent == agent+"/subagent" && capturedBy(c, agent) && !restoredCopy(c) {
			out = append(out, c)
		}
	}
	return out, nil
}

// capturedBy reports whether every message of t was stored by the adapter named agent.
func capturedBy(t *Transcript, agent string) bool {
	for _, m := range t.Messages {
		var o struct {
			Ingest struct {
				Adapter string `json:"adapter"`
			} `json:"ingest"`
		}
		if json.Unmarshal(m.Options["pond"], &o) != nil || o.Ingest.Adapter != agent {
			return false
		}
	}
	return len(t.Messages) > 0
}

// restoredCopy reports whether t is a captured copy of a foreign restore.
func restoredCopy(t *Transcript) bool {
	var o map[string]json.RawMessage
	_ = json.Unmarshal(t.Session.Options["pond"], &o)
	return o["restored_from"] != nil
}
