package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/store"
)

// Search runs a search over the archive.
func (s *Service) Search(ctx context.Context, req *apitype.SearchRequest) (*apitype.SearchResult, error) {
	return read[apitype.SearchRequest, store.SearchRequest, store.SearchResult, apitype.SearchResult](ctx, s, req, (*store.Store).Search)
}

// GetSession reads one page of a session (id may be a message id).
func (s *Service) GetSession(ctx context.Context, req *apitype.GetSessionRequest) (*apitype.SessionPage, error) {
	if req.ID == "" {
		req.ID = req.SessionID
	}
	return read[apitype.GetSessionRequest, store.GetSessionRequest, store.SessionPage, apitype.SessionPage](ctx, s, req, (*store.Store).GetSession)
}

// GetMessage reads one message in full with its neighbours.
func (s *Service) GetMessage(ctx context.Context, req *apitype.GetMessageRequest) (*apitype.MessageDetail, error) {
	if req.ID == "" {
		req.ID = req.MessageID
	}
	return read[apitype.GetMessageRequest, store.GetMessageRequest, store.MessageDetail, apitype.MessageDetail](ctx, s, req, (*store.Store).GetMessage)
}

// read calls a store read with the wire request converted to the store's, and converts the
// answer back. The wire types mirror the store's field for field (apitype may not import
// the store), so the conversion is their shared JSON; convert_test.go keeps them in step.
func read[WireIn, StoreIn, StoreOut, WireOut any](ctx context.Context, s *Service, in *WireIn,
	call func(*store.Store, context.Context, StoreIn) (*StoreOut, error)) (*WireOut, error) {
	if err := s.needStore(); err != nil {
		return nil, err
	}
	var req StoreIn
	if err := Convert(in, &req); err != nil {
		return nil, &apitype.Error{Code: apitype.CodeValidation, Message: err.Error()}
	}
	out, err := call(s.Store, ctx, req)
	if err != nil {
		return nil, readError(err)
	}
	var wire WireOut
	if err := Convert(out, &wire); err != nil {
		return nil, err
	}
	return &wire, nil
}

// Convert copies src into dst through their JSON.
func Convert(src, dst any) error {
	b, err := json.Marshal(src)
	if err != nil {
		return fmt.Errorf("daemon: convert %T: %w", src, err)
	}
	if err := json.Unmarshal(b, dst); err != nil {
		return fmt.Errorf("daemon: convert %T to %T: %w", src, dst, err)
	}
	return nil
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
