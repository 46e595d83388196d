package view

// ResumeStatus is a restore's outcome: ok, or why it did not happen.
type ResumeStatus string

// Statuses, each with its exit code (Code).
const (
	ResumeOK           ResumeStatus = "ok"            // 0
	ResumeNotStored    ResumeStatus = "not_stored"    // 1
	ResumeUnknownAgent ResumeStatus = "unknown_agent" // 2: no such agent, or one that cannot be restored into
	ResumeTooDeep      ResumeStatus = "too_deep"      // 2: children with children of their own
	ResumeNoNativeDir  ResumeStatus = "no_native_dir" // 2: the agent's own folder cannot be found
	ResumeCwdMissing   ResumeStatus = "cwd_missing"   // 2: the agent needs the working directory, which is gone
	ResumeUnsafePath   ResumeStatus = "unsafe_path"   // 2: a path would leave the agent's folder or pass another user's files; nothing written
	ResumeTargetExists ResumeStatus = "target_exists" // 3: nothing written
	ResumeWriteFailed  ResumeStatus = "write_failed"  // 4: what was written has been removed
)

// Code is the process exit code of a status.
func (s ResumeStatus) Code() int {
	switch s {
	case ResumeOK:
		return 0
	case ResumeNotStored:
		return 1
	case ResumeTargetExists:
		return 3
	case ResumeWriteFailed:
		return 4
	}
	return 2
}

// Fidelity says how faithful a restored file is.
type Fidelity string

// Fidelities.
const (
	FidelityNative     Fidelity = "native"     // the source records replayed: the agent sees what it wrote
	FidelityForeign    Fidelity = "foreign"    // rebuilt from the canonical model in the target's idiom
	FidelityDowngraded Fidelity = "downgraded" // written, but with something missing (see Reason)
)

// ResumeFile is one file a restore wrote (or would have written).
type ResumeFile struct {
	Path     string   `json:"path"`
	Session  string   `json:"session"`           // the stored session it restores
	ID       string   `json:"id"`                // the session's id in the target agent
	Fidelity Fidelity `json:"fidelity"`          // native, foreign or downgraded
	Reason   string   `json:"reason,omitempty"`  // what a downgrade lost, or what was dropped
	Bytes    int      `json:"bytes"`             // size written
	Rows     int      `json:"rows,omitempty"`    // rows inserted, for a restore into the agent's database at Path
	Sidecar  bool     `json:"sidecar,omitempty"` // a file beside a transcript (e.g. sub-agent meta)
	// Includes are the other stored sessions whose records the file holds too: sub-agents an
	// agent keeps inline in their parent's file (Copilot CLI).
	Includes []string `json:"includes,omitempty"`
}

// ResumeOutcome is what a restore did (`pond resume --format json`, the resume route's answer).
type ResumeOutcome struct {
	Status  ResumeStatus `json:"status"`
	Code    int          `json:"code"`              // the CLI's exit code
	Message string       `json:"message,omitempty"` // why, when Status is not ok
	Session string       `json:"session"`
	From    string       `json:"from,omitempty"` // the stored session's agent
	To      string       `json:"to"`
	Native  bool         `json:"native"`         // same agent: the captured records replayed
	Root    string       `json:"root,omitempty"` // the agent root written under
	// ID is the restored session's id in the target agent; Cwd the folder to resume it in.
	ID  string `json:"id,omitempty"`
	Cwd string `json:"cwd,omitempty"`
	// Argv are the commands that continue the work, in order, each run as an argv in Cwd:
	// what a launcher runs, never through a shell. Command is the same as one shell line
	// (every argument quoted) for a person to copy.
	Argv    [][]string   `json:"argv,omitempty"`
	Command string       `json:"command,omitempty"`
	Files   []ResumeFile `json:"files"`
}
