package daemon

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/paths"
	"github.com/pondhq/pond/resume"
	"github.com/pondhq/pond/session/view"
	"github.com/pondhq/pond/store"
)

// Resume writes a stored session, with its sub-agents, back into an agent. It only reads the
// store, so it takes no write slot and no store lock: the files go to the agent's folders (or
// the caller's out_dir), never to the archive. Live capture then reads a native restore's files
// like any others; they carry restore marks, so the copies are recognised.
//
// Paths come from the caller, absolute: out_dir, and for a native restore the agent's root as
// the caller resolved it in its own environment (CLAUDE_CONFIG_DIR, CODEX_HOME, XDG_DATA_HOME,
// HOME, … of the user's shell, which a login service does not share). Without a root the
// daemon resolves it in its own environment.
//
// A restore that does not happen answers an error whose code is the outcome's status
// (not_stored, target_exists, …) with the outcome in its details, so the CLI exits with the
// same code whichever process did the work.
func (s *Service) Resume(ctx context.Context, req *apitype.ResumeRequest) (*view.ResumeOutcome, error) {
	if err := s.needStore(); err != nil {
		return nil, err
	}
	switch {
	case req.Session == "":
		return nil, &apitype.Error{Code: apitype.CodeValidation, Message: "session is required: the id of a stored session"}
	case req.To == "":
		return nil, &apitype.Error{Code: apitype.CodeValidation, Message: "to is required: the agent to restore into"}
	case req.OutDir != "" && req.OutDir != "native" && !filepath.IsAbs(req.OutDir):
		return nil, &apitype.Error{Code: apitype.CodeValidation, Message: `out_dir must be absolute or "native" (the daemon's working directory is not yours)`}
	case req.Root != "" && !filepath.IsAbs(req.Root):
		return nil, &apitype.Error{Code: apitype.CodeValidation, Message: "root must be absolute"}
	}
	o, err := resume.Restore(ctx, storeArchive{s.Store}, resume.Request{Session: req.Session, To: req.To, OutDir: req.OutDir,
		Root: req.Root, Env: s.Env, ImportDir: paths.ExportsDir(s.Dirs.Data.Path)})
	if err != nil {
		return nil, err
	}
	if o.Status != resume.OK {
		return nil, &apitype.Error{Code: string(o.Status), Message: o.Message, Details: map[string]any{"outcome": o}}
	}
	return o, nil
}

// storeArchive serves the store to resume.
type storeArchive struct{ s *store.Store }

func (a storeArchive) Transcript(ctx context.Context, id string) (*resume.Transcript, error) {
	t, err := a.s.ReadTranscript(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("%w: %s", resume.ErrNotStored, id)
	}
	if err != nil {
		return nil, err
	}
	return (*resume.Transcript)(t), nil
}

func (a storeArchive) Children(ctx context.Context, id string) ([]string, error) {
	return a.s.ChildSessionIDs(ctx, id)
}
