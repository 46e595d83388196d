package apitype

import (
	"encoding/json"
	"errors"
)

// ResumeRequest is POST /v1/resume: write a stored session, with its sub-agents, back into an
// agent's own session files (`pond resume`). The daemon writes the files; running the command
// that continues the work (--launch) is the caller's, in the user's terminal.
type ResumeRequest struct {
	Versioned
	Session string `json:"session"`
	To      string `json:"to"` // claude-code, codex-cli, gemini-cli, opencode, pi-coding-agent
	// OutDir is an absolute folder standing for the agent's own folder, or "native" (or empty)
	// for the real one.
	OutDir string `json:"out_dir,omitempty"`
	// Root, for a native restore, is the agent's real folder as the caller resolved it in its
	// own environment (absolute); empty lets the daemon resolve it in the daemon's.
	Root string `json:"root,omitempty"`
}

// ResumeOutcome is what a restore did. Its fields and their JSON follow the resume package's
// outcome (`pond resume --format json`).
type ResumeOutcome struct {
	Status  string       `json:"status"` // ok, or the code of the refusal
	Code    int          `json:"code"`   // the CLI's exit code
	Message string       `json:"message,omitempty"`
	Session string       `json:"session"`
	From    string       `json:"from,omitempty"`
	To      string       `json:"to"`
	Native  bool         `json:"native"`
	Root    string       `json:"root,omitempty"`
	ID      string       `json:"id,omitempty"`
	Cwd     string       `json:"cwd,omitempty"`
	Command string       `json:"command,omitempty"` // continues the work, e.g. cd <cwd> && claude --resume <id>
	Files   []ResumeFile `json:"files"`
}

// ResumeFile is one file a restore wrote (or would have written).
type ResumeFile struct {
	Path     string `json:"path"`
	Session  string `json:"session"`
	ID       string `json:"id"`
	Fidelity string `json:"fidelity"` // native, foreign or downgraded
	Reason   string `json:"reason,omitempty"`
	Bytes    int    `json:"bytes"`
	Sidecar  bool   `json:"sidecar,omitempty"`
}

// Codes of a restore that was refused or failed: each is the outcome's status, and the error's
// details hold the whole outcome under "outcome" (RefusedRestore reads it back).
const (
	CodeNotStored    = "not_stored"    // the session is not in the archive
	CodeUnknownAgent = "unknown_agent" // no agent Pond restores into
	CodeTooDeep      = "too_deep"      // sub-agents with sub-agents of their own
	CodeNoNativeDir  = "no_native_dir" // the agent's own folder cannot be found
	CodeCwdMissing   = "cwd_missing"   // the agent resumes only from a working directory that is gone
	CodeTargetExists = "target_exists" // a file exists; nothing was written
	CodeWriteFailed  = "write_failed"  // what was written has been removed
)

// RefusedRestore returns the outcome that a refused or failed restore's error carries, or
// false when err is not such an error.
func RefusedRestore(err error) (*ResumeOutcome, bool) {
	var ae *Error
	if !errors.As(err, &ae) || ae.Details["outcome"] == nil {
		return nil, false
	}
	b, err := json.Marshal(ae.Details["outcome"])
	if err != nil {
		return nil, false
	}
	var o ResumeOutcome
	if json.Unmarshal(b, &o) != nil || o.Status != ae.Code {
		return nil, false
	}
	return &o, true
}
