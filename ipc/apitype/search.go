package apitype

import "github.com/pondhq/pond/session/view"

// SearchRequest is POST /v1/search: a view.SearchRequest with the protocol's envelope.
type SearchRequest struct {
	Versioned
	view.SearchRequest
}

// GetSessionRequest is POST /v1/get-session: one page of a session (id may be a message id).
type GetSessionRequest struct {
	Versioned
	view.GetSessionRequest
}

// GetMessageRequest is POST /v1/get-message: one message in full, with its neighbours.
type GetMessageRequest struct {
	Versioned
	view.GetMessageRequest
}
