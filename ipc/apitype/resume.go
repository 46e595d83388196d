package apitype

import (
	"encoding/json"
	"errors"

	"github.com/pondhq/pond/session/view"
)

// ResumeRequest is POST /v1/resume: write a stored session, with its sub-agents, back into an
// agent's own session files (`pond resume`). The daemon writes the files; running the command
// that continues the work (--launch) is the caller's, in the user's terminal.
type ResumeRequest struct {
	Versioned
	Session string `json:"session"`
	To      string `json:"to"` // claude-code, codex-cli, copilot-cli, gemini-cli, hermes, openclaw, opencode, pi-coding-agent, qwen-code, cline, roo-code, kilo, goose, aider
	// OutDir is an absolute folder standing for the agent's own folder, or "native" (or empty)
	// for the real one.
	OutDir string `json:"out_dir,omitempty"`
	// Root, for a native restore, is the agent's real folder as the caller resolved it in its
	// own environment (absolute); empty lets the daemon resolve it in the daemon's.
	Root string `json:"root,omitempty"`
}

// Codes of a restore that was refused or failed: each is the outcome's status, and the error's
// details hold the whole outcome under "outcome" (RefusedRestore reads it back).
const (
	CodeNotStored    = "not_stored"    // the session is not in the archive
	CodeUnknownAgent = "unknown_agent" // no agent Pond restores into
	CodeTooDeep      = "too_deep"      // sub-agents with sub-agents of their own
	CodeNoNativeDir  = "no_native_dir" // the agent's own folder cannot be found
	CodeCwdMissing   = "cwd_missing"   // the agent resumes only from a working directory that is gone
	CodeUnsafePath   = "unsafe_path"   // a path would leave the agent's folder (or out_dir passes another user's files); nothing was written
	CodeTargetExists = "target_exists" // a file exists; nothing was written
	CodeWriteFailed  = "write_failed"  // what was written has been removed
)

// RefusedRestore returns the outcome that a refused or failed restore's error carries, or
// false when err is not such an error.
func RefusedRestore(err error) (*view.ResumeOutcome, bool) {
	var ae *Error
	if !errors.As(err, &ae) || ae.Details["outcome"] == nil {
		return nil, false
	}
	o, ok := ae.Details["outcome"].(*view.ResumeOutcome)
	if !ok {
		// From the socket: details are plain JSON values.
		b, err := json.Marshal(ae.Details["outcome"])
		if err != nil || json.Unmarshal(b, &o) != nil {
			return nil, false
		}
	}
	if string(o.Status) != ae.Code {
		return nil, false
	}
	return o, true
}
