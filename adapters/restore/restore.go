// Package restore is the contract between package resume and the agents' restore encoders: the
// transcript handed to an encoder, the job, the files it plans and how faithful each is, and the
// helpers several encoders share (replaying the records kept at capture, rebuilding a
// conversation in another agent's idiom, deterministic ids).
//
// An agent that can be restored into implements Encoder in its own package (adapters/<agent>,
// encode.go) and declares Capabilities().Restore; resume plans the lineage, hands the encoder one
// Job and writes what it plans, never overwriting. Encoders only plan: they never touch the disk
// except to read what the agent keeps under the root (Gemini's projects.json).
package restore

import (
	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/session/view"
)

// Transcript is one stored session with its messages in order (timestamp, then id) and each
// message's parts by ordinal: the shape the store reads back.
type Transcript struct {
	Session  session.Session
	Messages []session.Message
	Parts    map[string][]session.Part // by message id
}

// Encoder writes sessions in one agent's format. An adapter implements it exactly when its
// Capabilities().Restore is set (adapters/all's tests check).
type Encoder interface {
	// Encode plans the files of one restore and the command that resumes it. It fails for a
	// destination the agent cannot be restored into (OpenCode without an import folder) and,
	// with an *UnsafeError, for a stored value that cannot be part of a path (CheckName,
	// CheckRel).
	Encode(j *Job) (*Plan, error)
}

// Job is one batch to encode.
type Job struct {
	// Batch[0] is the session asked for, the rest its direct children (sub-agents).
	Batch []*Transcript
	// Native: the batch comes from this same agent, so the captured records are replayed;
	// otherwise it is rebuilt from the canonical model (a foreign reconstruction).
	Native bool
	// Root is the agent's root to write under (the real one, or a folder standing for it).
	Root string
	// ImportDir is where documents go that the agent imports itself (OpenCode): a folder of
	// Pond's for a restore into the real root, Root itself under --out-dir.
	ImportDir string
}

// Plan is what an encoder decided: the files and how to resume.
type Plan struct {
	ID  string // the restored session's id in the agent
	Cwd string // where to resume it, when not the session's project
	// Argv are the commands that continue the work, each an argv run in the working
	// directory, in order. Values from the archive go in as arguments, never into a shell line.
	Argv [][]string
	// NeedsCwd: the agent resumes a session only from its working directory.
	NeedsCwd bool
	Files    []Planned
}

// Fidelity says how faithful a restored file is: the read model's, which outcomes carry.
type Fidelity = view.Fidelity

// Fidelities.
const (
	Native     = view.FidelityNative     // the source records replayed: the agent sees what it wrote
	Foreign    = view.FidelityForeign    // rebuilt from the canonical model in the target's idiom
	Downgraded = view.FidelityDowngraded // written, but with something missing (see Reason)
)

// IDFromFileName is the downgrade reason of a session whose records carry no id of their own:
// Pond named it after its file, the restored file follows the agent's naming, so the agent
// (and a re-capture) knows it under another id.
const IDFromFileName = "the session's records carry no session id (it was named after its file), so the restored copy has the agent's file name and is known by another id"

// File is one file a restore wrote (or would have written).
type File = view.ResumeFile

// Planned is one file to write: where, what it restores, and its bytes; or, with Rows, the
// rows to insert into the agent's database at Path.
type Planned struct {
	File
	Data []byte
	Rows *Rows
	// Merge: Data is a JSON object whose members are added to the object the file at Path
	// holds, which may exist (an agent's index of its sessions, OpenClaw's sessions.json). The
	// file's own members are kept byte for byte; one of Data's names already there fails the
	// restore, so nothing is overwritten. A file that does not exist is written as Data.
	Merge bool
}

// NewFile plans data at path for the stored session sessionID, known to the agent as id.
func NewFile(path, sessionID, id string, fid Fidelity, reason string, data []byte) Planned {
	return Planned{File: File{Path: path, Session: sessionID, ID: id, Fidelity: fid, Reason: reason, Bytes: len(data)}, Data: data}
}

// NewRows plans rows inserted into the agent's database at path for the stored session
// sessionID, known to the agent as id.
func NewRows(path, sessionID, id string, fid Fidelity, reason string, rows *Rows) Planned {
	return Planned{File: File{Path: path, Session: sessionID, ID: id, Fidelity: fid, Reason: reason, Rows: rows.Count()}, Rows: rows}
}

// Downgrade marks the file downgraded for reason (a sidecar keeps its fidelity); reasons add up.
func (p *Planned) Downgrade(reason string) {
	if p.Sidecar {
		return
	}
	if p.Fidelity != Downgraded {
		p.Fidelity = Downgraded
		p.Reason = joinReasons(reason, p.Reason)
		return
	}
	p.Reason = joinReasons(p.Reason, reason)
}

func joinReasons(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// ReadBacker is implemented by an adapter whose restore does not land in the agent's own layout
// (OpenCode's is a document that `opencode import` takes in). ReadBackRoot lays out what a
// restore wrote, the files, as the agent keeps it once taken in, under dir, and returns the
// root the adapter reads it back from. Tests use it to read a restore back.
type ReadBacker interface {
	ReadBackRoot(files []File, dir string) (root string, err error)
}
