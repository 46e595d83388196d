package ipc

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pondhq/pond/ipc/apitype"
)

// Server serves the HTTP API over a listener from Listen.
type Server struct {
	API     API
	Hub     *Hub
	Version string
	Log     *slog.Logger
	// MaxConns bounds the connections each listener serves at once (default DefaultMaxConns);
	// MaxWatchers the clients following /v1/watch at once (default DefaultMaxWatchers), so
	// watchers alone cannot hold every connection.
	MaxConns, MaxWatchers int

	watchers  atomic.Int64
	initOnce  sync.Once
	closeOnce sync.Once
	routes    map[string]map[string]http.HandlerFunc // path -> method -> handler
	done      chan struct{}
}

// route table: one line per route. Writes and queries are POST with a JSON body; reads
// without parameters are GET.
func (s *Server) table() []route {
	return []route{
		{"GET", "/v1/status", get(s, s.API.Status)},
		{"POST", "/v1/search", post(s, s.API.Search)},
		{"POST", "/v1/get-session", post(s, s.API.GetSession)},
		{"POST", "/v1/get-message", post(s, s.API.GetMessage)},
		{"POST", "/v1/resume", post(s, s.API.Resume)},
		{"POST", "/v1/x/sql", post(s, s.API.SQL)},
		{"POST", "/v1/sql", post(s, s.API.SQL)}, // alias of x/sql
		{"POST", "/v1/ingest", post(s, s.API.Ingest)},
		{"GET", "/v1/adapters", get(s, s.API.Adapters)},
		{"POST", "/v1/adapters", post(s, s.API.SetAdapters)},
		{"GET", "/v1/consent", get(s, s.API.Consent)},
		{"POST", "/v1/consent", post(s, s.API.SetConsent)},
		{"GET", "/v1/model", get(s, s.API.Model)},
		{"POST", "/v1/model", post(s, s.API.SetModel)},
		{"POST", "/v1/model/verify", post(s, s.API.VerifyModel)},
		{"POST", "/v1/sync", post(s, s.API.Sync)},
		{"POST", "/v1/mirror/rebuild", post(s, s.API.RebuildMirror)},
		{"POST", "/v1/mirror/verify", post(s, s.API.VerifyMirror)},
		{"POST", "/v1/optimize", post(s, s.API.Optimize)},
		{"POST", "/v1/erase", post(s, s.API.Erase)},
		{"POST", "/v1/erase/lift", post(s, s.API.Lift)},
		{"GET", "/v1/privacy", get(s, s.API.Privacy)},
		{"POST", "/v1/privacy", post(s, s.API.SetPrivacy)},
		{"POST", "/v1/redact", post(s, s.API.Redact)},
		{"POST", importPath, s.serveImport},
		{"POST", "/v1/export", stream(s, s.API.Export)},
		{"POST", "/v1/x/sql/export", stream(s, s.API.SQLExport)},
		{"GET", "/v1/watch", s.serveWatch},
	}
}

type route struct {
	method, path string
	h            http.HandlerFunc
}

// init builds the route table once, however many listeners the server has.
func (s *Server) init() {
	s.initOnce.Do(func() {
		if s.Log == nil {
			s.Log = slog.New(slog.DiscardHandler)
		}
		if s.MaxConns <= 0 {
			s.MaxConns = DefaultMaxConns
		}
		if s.MaxWatchers <= 0 {
			s.MaxWatchers = DefaultMaxWatchers
		}
		s.done = make(chan struct{})
		s.routes = map[string]map[string]http.HandlerFunc{}
		for _, r := range s.table() {
			if s.routes[r.path] == nil {
				s.routes[r.path] = map[string]http.HandlerFunc{}
			}
			s.routes[r.path][r.method] = r.h
		}
	})
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	id := newRequestID()
	s.Log.Debug("api: request", "method", r.Method, "path", r.URL.Path, "request_id", id)
	w.Header().Set(apitype.HeaderRequestID, id)
	w.Header().Set(apitype.HeaderVersion, s.Version)
	gate, _ := r.Context().Value(gateKey{}).(func(*http.Request) *apitype.Error)
	if gate == nil {
		gate = s.peerGate
	}
	if err := gate(r); err != nil {
		writeError(w, err)
		return
	}
	byMethod, ok := s.routes[r.URL.Path]
	if !ok {
		writeError(w, &apitype.Error{Code: apitype.CodeNotFound, Message: "unknown route " + r.URL.Path,
			Details: map[string]any{"routes": s.paths()}})
		return
	}
	h, ok := byMethod[r.Method]
	if !ok {
		var allow []string
		for m := range byMethod {
			allow = append(allow, m)
		}
		sort.Strings(allow)
		w.Header().Set("Allow", strings.Join(allow, ", "))
		writeError(w, &apitype.Error{Code: apitype.CodeMethod, Message: fmt.Sprintf("%s %s: use %s", r.Method, r.URL.Path, strings.Join(allow, " or "))})
		return
	}
	if r.URL.Path != importPath { // an import is read as it streams, however long
		r.Body = http.MaxBytesReader(w, r.Body, apitype.MaxBodyBytes)
	}
	h(w, r)
}

