package ui

import (
	"context"
	"errors"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/session/view"
)

// Guard is the API as the windows use it. When the daemon answers a call with forbidden, the
// windows go read-only: every change is refused here, with the daemon's reason, and a banner
// on each window says why; searching and reading go on. Reset (the tray calls it when the
// daemon has restarted) tries changes again.
type Guard struct {
	API

	mu        sync.Mutex
	reason    string
	listeners []func(string)
}

// NewGuard guards api.
func NewGuard(api API) *Guard { return &Guard{API: api} }

// ReadOnlyError refuses a change while the windows are read-only.
type ReadOnlyError struct{ Reason string }

func (e *ReadOnlyError) Error() string { return e.Reason }

// ReadOnly is why the windows are read-only, or "".
func (g *Guard) ReadOnly() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.reason
}

// OnChange calls fn (on the UI goroutine) each time read-only mode starts or ends.
func (g *Guard) OnChange(fn func(reason string)) {
	g.mu.Lock()
	g.listeners = append(g.listeners, fn)
	g.mu.Unlock()
}

// Reset leaves read-only mode: the daemon restarted, so its answer may differ now.
func (g *Guard) Reset() { g.set("") }

func (g *Guard) set(reason string) {
	g.mu.Lock()
	changed := g.reason != reason
	g.reason = reason
	ls := slicesClone(g.listeners)
	g.mu.Unlock()
	if changed {
		do(func() {
			for _, fn := range ls {
				fn(reason)
			}
		})
	}
}

func slicesClone[T any](s []T) []T { return append([]T(nil), s...) }

// ReadOnlyText is the banner's text for the daemon's reason.
func ReadOnlyText(msg string) string {
	return "Read-only: the daemon refused a change (" + msg + "). Searching and reading still work; changes are off until the daemon restarts."
}

// observe notes a forbidden answer.
func (g *Guard) observe(err error) error {
	var ae *apitype.Error
	if errors.As(err, &ae) && ae.Code == apitype.CodeForbidden {
		g.set(ReadOnlyText(ae.Message))
	}
	return err
}

func (g *Guard) refuse() error {
	if r := g.ReadOnly(); r != "" {
		return &ReadOnlyError{Reason: r}
	}
	return nil
}

// Banner is a line that shows the read-only reason; hidden while changes work.
func (g *Guard) Banner() fyne.CanvasObject {
	l := widget.NewLabel("")
	l.Wrapping = fyne.TextWrapWord
	l.Importance = widget.DangerImportance
	box := container.NewVBox(l)
	show := func(r string) {
		l.SetText(r)
		if r == "" {
			box.Hide()
		} else {
			box.Show()
		}
	}
	show(g.ReadOnly())
	g.OnChange(show)
	return box
}

// The reads: observed.

func (g *Guard) Status(ctx context.Context) (*view.Status, error) {
	r, err := g.API.Status(ctx)
	return r, g.observe(err)
}

func (g *Guard) Search(ctx context.Context, req *apitype.SearchRequest) (*view.SearchResult, error) {
	r, err := g.API.Search(ctx, req)
	return r, g.observe(err)
}

func (g *Guard) GetSession(ctx context.Context, req *apitype.GetSessionRequest) (*view.SessionPage, error) {
	r, err := g.API.GetSession(ctx, req)
	return r, g.observe(err)
}

func (g *Guard) Adapters(ctx context.Context) (*apitype.AdaptersResponse, error) {
	r, err := g.API.Adapters(ctx)
	return r, g.observe(err)
}

// The changes: refused while read-only, observed.

func (g *Guard) Resume(ctx context.Context, req *apitype.ResumeRequest) (*view.ResumeOutcome, error) {
	if err := g.refuse(); err != nil {
		return nil, err
	}
	r, err := g.API.Resume(ctx, req)
	return r, g.observe(err)
}

func (g *Guard) SetAdapters(ctx context.Context, req *apitype.AdapterRequest) (*apitype.AdaptersResponse, error) {
	if err := g.refuse(); err != nil {
		return nil, err
	}
	r, err := g.API.SetAdapters(ctx, req)
	return r, g.observe(err)
}

func (g *Guard) SetConsent(ctx context.Context, req *apitype.Consent) (*apitype.Consent, error) {
	if err := g.refuse(); err != nil {
		return nil, err
	}
	r, err := g.API.SetConsent(ctx, req)
	return r, g.observe(err)
}

func (g *Guard) SetModel(ctx context.Context, req *apitype.ModelRequest) (*view.ModelStatus, error) {
	if err := g.refuse(); err != nil {
		return nil, err
	}
	r, err := g.API.SetModel(ctx, req)
	return r, g.observe(err)
}

func (g *Guard) Optimize(ctx context.Context, req *apitype.OptimizeRequest) (*apitype.OptimizeResponse, error) {
	if !req.DryRun {
		if err := g.refuse(); err != nil {
			return nil, err
		}
	}
	r, err := g.API.Optimize(ctx, req)
	return r, g.observe(err)
}

func (g *Guard) Privacy(ctx context.Context) (*apitype.Privacy, error) {
	r, err := g.API.Privacy(ctx)
	return r, g.observe(err)
}

// Erase lists (a dry run) while read-only; erasing is a change.
func (g *Guard) Erase(ctx context.Context, req *apitype.EraseRequest) (*view.EraseReport, error) {
	if !req.DryRun {
		if err := g.refuse(); err != nil {
			return nil, err
		}
	}
	r, err := g.API.Erase(ctx, req)
	return r, g.observe(err)
}

func (g *Guard) SetPrivacy(ctx context.Context, req *apitype.PrivacyRequest) (*apitype.Privacy, error) {
	if err := g.refuse(); err != nil {
		return nil, err
	}
	r, err := g.API.SetPrivacy(ctx, req)
	return r, g.observe(err)
}
