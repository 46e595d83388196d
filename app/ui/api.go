// Package ui builds Pond's desktop windows (search, transcript, resume, consent, adapters,
// settings, the erase dialog) from models that talk to the daemon through API. It never
// imports Fyne's app driver, so tests drive every window with fyne.io/fyne/v2/test and no
// display. Calls to the daemon run in goroutines; their answers reach the widgets through do.
package ui

import (
	"context"
	"sync"
	"time"

	"fyne.io/fyne/v2"

	// Before Fyne's init: no locale error on C.UTF-8 machines (see the package).
	_ "github.com/pondhq/pond/app/fynelocale"
	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/session/view"
)

// API is the part of ipc.Client the windows use.
type API interface {
	Status(ctx context.Context) (*view.Status, error)
	Search(ctx context.Context, req *apitype.SearchRequest) (*view.SearchResult, error)
	GetSession(ctx context.Context, req *apitype.GetSessionRequest) (*view.SessionPage, error)
	GetMessage(ctx context.Context, req *apitype.GetMessageRequest) (*view.MessageDetail, error)
	Resume(ctx context.Context, req *apitype.ResumeRequest) (*view.ResumeOutcome, error)
	Adapters(ctx context.Context) (*apitype.AdaptersResponse, error)
	SetAdapters(ctx context.Context, req *apitype.AdapterRequest) (*apitype.AdaptersResponse, error)
	Consent(ctx context.Context) (*apitype.Consent, error)
	SetConsent(ctx context.Context, req *apitype.Consent) (*apitype.Consent, error)
	Model(ctx context.Context) (*view.ModelStatus, error)
	SetModel(ctx context.Context, req *apitype.ModelRequest) (*view.ModelStatus, error)
	Optimize(ctx context.Context, req *apitype.OptimizeRequest) (*apitype.OptimizeResponse, error)
	Erase(ctx context.Context, req *apitype.EraseRequest) (*view.EraseReport, error)
	Privacy(ctx context.Context) (*apitype.Privacy, error)
	SetPrivacy(ctx context.Context, req *apitype.PrivacyRequest) (*apitype.Privacy, error)
	Watch(ctx context.Context, since string, fn func(apitype.Event) error) error
}

// callTimeout bounds one exchange with the daemon; a restore may take longer, and an erase
// (rewriting data files and rebuilding indexes) longer still.
const (
	callTimeout   = 10 * time.Second
	resumeTimeout = 30 * time.Second
	eraseTimeout  = 2 * time.Hour
)

// ask runs calls to the daemon off the UI goroutine, under one deadline, then apply on it (the
// answers reach apply through the variables calls set).
func ask(timeout time.Duration, calls func(ctx context.Context), apply func()) {
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		calls(ctx)
		do(apply)
	}()
}

// uiMu keeps the windows' updates one at a time. Fyne's app driver queues every fyne.Do onto
// its UI goroutine, so there the lock is never contended; its test driver runs each on the
// caller's goroutine, where two answers arriving together, or an answer and a test's own
// step (which takes the lock too: onUI in the tests), would touch one widget at once (Fyne's
// text cache is a plain map). A function run by do must not call do itself.
var uiMu sync.Mutex

// do runs f on the UI goroutine (fyne.Do), one update at a time.
func do(f func()) {
	fyne.Do(func() {
		uiMu.Lock()
		defer uiMu.Unlock()
		f()
	})
}