// peerGate is the Unix socket's check: the peer's uid, from the kernel.
func (s *Server) peerGate(r *http.Request) *apitype.Error {
	uid, err := peerUIDFrom(r.Context())
	switch {
	case err != nil:
		return &apitype.Error{Code: apitype.CodeForbidden, Message: "cannot read the peer's credentials: " + err.Error()}
	case !SameUser(uid):
		return &apitype.Error{Code: apitype.CodeForbidden, Message: fmt.Sprintf("peer uid %d is not the daemon's user", uid)}
	}
	return nil
}

type gateKey struct{}

func (s *Server) paths() []string {
	var out []string
	for _, r := range s.table() {
		out = append(out, r.method+" "+r.path)
	}
	return out
}

// get adapts a parameterless API method to a GET route.
func get[Out any](s *Server, call func(context.Context) (*Out, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		out, err := call(r.Context())
		s.reply(w, r, out, err)
	}
}

// post adapts an API method to a POST route: decode the JSON body strictly, check its protocol
// version and namespace, call, write.
func post[In, Out any](s *Server, call func(context.Context, *In) (*Out, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		in := new(In)
		if err := decodeBody(r.Body, in); err != nil {
			writeError(w, err)
			return
		}
		if v, ok := any(in).(interface{ Version() *apitype.Versioned }); ok {
			if err := checkVersion(v.Version()); err != nil {
				writeError(w, err)
				return
			}
		}
		out, err := call(r.Context(), in)
		s.reply(w, r, out, err)
	}
}

// stream adapts a streaming API method to a POST route: decoded like post, its output is the
// answer's body, and its summary (or the error that broke the stream off) the trailer
// apitype.HeaderSummary. A failure before the first byte is an ordinary error answer.
func stream[In, Out any](s *Server, call func(context.Context, *In, io.Writer) (*Out, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		in := new(In)
		if err := decodeBody(r.Body, in); err != nil {
			writeError(w, err)
			return
		}
		if v, ok := any(in).(interface{ Version() *apitype.Versioned }); ok {
			if err := checkVersion(v.Version()); err != nil {
				writeError(w, err)
				return
			}
		}
		sw := &streamWriter{w: w}
		out, err := call(r.Context(), in, sw)
		if err != nil && !sw.started {
			s.reply(w, r, nil, err)
			return
		}
		sw.start()
		var trailer any = out
		if err != nil {
			s.Log.Error("api: stream broke off", "route", r.URL.Path, "request_id", w.Header().Get(apitype.HeaderRequestID), "error", err)
			trailer = apitype.ErrorBody{Error: asAPIError(err)}
		}
		b, _ := json.Marshal(trailer)
		w.Header().Set(apitype.HeaderSummary, string(b))
	}
}

// streamWriter starts a streamed answer (status 200, the trailer announced) at its first byte.
type streamWriter struct {
	w       http.ResponseWriter
	started bool
}

func (sw *streamWriter) start() {
	if !sw.started {
		sw.started = true
		sw.w.Header().Set("Trailer", apitype.HeaderSummary)
		sw.w.Header().Set("Content-Type", "application/octet-stream")
		sw.w.WriteHeader(http.StatusOK)
	}
}

func (sw *streamWriter) Write(p []byte) (int, error) {
	sw.start()
	return sw.w.Write(p)
}

// importPath is the one route whose body is not bounded: canonical JSONL, read as it streams.
const importPath = "/v1/import"

// serveImport stores the canonical JSONL of the request's body (POST /v1/import).
func (s *Server) serveImport(w http.ResponseWriter, r *http.Request) {
	out, err := s.API.Import(r.Context(), &apitype.ImportRequest{Events: r.Body})
	s.reply(w, r, out, err)
}

func (s *Server) reply(w http.ResponseWriter, r *http.Request, out any, err error) {
	if err != nil {
		var ae *apitype.Error
		if !errors.As(err, &ae) {
			s.Log.Error("api: internal error", "route", r.URL.Path, "request_id", w.Header().Get(apitype.HeaderRequestID), "error", err)
		}
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func decodeBody(body io.Reader, v any) *apitype.Error {
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil && dec.More() {
		err = errors.New("more than one JSON value")
	}
	var tooBig *http.MaxBytesError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &tooBig):
		return &apitype.Error{Code: apitype.CodeTooLarge, Message: fmt.Sprintf("request body over the %d-byte limit", apitype.MaxBodyBytes)}
	case errors.Is(err, io.EOF):
		return &apitype.Error{Code: apitype.CodeValidation, Message: "empty request body: send a JSON object"}
	}
	return &apitype.Error{Code: apitype.CodeValidation, Message: "malformed JSON body: " + err.Error()}
}

