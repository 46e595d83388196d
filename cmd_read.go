package main

import (
	"context"

	"github.com/pondhq/pond/daemon"
	"github.com/pondhq/pond/ipc"
	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/store"
)

// storeRead runs one of the store's reads through the daemon when one answers (in the API's
// wire types), else on the store opened in this process, after prepare (may be nil).
func storeRead[In, Out, WireIn, WireOut any](ctx context.Context, command string, in In,
	local func(*store.Store, context.Context, In) (*Out, error),
	remote func(*ipc.Client) func(context.Context, *WireIn) (*WireOut, error),
	prepare func(*store.Store) error) (*Out, error) {
	if c := daemonClient(ctx); c != nil {
		defer c.Close()
		var req WireIn
		if err := daemon.Convert(in, &req); err != nil {
			return nil, err
		}
		resp, err := remote(c)(ctx, &req)
		if err != nil {
			return nil, cliError(err)
		}
		var out Out
		return &out, daemon.Convert(resp, &out)
	}
	s, err := openStore(ctx, command)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	if prepare != nil {
		if err := prepare(s); err != nil {
			return nil, err
		}
	}
	out, err := local(s, ctx, in)
	if err != nil {
		return nil, readError(err)
	}
	return out, nil
}

// serviceCall runs call on the daemon's API when a daemon answers, else on the daemon's Service
// in this process, over the store open returns (open may be nil, or return nil, for calls that
// need no archive). Errors keep their API codes: callers map them to exit codes.
func serviceCall[Out any](ctx context.Context, open func() (*store.Store, error), call func(ipc.API) (*Out, error)) (*Out, error) {
	if c := daemonClient(ctx); c != nil {
		defer c.Close()
		return call(c)
	}
	var s *store.Store
	if open != nil {
		var err error
		if s, err = open(); err != nil {
			return nil, err
		}
		if s != nil {
			defer s.Close()
		}
	}
	svc, err := localService(s)
	if err != nil {
		return nil, err
	}
	defer svc.Close()
	return call(svc)
}

func searchRead(ctx context.Context, req store.SearchRequest) (*store.SearchResult, error) {
	prepare := func(s *store.Store) error {
		if req.Mode == store.ModeVector || req.Mode == store.ModeHybrid {
			return useConfiguredEmbedder(s)
		}
		return nil
	}
	return storeRead(ctx, "pond search", req, (*store.Store).Search,
		func(c *ipc.Client) func(context.Context, *apitype.SearchRequest) (*apitype.SearchResult, error) {
			return c.Search
		}, prepare)
}

func getSessionRead(ctx context.Context, req store.GetSessionRequest) (*store.SessionPage, error) {
	return storeRead(ctx, "pond get-session", req, (*store.Store).GetSession,
		func(c *ipc.Client) func(context.Context, *apitype.GetSessionRequest) (*apitype.SessionPage, error) {
			return c.GetSession
		}, nil)
}

func getMessageRead(ctx context.Context, req store.GetMessageRequest) (*store.MessageDetail, error) {
	return storeRead(ctx, "pond get-message", req, (*store.Store).GetMessage,
		func(c *ipc.Client) func(context.Context, *apitype.GetMessageRequest) (*apitype.MessageDetail, error) {
			return c.GetMessage
		}, nil)
}
