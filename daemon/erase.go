package daemon

import (
	"context"

	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/session/view"
)

// Erase erases sessions for good (POST /v1/erase, pond erase): see store.Erase. It holds the
// write slot throughout, so no sync or ingest interleaves with the rewrite, and tells the
// watchers each step.
func (s *Service) Erase(ctx context.Context, req *apitype.EraseRequest) (*view.EraseReport, error) {
	if err := s.needStore(); err != nil {
		return nil, err
	}
	r := req.EraseRequest
	if len(r.Sessions) == 0 && r.Project == "" && r.Agent == "" && r.Before.IsZero() {
		return nil, &apitype.Error{Code: apitype.CodeValidation, Message: "name the sessions to erase, or select them with project, agent or before"}
	}
	if r.DryRun {
		return s.Store.Erase(ctx, r, nil)
	}
	if err := s.acquireWrite(ctx, false); err != nil {
		return nil, err
	}
	defer s.releaseWrite()
	s.publish(apitype.EventEraseStarted, view.EraseStarted{Sessions: len(r.Sessions)})
	rep, err := s.Store.Erase(ctx, r, func(p view.EraseProgress) { s.publish(apitype.EventEraseProgress, p) })
	fin := view.EraseFinished{}
	if err != nil {
		fin.Error = err.Error()
		s.log().Error("daemon: erase failed", "error", err)
	} else {
		fin.Removed, fin.BytesReclaimed = rep.Removed, rep.BytesReclaimed
		s.log().Info("daemon: erased", "sessions", rep.Removed.Sessions, "messages", rep.Removed.Messages, "reclaimed", rep.BytesReclaimed)
	}
	s.publish(apitype.EventEraseFinished, fin)
	return rep, err
}

// Lift takes ids off the erase denylist (POST /v1/erase/lift, pond erase --lift).
func (s *Service) Lift(ctx context.Context, req *apitype.LiftRequest) (*view.LiftReport, error) {
	if err := s.needStore(); err != nil {
		return nil, err
	}
	if len(req.Sessions) == 0 {
		return nil, &apitype.Error{Code: apitype.CodeValidation, Message: "name the session ids to lift"}
	}
	if err := s.acquireWrite(ctx, false); err != nil {
		return nil, err
	}
	defer s.releaseWrite()
	lifted, notFound, err := s.Store.Lift(ctx, req.Sessions)
	if err != nil {
		return nil, err
	}
	return &view.LiftReport{Lifted: lifted, NotFound: notFound}, nil
}
