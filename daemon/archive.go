package daemon

import (
	"context"
	"io"

	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/session/view"
	"github.com/pondhq/pond/store"
)

// Import stores canonical JSONL (as Export writes it) in the write slot, stamped as an import:
// keys already stored are left alone, a line that is not a valid event is counted and reported.
func (s *Service) Import(ctx context.Context, req *apitype.ImportRequest) (*view.ImportSummary, error) {
	if err := s.needStore(); err != nil {
		return nil, err
	}
	if req.Events == nil {
		return nil, &apitype.Error{Code: apitype.CodeValidation, Message: "events are required: canonical JSONL"}
	}
	if err := s.acquireWrite(ctx, false); err != nil {
		return nil, err
	}
	if err := s.applyRedaction(); err != nil {
		return nil, err
	}
	sum, err := s.Store.Import(ctx, req.Events, 0, store.Stamp{Adapter: store.RouteImport, PondVersion: s.Version})
	s.releaseWrite()
	if sum != nil && sum.Inserted.Sessions+sum.Inserted.Messages > 0 {
		s.upkeep.changed.Store(true)
		s.publish(apitype.EventCaptured, view.Captured{Source: "import", Inserted: sum.Inserted})
	}
	if err != nil {
		return nil, err
	}
	return sum, nil
}

// Export writes the archive, or the sessions req names, to w as canonical JSONL: per session
// its session event, then each message followed by its parts.
func (s *Service) Export(ctx context.Context, req *apitype.ExportRequest, w io.Writer) (*apitype.ExportSummary, error) {
	if err := s.needStore(); err != nil {
		return nil, err
	}
	n, err := s.Store.Export(ctx, w, req.Sessions)
	if err != nil {
		return nil, readError(err)
	}
	return &apitype.ExportSummary{Sessions: n}, nil
}

// Watch follows the service's events (the daemon's, or an in-process service's own) from since
// until ctx ends, fn fails or the hub cuts the stream off.
func (s *Service) Watch(ctx context.Context, since string, fn func(apitype.Event) error) error {
	if s.Hub == nil {
		return &apitype.Error{Code: apitype.CodeNotImplemented, Message: "this service has no event stream"}
	}
	first, live, cancel := s.Hub.Subscribe(since)
	defer cancel()
	for _, ev := range first {
		if err := fn(ev); err != nil {
			return err
		}
	}
	for {
		select {
		case ev, ok := <-live:
			if !ok {
				return nil
			}
			if err := fn(ev); err != nil {
				return err
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
