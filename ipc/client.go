package ipc

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"

	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/session/view"
)

// Client talks to the daemon's API socket: one method per route. Failures the daemon reports
// come back as *apitype.Error (errors.As), a missing daemon as ErrNoDaemon (errors.Is).
type Client struct {
	sock string
	hc   *http.Client
}

var _ API = (*Client)(nil)

// NewClient returns a client for the API socket at sock; it connects per request.
func NewClient(sock string) *Client {
	tr := &http.Transport{
		DialContext:         func(ctx context.Context, _, _ string) (net.Conn, error) { return Dial(ctx, sock) },
		MaxIdleConnsPerHost: 8,
	}
	return &Client{sock: sock, hc: &http.Client{Transport: tr}}
}

// Connect returns a client when a daemon answers on sock, else ErrNoDaemon.
func Connect(ctx context.Context, sock string) (*Client, error) {
	c, err := Dial(ctx, sock)
	if err != nil {
		return nil, err
	}
	c.Close()
	return NewClient(sock), nil
}

// Close drops idle connections.
func (c *Client) Close() { c.hc.CloseIdleConnections() }

func (c *Client) Status(ctx context.Context) (*view.Status, error) {
	return do[view.Status](ctx, c, "GET", "/v1/status", nil)
}

func (c *Client) Search(ctx context.Context, req *apitype.SearchRequest) (*view.SearchResult, error) {
	return do[view.SearchResult](ctx, c, "POST", "/v1/search", req)
}

func (c *Client) GetSession(ctx context.Context, req *apitype.GetSessionRequest) (*view.SessionPage, error) {
	return do[view.SessionPage](ctx, c, "POST", "/v1/get-session", req)
}

func (c *Client) GetMessage(ctx context.Context, req *apitype.GetMessageRequest) (*view.MessageDetail, error) {
	return do[view.MessageDetail](ctx, c, "POST", "/v1/get-message", req)
}

func (c *Client) SQL(ctx context.Context, req *apitype.SQLRequest) (*view.SQLResult, error) {
	return do[view.SQLResult](ctx, c, "POST", "/v1/x/sql", req)
}

func (c *Client) Ingest(ctx context.Context, req *apitype.IngestRequest) (*apitype.IngestResponse, error) {
	return do[apitype.IngestResponse](ctx, c, "POST", "/v1/ingest", req)
}

func (c *Client) Adapters(ctx context.Context) (*apitype.AdaptersResponse, error) {
	return do[apitype.AdaptersResponse](ctx, c, "GET", "/v1/adapters", nil)
}

func (c *Client) SetAdapters(ctx context.Context, req *apitype.AdapterRequest) (*apitype.AdaptersResponse, error) {
	return do[apitype.AdaptersResponse](ctx, c, "POST", "/v1/adapters", req)
}

func (c *Client) Consent(ctx context.Context) (*apitype.Consent, error) {
	return do[apitype.Consent](ctx, c, "GET", "/v1/consent", nil)
}

func (c *Client) SetConsent(ctx context.Context, req *apitype.Consent) (*apitype.Consent, error) {
	return do[apitype.Consent](ctx, c, "POST", "/v1/consent", req)
}

func (c *Client) Sync(ctx context.Context, req *apitype.SyncRequest) (*apitype.SyncResponse, error) {
	return do[apitype.SyncResponse](ctx, c, "POST", "/v1/sync", req)
}

// RebuildMirror recreates the daemon's SQLite mirror from the Lance tables.
func (c *Client) RebuildMirror(ctx context.Context, req *apitype.MirrorRebuildRequest) (*apitype.MirrorRebuild, error) {
	return do[apitype.MirrorRebuild](ctx, c, "POST", "/v1/mirror/rebuild", req)
}

// VerifyMirror compares the daemon's SQLite mirror with the Lance tables.
func (c *Client) VerifyMirror(ctx context.Context, req *apitype.MirrorVerifyRequest) (*apitype.MirrorVerify, error) {
	return do[apitype.MirrorVerify](ctx, c, "POST", "/v1/mirror/verify", req)
}

// Resume writes a stored session back into an agent. A refused or failed restore is an
// *apitype.Error whose code is the outcome's status; apitype.RefusedRestore reads the outcome.
func (c *Client) Resume(ctx context.Context, req *apitype.ResumeRequest) (*view.ResumeOutcome, error) {
	return do[view.ResumeOutcome](ctx, c, "POST", "/v1/resume", req)
}

func (c *Client) Model(ctx context.Context) (*view.ModelStatus, error) {
	return do[view.ModelStatus](ctx, c, "GET", "/v1/model", nil)
}

func (c *Client) SetModel(ctx context.Context, req *apitype.ModelRequest) (*view.ModelStatus, error) {
	return do[view.ModelStatus](ctx, c, "POST", "/v1/model", req)
}

func (c *Client) VerifyModel(ctx context.Context, req *apitype.ModelVerifyRequest) (*view.ModelVerify, error) {
	return do[view.ModelVerify](ctx, c, "POST", "/v1/model/verify", req)
}

// Optimize runs the archive's upkeep. The client sets no deadline of its own: embedding the
// archive can take hours, and ctx ending (Ctrl-C) stops the run after the current batch.
func (c *Client) Optimize(ctx context.Context, req *apitype.OptimizeRequest) (*apitype.OptimizeResponse, error) {
	return do[apitype.OptimizeResponse](ctx, c, "POST", "/v1/optimize", req)
}

