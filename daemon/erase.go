package daemon

import (
	"context"
	"fmt"
	"slices"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/daemon/config"

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

// Privacy reads the excluded projects and redaction (GET /v1/privacy).
func (s *Service) Privacy(ctx context.Context) (*apitype.Privacy, error) {
	if err := s.needStore(); err != nil {
		return nil, err
	}
	cfg, err := s.loadConfig()
	if err != nil {
		return nil, err
	}
	return s.privacy(cfg)
}

func (s *Service) privacy(cfg *config.Config) (*apitype.Privacy, error) {
	if err := s.Store.SetRedaction(cfg.Privacy.Redact); err != nil {
		return nil, err
	}
	r, err := s.Store.Redaction()
	if err != nil {
		return nil, err
	}
	return &apitype.Privacy{ExcludeProjects: append([]string{}, cfg.Privacy.ExcludeProjects...), Redaction: r}, nil
}

// SetPrivacy adds or removes an excluded project glob, or turns redaction on or off (POST
// /v1/privacy). A glob added answers, in Stored, what the archive already holds under it.
func (s *Service) SetPrivacy(ctx context.Context, req *apitype.PrivacyRequest) (*apitype.Privacy, error) {
	if err := s.needStore(); err != nil {
		return nil, err
	}
	if req.Exclude != "" {
		if _, err := adapters.NewExclusions([]string{req.Exclude}, s.Env.Home); err != nil {
			return nil, &apitype.Error{Code: apitype.CodeValidation, Message: err.Error()}
		}
	}
	cfg, err := s.editConfig(func(c *config.Config) error {
		p := &c.Privacy
		if req.Exclude != "" && !slices.Contains(p.ExcludeProjects, req.Exclude) {
			p.ExcludeProjects = append(p.ExcludeProjects, req.Exclude)
		}
		if req.Include != "" {
			i := slices.Index(p.ExcludeProjects, req.Include)
			if i < 0 {
				return &apitype.Error{Code: apitype.CodeNotFound, Message: fmt.Sprintf("%q is not an excluded project (see pond privacy)", req.Include)}
			}
			p.ExcludeProjects = slices.Delete(p.ExcludeProjects, i, i+1)
		}
		if req.Redact != nil {
			p.Redact = *req.Redact
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out, err := s.privacy(cfg)
	if err != nil {
		return nil, err
	}
	if req.Exclude != "" {
		x, _ := adapters.NewExclusions([]string{req.Exclude}, s.Env.Home)
		out.Stored, err = s.Store.Erase(ctx, view.EraseRequest{Project: x.Globs()[0], DryRun: true}, nil)
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Redact applies redaction to what is already stored (POST /v1/redact, pond redact --all).
func (s *Service) Redact(ctx context.Context, req *apitype.RedactRequest) (*view.RedactReport, error) {
	if err := s.needStore(); err != nil {
		return nil, err
	}
	if !req.All {
		return nil, &apitype.Error{Code: apitype.CodeValidation, Message: "redact needs all: true (pond redact --all)"}
	}
	if err := s.acquireWrite(ctx, false); err != nil {
		return nil, err
	}
	defer s.releaseWrite()
	return s.Store.RedactAll(ctx, func(done, total int) {
		s.publish(apitype.EventEraseProgress, view.EraseProgress{Step: fmt.Sprintf("redact %d/%d sessions", done, total)})
	})
}

// applyRedaction sets the store's redaction from the config file, before a write.
func (s *Service) applyRedaction() error {
	cfg, err := s.loadConfig()
	if err != nil {
		return err
	}
	return s.Store.SetRedaction(cfg.Privacy.Redact)
}