func checkVersion(v *apitype.Versioned) *apitype.Error {
	if v.ProtocolVersion != 0 && v.ProtocolVersion != apitype.ProtocolVersion {
		return &apitype.Error{Code: apitype.CodeVersion, Message: fmt.Sprintf("protocol_version %d is not supported (this daemon speaks %d)", v.ProtocolVersion, apitype.ProtocolVersion),
			Details: map[string]any{"supported": []int{apitype.ProtocolVersion}}}
	}
	if v.Namespace != "" && v.Namespace != "local" {
		return &apitype.Error{Code: apitype.CodeNamespace, Message: fmt.Sprintf("namespace %q is unknown (only \"local\")", v.Namespace)}
	}
	return nil
}

// StatusOf maps an error code to its HTTP status.
func StatusOf(code string) int {
	switch code {
	case apitype.CodeValidation, apitype.CodeVersion, apitype.CodeNamespace, apitype.CodeRefused, apitype.CodeUnknownAdapter,
		apitype.CodeUnknownAgent:
		return http.StatusBadRequest
	case apitype.CodeForbidden, apitype.CodeDeclined:
		return http.StatusForbidden
	case apitype.CodeUnauthorized:
		return http.StatusUnauthorized
	case apitype.CodeNotFound, apitype.CodeNotStored:
		return http.StatusNotFound
	case apitype.CodeMethod:
		return http.StatusMethodNotAllowed
	case apitype.CodeConflict, apitype.CodeSyncRunning, apitype.CodeEmbeddingsOff, apitype.CodeTargetExists:
		return http.StatusConflict
	case apitype.CodeTooLarge:
		return http.StatusRequestEntityTooLarge
	case apitype.CodeStorage, apitype.CodeBusy:
		return http.StatusServiceUnavailable
	case apitype.CodeNotImplemented:
		return http.StatusNotImplemented
	case apitype.CodeTooDeep, apitype.CodeNoNativeDir, apitype.CodeCwdMissing, apitype.CodeUnsafePath:
		return http.StatusUnprocessableEntity
	}
	return http.StatusInternalServerError
}

// writeError is the one place that writes the error body.
func writeError(w http.ResponseWriter, err error) {
	ae := asAPIError(err)
	writeJSON(w, StatusOf(ae.Code), apitype.ErrorBody{Error: ae})
}

// asAPIError is err as the API reports it: its own code, or internal.
func asAPIError(err error) *apitype.Error {
	var ae *apitype.Error
	if !errors.As(err, &ae) {
		ae = &apitype.Error{Code: apitype.CodeInternal, Message: err.Error()}
	}
	return ae
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// newRequestID is req_<uuidv7>: time-ordered, so logs sort by it.
func newRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[6:])
	ms := uint64(time.Now().UnixMilli())
	binary.BigEndian.PutUint16(b[0:2], uint16(ms>>32))
	binary.BigEndian.PutUint32(b[2:6], uint32(ms))
	b[6] = b[6]&0x0f | 0x70
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return "req_" + h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// How long the API waits for a request's headers, and keeps an idle keep-alive connection
// (which holds one of MaxConns) open.
const (
	readHeaderTimeout = 10 * time.Second
	idleTimeout       = 2 * time.Minute
)

// Serve serves the API on the Unix socket ln until ctx ends, then stops taking requests, ends
// watch streams and waits up to five seconds for requests in flight.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	return s.serve(ctx, ln, withPeerUID)
}

// ServeTCP serves the API on the loopback listener ln from ListenTCP: every request needs
// the bearer token and a Host naming the listener.
func (s *Server) ServeTCP(ctx context.Context, ln net.Listener, token string) error {
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	gate := tcpGate(token, port)
	return s.serve(ctx, ln, func(ctx context.Context, _ net.Conn) context.Context {
		return context.WithValue(ctx, gateKey{}, gate)
	})
}

func (s *Server) serve(ctx context.Context, ln net.Listener, connContext func(context.Context, net.Conn) context.Context) error {
	s.init()
	// Timeouts on what a client sends, never on what the daemon writes: a watch stream, an
	// export or a long sync answer may take as long as it takes (and an import's body streams
	// for as long as the client sends it).
	hs := &http.Server{
		Handler:           http.HandlerFunc(s.serveHTTP),
		ConnContext:       connContext,
		ReadHeaderTimeout: readHeaderTimeout,
		IdleTimeout:       idleTimeout,
		ErrorLog:          slog.NewLogLogger(s.Log.Handler(), slog.LevelWarn),
	}
	ln = GuardListener(ln, s.MaxConns, s.Log)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	s.closeOnce.Do(func() { close(s.done) })
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return hs.Shutdown(sctx)
}