// Erase erases sessions for good (or lists them, with DryRun). Like Optimize it sets no
// deadline of its own: rewriting and pruning a large archive takes minutes.
func (c *Client) Erase(ctx context.Context, req *apitype.EraseRequest) (*view.EraseReport, error) {
	return do[view.EraseReport](ctx, c, "POST", "/v1/erase", req)
}

// Lift takes ids off the erase denylist.
func (c *Client) Lift(ctx context.Context, req *apitype.LiftRequest) (*view.LiftReport, error) {
	return do[view.LiftReport](ctx, c, "POST", "/v1/erase/lift", req)
}

// Privacy reads the excluded projects and redaction.
func (c *Client) Privacy(ctx context.Context) (*apitype.Privacy, error) {
	return do[apitype.Privacy](ctx, c, "GET", "/v1/privacy", nil)
}

// SetPrivacy adds or removes an excluded project, or turns redaction on or off.
func (c *Client) SetPrivacy(ctx context.Context, req *apitype.PrivacyRequest) (*apitype.Privacy, error) {
	return do[apitype.Privacy](ctx, c, "POST", "/v1/privacy", req)
}

// Redact applies redaction to what is stored; like Erase it sets no deadline of its own.
func (c *Client) Redact(ctx context.Context, req *apitype.RedactRequest) (*view.RedactReport, error) {
	return do[view.RedactReport](ctx, c, "POST", "/v1/redact", req)
}

// Import sends canonical JSONL to be stored, read from req.Events as it is sent.
func (c *Client) Import(ctx context.Context, req *apitype.ImportRequest) (*view.ImportSummary, error) {
	resp, err := c.sendBody(ctx, "POST", "/v1/import", req.Events)
	if err != nil {
		return nil, err
	}
	return decode[view.ImportSummary](resp, "POST", "/v1/import")
}

// Export writes the archive (or the sessions req names) as canonical JSONL to w.
func (c *Client) Export(ctx context.Context, req *apitype.ExportRequest, w io.Writer) (*apitype.ExportSummary, error) {
	return streamed[apitype.ExportSummary](ctx, c, "/v1/export", req, w)
}

// SQLExport writes one read-only query's every row to w in req.Format.
func (c *Client) SQLExport(ctx context.Context, req *apitype.SQLExportRequest, w io.Writer) (*view.SQLExport, error) {
	return streamed[view.SQLExport](ctx, c, "/v1/x/sql/export", req, w)
}

// streamed posts in to a streaming route, copies the answer's body to w and reads the summary
// from its trailer.
func streamed[Out any](ctx context.Context, c *Client, path string, in any, w io.Writer) (*Out, error) {
	resp, err := c.send(ctx, "POST", path, in)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(w, resp.Body); err != nil {
		return nil, fmt.Errorf("ipc: POST %s: %w", path, err)
	}
	raw := resp.Trailer.Get(apitype.HeaderSummary)
	var eb apitype.ErrorBody
	if json.Unmarshal([]byte(raw), &eb) == nil && eb.Error != nil {
		return nil, eb.Error
	}
	out := new(Out)
	if err := json.Unmarshal([]byte(raw), out); err != nil {
		return nil, fmt.Errorf("ipc: POST %s: the answer ended without its summary: %w", path, err)
	}
	return out, nil
}

// Watch follows the event stream from since ("" for new events only), calling fn for each
// event until ctx ends, fn fails or the daemon ends the stream (then it returns nil, and the
// caller resumes with the last event's Cursor).
func (c *Client) Watch(ctx context.Context, since string, fn func(apitype.Event) error) error {
	path := "/v1/watch"
	if since != "" {
		path += "?since=" + url.QueryEscape(since)
	}
	resp, err := c.send(ctx, "GET", path, nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), apitype.MaxBodyBytes)
	for sc.Scan() {
		var ev apitype.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			return fmt.Errorf("ipc: watch: %w", err)
		}
		if err := fn(ev); err != nil {
			return err
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return nil
}

// Do sends one raw request and returns the response; for tests and tools that need the
// status and headers.
func (c *Client) Do(ctx context.Context, method, path string, body io.Reader) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, "http://pond"+path, body)
	if err != nil {
		return nil, err
	}
	return c.hc.Do(req)
}

func (c *Client) send(ctx context.Context, method, path string, in any) (*http.Response, error) {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, err
		}
		body = bytes.NewReader(b)
	}
	return c.sendBody(ctx, method, path, body)
}

// sendBody sends one request with body as it is and returns the answer, or the daemon's error.
func (c *Client) sendBody(ctx context.Context, method, path string, body io.Reader) (*http.Response, error) {
	resp, err := c.Do(ctx, method, path, body)
	if err != nil {
		if errors.Is(err, ErrNoDaemon) {
			return nil, ErrNoDaemon
		}
		return nil, fmt.Errorf("ipc: %s %s: %w", method, path, err)
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		var eb apitype.ErrorBody
		if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&eb); err != nil || eb.Error == nil {
			return nil, fmt.Errorf("ipc: %s %s: HTTP %d without an error body", method, path, resp.StatusCode)
		}
		return nil, eb.Error
	}
	return resp, nil
}

func do[Out any](ctx context.Context, c *Client, method, path string, in any) (*Out, error) {
	resp, err := c.send(ctx, method, path, in)
	if err != nil {
		return nil, err
	}
	return decode[Out](resp, method, path)
}

// decode reads an answer's JSON.
func decode[Out any](resp *http.Response, method, path string) (*Out, error) {
	defer resp.Body.Close()
	out := new(Out)
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return nil, fmt.Errorf("ipc: %s %s: decode the answer: %w", method, path, err)
	}
	return out, nil
}
