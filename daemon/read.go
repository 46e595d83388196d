package daemon

import (
	"context"
	"errors"

	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/session/view"
	"github.com/pondhq/pond/store"
)

// Search runs a search over the archive.
func (s *Service) Search(ctx context.Context, req *apitype.SearchRequest) (*view.SearchResult, error) {
	return read(ctx, s, req.SearchRequest, (*store.Store).Search)
}

// GetSession reads one page of a session (id may be a message id).
func (s *Service) GetSession(ctx context.Context, req *apitype.GetSessionRequest) (*view.SessionPage, error) {
	return read(ctx, s, req.GetSessionRequest, (*store.Store).GetSession)
}

// GetMessage reads one message in full with its neighbours.
func (s *Service) GetMessage(ctx context.Context, req *apitype.GetMessageRequest) (*view.MessageDetail, error) {
	return read(ctx, s, req.GetMessageRequest, (*store.Store).GetMessage)
}

// read calls one of the store's reads, its errors given their API codes.
func read[In, Out any](ctx context.Context, s *Service, in In, call func(*store.Store, context.Context, In) (*Out, error)) (*Out, error) {
	if err := s.needStore(); err != nil {
		return nil, err
	}
	out, err := call(s.Store, ctx, in)
	if err != nil {
		return nil, readError(err)
	}
	return out, nil
}

// readError gives the store's read errors their API codes: a request to fix is a validation
// error (the model corrects it), a missing id is not_found.
func readError(err error) error {
	var ve *store.ValidationError
	switch {
	case errors.As(err, &ve):
		return &apitype.Error{Code: apitype.CodeValidation, Message: err.Error(), Details: map[string]any{"field": ve.Field}}
	case errors.Is(err, store.ErrEmbeddingsOff):
		return &apitype.Error{Code: apitype.CodeValidation, Message: err.Error(), Details: map[string]any{"field": "mode"}}
	case errors.Is(err, store.ErrNotFound):
		return &apitype.Error{Code: apitype.CodeNotFound, Message: err.Error()}
	}
	return err
}
