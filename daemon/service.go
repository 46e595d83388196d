package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/all"
	"github.com/pondhq/pond/daemon/capture"
	"github.com/pondhq/pond/daemon/config"
	"github.com/pondhq/pond/ipc"
	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/paths"
	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/session/view"
	"github.com/pondhq/pond/store"
	"github.com/pondhq/pond/store/sqlite"
)

// Service carries out the API over the store and the config file. The daemon serves it on its
// sockets; the CLI uses one in-process when no daemon runs, so both paths run the same code.
type Service struct {
	Dirs    paths.Dirs
	Store   *store.Store // nil for a service that only edits the config
	Env     adapters.Env
	Version string
	Log     *slog.Logger
	// Hub, when set, receives the events /v1/watch streams (Local gives an in-process service
	// one of its own, so the CLI follows progress the same way with or without a daemon).
	Hub *ipc.Hub
	// ConfigChanged, when set, is called after the config file changed (the watcher re-reads
	// the adapters' roots).
	ConfigChanged func()
	// Daemon, when set, describes the running daemon in Status.
	Daemon func() *view.DaemonInfo

	cfgMu    sync.Mutex
	write    slot // one write (sync, ingest, an upkeep commit) at a time: the store's writer is not concurrent
	readerMu sync.Mutex
	reader   *sqlite.Reader
	upkeep   upkeepState
	model    servedModel
	indexes  laggard[[]view.TableIndex]
	embedded laggard[view.EmbedCounts]
}

// laggard is a read Status makes of Lance, which answers only between the commits of an
// upkeep (compaction, index builds): during one, the index statistics and the embedding counts held
// /v1/status for 2–8 s on the benchmark corpus (the goal while upkeep runs: p95 ≤ 50 ms). A
// read that misses lateAfter goes on in the background, and Status reports the last value read
// meanwhile; one read at a time.
type laggard[T any] struct {
	mu      sync.Mutex
	last    T
	have    bool
	reading chan struct{} // closed when the read under way ends; nil when none is
	// read overrides the read (tests hold one up).
	read func(context.Context) (T, error)
	// key names what last was read from (the tables' versions): outside an upkeep, a call
	// with the same key gets last without a read. Reading every index's statistics took
	// 0.1–0.2 s at a million messages, on every status.
	key string
}

// lateAfter bounds how long Status waits for a Lance read before it reports the last value.
const lateAfter = 30 * time.Millisecond

// get returns what read reads. While an upkeep runs (busy), it waits lateAfter at most and
// then returns the last value read (the zero value when none was); otherwise it waits for the
// read, so that a status after an upkeep or a sync tells what they did.
func (l *laggard[T]) get(ctx context.Context, busy bool, key string, read func(context.Context) (T, error)) (T, error) {
	l.mu.Lock()
	if !busy && key != "" && l.have && l.key == key && l.reading == nil {
		defer l.mu.Unlock()
		return l.last, nil
	}
	done := l.reading
	var readErr error
	if done == nil {
		if l.read != nil {
			read = l.read
		}
		ch := make(chan struct{})
		l.reading, done = ch, ch
		go func() {
			defer close(ch)
			v, err := read(context.WithoutCancel(ctx))
			l.mu.Lock()
			defer l.mu.Unlock()
			l.reading = nil
			if err != nil {
				readErr = err
				return
			}
			l.last, l.have, l.key = v, true, key
		}()
	}
	l.mu.Unlock()
	var late <-chan time.Time
	if busy {
		late = time.After(lateAfter)
	}
	select {
	case <-done:
	case <-late:
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if readErr != nil && !l.have {
		return l.last, readErr
	}
	return l.last, nil
}

func (s *Service) readIndexes(ctx context.Context) ([]view.TableIndex, error) {
	list := []view.TableIndex{}
	for _, name := range []string{store.TableSessions, store.TableMessages, store.TableParts} {
		ixs, err := s.Store.Table(name).Indexes(ctx)
		if err != nil {
			return nil, err
		}
		for _, ix := range ixs {
			list = append(list, view.TableIndex{Table: name, Name: ix.Name, Kind: ix.Kind,
				IndexedRows: ix.IndexedRows, UnindexedRows: ix.UnindexedRows})
		}
	}
	return list, nil
}

// readKeys name what the index statistics and the embedding counts are read from: the
// tables' versions, and for the counts the mirror's commits too; "" when a version cannot be
// read (the reads then happen).
func (s *Service) readKeys(ctx context.Context) (indexes, embedded string) {
	var versions []string
	for _, name := range []string{store.TableSessions, store.TableMessages, store.TableParts} {
		v, err := s.Store.Table(name).Version(ctx)
		if err != nil {
			return "", ""
		}
		versions = append(versions, strconv.FormatUint(v, 10))
	}
	m := s.Store.Mirror()
	return strings.Join(versions, "/"), fmt.Sprintf("%s/%p/%d", versions[1], m, m.Commits())
}

var _ ipc.API = (*Service)(nil)

func (s *Service) log() *slog.Logger {
	if s.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.Log
}

func (s *Service) publish(typ string, data any) {
	if s.Hub != nil {
		s.Hub.Publish(typ, data)
	}
}

// slot is held by one caller at a time; others wait for it (first come, first served) or give
// up at once.
type slot struct {
	once sync.Once
	ch   chan struct{}
}

func (s *slot) c() chan struct{} {
	s.once.Do(func() { s.ch = make(chan struct{}, 1) })
	return s.ch
}

// take takes the slot, waiting unless noWait (then it reports false when the slot is held).
func (s *slot) take(ctx context.Context, noWait bool) (bool, error) {
	if noWait {
		select {
		case s.c() <- struct{}{}:
			return true, nil
		default:
			return false, nil
		}
	}
	select {
	case s.c() <- struct{}{}:
		return true, nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

func (s *slot) release()   { <-s.c() }
func (s *slot) held() bool { return len(s.c()) > 0 }

// acquireWrite takes the write slot, waiting unless noWait; release with releaseWrite.
func (s *Service) acquireWrite(ctx context.Context, noWait bool) error {
	ok, err := s.write.take(ctx, noWait)
	if err == nil && !ok {
		return &apitype.Error{Code: apitype.CodeSyncRunning, Message: "a sync is running; try again when it finishes"}
	}
	return err
}

func (s *Service) releaseWrite() { s.write.release() }

// Writing reports whether a write (a sync, an ingest) is under way.
func (s *Service) Writing() bool { return s.write.held() }

func (s *Service) needStore() error {
	if s.Store == nil {
		return &apitype.Error{Code: apitype.CodeStorage, Message: "the archive is not open"}
	}
	return nil
}

func (s *Service) loadConfig() (*config.Config, error) {
	cfg, _, err := config.Load(s.Dirs.ConfigFile.Path)
	if err != nil {
		return nil, &apitype.Error{Code: apitype.CodeValidation, Message: err.Error() + "; fix or remove the file"}
	}
	return cfg, nil
}

// editConfig applies f to the config file under the service's config lock and saves it.
func (s *Service) editConfig(f func(*config.Config) error) (*config.Config, error) {
	s.cfgMu.Lock()
	defer s.cfgMu.Unlock()
	cfg, err := s.loadConfig()
	if err != nil {
		return nil, err
	}
	if err := f(cfg); err != nil {
		return nil, err
	}
	if err := cfg.Save(s.Dirs.ConfigFile.Path); err != nil {
		return nil, err
	}
	if s.ConfigChanged != nil {
		s.ConfigChanged()
	}
	return cfg, nil
}

// Status counts the archive and reports the adapters, the last sync and the daemon.
func (s *Service) Status(ctx context.Context) (*view.Status, error) {
	if err := s.needStore(); err != nil {
		return nil, err
	}
	cfg, err := s.loadConfig()
	if err != nil {
		return nil, err
	}
	st := &view.Status{ProtocolVersion: apitype.ProtocolVersion, Version: s.Version, Consent: string(cfg.Consent.Capture),
		Adapters: s.adapterList(cfg), Agents: []view.AgentCount{},
		Embeddings: view.Embeddings{Enabled: cfg.Embeddings.Enabled, Model: cfg.Embeddings.Model},
		Limits:     view.Limits{ValueBytes: session.DefaultMaxValueBytes, LineBytes: s.Env.Limits.Line(), DecompressedBytes: s.Env.Limits.Decompressed()}}
	sum, err := s.Store.Mirror().Summary(ctx)
	if err != nil {
		return nil, err
	}
	st.Sessions, st.Messages, st.Parts = sum.Sessions, sum.Messages, sum.Parts
	for _, a := range sum.Agents {
		st.Agents = append(st.Agents, view.AgentCount{Agent: a.Agent, Sessions: a.Sessions, Messages: a.Messages})
	}
	// The two Lance reads wait side by side, so a status waits lateAfter once at most.
	busy := s.upkeep.run.held()
	var ixKey, ecKey string
	if !busy {
		ixKey, ecKey = s.readKeys(ctx)
	}
	var ixs []view.TableIndex
	var ixErr error
	ixDone := make(chan struct{})
	go func() {
		defer close(ixDone)
		ixs, ixErr = s.indexes.get(ctx, busy, ixKey, s.readIndexes)
	}()
	ec, err := s.embedded.get(ctx, busy, ecKey, func(ctx context.Context) (view.EmbedCounts, error) {
		return s.Store.EmbedCounts(ctx, "")
	})
	<-ixDone
	if err != nil {
		return nil, err
	}
	if ixErr != nil {
		return nil, ixErr
	}
	st.Embeddings.Embedded, st.Embeddings.Pending = ec.Embedded, ec.Pending
	st.Indexes = append([]view.TableIndex{}, ixs...)
	if err := s.Store.SetRedaction(cfg.Privacy.Redact); err != nil {
		return nil, err
	}
	red, err := s.Store.Redaction()
	if err != nil {
		return nil, err
	}
	st.Redaction, st.ExcludedProjects = &red, cfg.Privacy.ExcludeProjects
	if ls, ok := capture.ReadLastSync(s.Dirs.State.Path); ok {
		st.LastSync = &ls
	}
	st.Upkeep = s.lastUpkeep()
	if s.Daemon != nil {
		st.Daemon = s.Daemon()
	}
	if st.Hosts, err = s.Store.Hosts(ctx); err != nil {
		return nil, err
	}
	if s.Store.Shared() {
		st.Storage = s.Store.Location().String()
	}
	if st.DiskCache, err = s.Store.DiskCache(); err != nil {
		return nil, err
	}
	return st, nil
}

// Close releases what the service opened (not the store, which its owner closes).
func (s *Service) Close() error {
	s.model.mu.Lock()
	if s.model.lazy != nil {
		s.model.lazy.Close()
	}
	s.model.mu.Unlock()
	s.readerMu.Lock()
	defer s.readerMu.Unlock()
	if s.reader != nil {
		return s.reader.Close()
	}
	return nil
}

// Ingest stores canonical events sent by a client. Each event is decoded and validated on its
// own, so a bad row is reported and the rest stored; the store re-stamps the provenance.
func (s *Service) Ingest(ctx context.Context, req *apitype.IngestRequest) (*apitype.IngestResponse, error) {
	if err := s.needStore(); err != nil {
		return nil, err
	}
	if len(req.Events) == 0 {
		return nil, &apitype.Error{Code: apitype.CodeValidation, Message: "events is empty: send session, message and part events"}
	}
	if len(req.Events) > apitype.MaxIngestEvents {
		return nil, &apitype.Error{Code: apitype.CodeValidation, Message: fmt.Sprintf("%d events; at most %d per request", len(req.Events), apitype.MaxIngestEvents),
			Details: map[string]any{"max_events": apitype.MaxIngestEvents}}
	}
	resp := &apitype.IngestResponse{Results: make([]apitype.IngestResult, len(req.Events))}
	var events []session.Event
	var at []int // events[i] is request row at[i]
	for i, raw := range req.Events {
		var ev session.Event
		if err := json.Unmarshal(raw, &ev); err != nil {
			resp.Results[i] = apitype.IngestResult{Index: i, Status: string(store.Rejected), Error: err.Error()}
			continue
		}
		events = append(events, ev)
		at = append(at, i)
	}
	if len(events) > 0 {
		if err := s.acquireWrite(ctx, false); err != nil {
			return nil, err
		}
		if err := s.applyRedaction(); err != nil {
			return nil, err
		}
		out, err := s.Store.Upsert(ctx, events, store.Stamp{Adapter: store.RouteAPI, PondVersion: s.Version})
		s.releaseWrite()
		if err != nil {
			return nil, err
		}
		for j, r := range out.Rows {
			pk, _ := json.Marshal(r.Key)
			resp.Results[at[j]] = apitype.IngestResult{Index: at[j], Kind: string(r.Kind), PK: pk, Status: string(r.Status), Error: r.Error}
		}
		if out.Inserted.Sessions+out.Inserted.Messages > 0 {
			s.upkeep.changed.Store(true)
			s.publish(apitype.EventCaptured, view.Captured{Source: "ingest", Inserted: out.Inserted})
		}
	}
	for _, r := range resp.Results {
		if r.Status == string(store.Rejected) {
			resp.Rejected++
		} else {
			resp.Accepted++
		}
	}
	return resp, nil
}

func (s *Service) adapterList(cfg *config.Config) []view.Adapter {
	var out []view.Adapter
	for _, a := range all.Adapters() {
		e, ok := cfg.Adapters[a.Name()]
		out = append(out, view.Adapter{Name: a.Name(), Configured: ok, Enabled: ok && e.Enabled, Path: e.Path,
			Found: capture.ExistingRoots(a, s.Env), Restore: a.Capabilities().Restore, Consent: string(cfg.ConsentFor(a.Name()))})
	}
	return out
}

// Adapters lists every adapter.
func (s *Service) Adapters(ctx context.Context) (*apitype.AdaptersResponse, error) {
	cfg, err := s.loadConfig()
	if err != nil {
		return nil, err
	}
	return &apitype.AdaptersResponse{Adapters: s.adapterList(cfg)}, nil
}

// SetAdapters enables, disables or discovers adapters in the config.
func (s *Service) SetAdapters(ctx context.Context, req *apitype.AdapterRequest) (*apitype.AdaptersResponse, error) {
	var changed []string
	switch req.Action {
	case "enable", "disable":
		if _, ok := all.ByName(req.Name); !ok {
			return nil, &apitype.Error{Code: apitype.CodeUnknownAdapter, Message: fmt.Sprintf("unknown adapter %q (known: %s)", req.Name, strings.Join(all.Names(), ", "))}
		}
		if req.Path != "" && !filepath.IsAbs(req.Path) {
			return nil, &apitype.Error{Code: apitype.CodeValidation, Message: "path must be absolute"}
		}
	case "discover":
	default:
		return nil, &apitype.Error{Code: apitype.CodeValidation, Message: fmt.Sprintf("unknown action %q (want enable, disable or discover)", req.Action)}
	}
	cfg, err := s.editConfig(func(cfg *config.Config) error {
		if req.Action == "discover" {
			for _, a := range s.adapterList(cfg) {
				if len(a.Found) > 0 && !a.Configured {
					cfg.Adapters[a.Name] = config.Adapter{Enabled: true}
					changed = append(changed, a.Name)
				}
			}
			return nil
		}
		e := cfg.Adapters[req.Name]
		e.Enabled = req.Action == "enable"
		if e.Enabled && req.Path != "" {
			e.Path = req.Path
		}
		cfg.Adapters[req.Name] = e
		changed = append(changed, req.Name)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(changed) > 0 {
		s.publish(apitype.EventAdapters, view.AdaptersChanged{Action: req.Action, Adapters: changed})
	}
	return &apitype.AdaptersResponse{Adapters: s.adapterList(cfg), Changed: changed, ConfigFile: s.Dirs.ConfigFile.Path}, nil
}

// Consent reads the capture consent: the global answer and every agent's own.
func (s *Service) Consent(ctx context.Context) (*apitype.Consent, error) {
	cfg, err := s.loadConfig()
	if err != nil {
		return nil, err
	}
	return s.consentOf(cfg), nil
}

func (s *Service) consentOf(cfg *config.Config) *apitype.Consent {
	c := &apitype.Consent{Capture: string(cfg.Consent.Capture), ConfigFile: s.Dirs.ConfigFile.Path}
	for agent, answer := range cfg.Consent.Agents {
		if c.Agents == nil {
			c.Agents = map[string]string{}
		}
		c.Agents[agent] = string(answer)
	}
	return c
}

// SetConsent records the capture consent, for every agent or, with req.Agent, for that one
// (config.Config.SetConsent has the rule).
func (s *Service) SetConsent(ctx context.Context, req *apitype.Consent) (*apitype.Consent, error) {
	c, err := config.ParseConsent(req.Capture)
	if err != nil || req.Capture == "" {
		return nil, &apitype.Error{Code: apitype.CodeValidation, Message: fmt.Sprintf("capture %q: want granted, declined or not_asked", req.Capture)}
	}
	if req.Agent != "" {
		if _, ok := all.ByName(req.Agent); !ok {
			return nil, &apitype.Error{Code: apitype.CodeUnknownAdapter, Message: fmt.Sprintf("unknown adapter %q (known: %s)", req.Agent, strings.Join(all.Names(), ", "))}
		}
	}
	cfg, err := s.editConfig(func(cfg *config.Config) error { cfg.SetConsent(req.Agent, c); return nil })
	if err != nil {
		return nil, err
	}
	s.publish(apitype.EventConsent, view.ConsentChanged{Capture: string(c), Agent: req.Agent})
	return s.consentOf(cfg), nil
}

// RebuildMirror recreates the SQLite mirror from the Lance tables, in the write slot (no sync
// writes meanwhile). The store reopens its own connections to the new file; the SQL reader is
// dropped here, to be reopened on the next query.
func (s *Service) RebuildMirror(ctx context.Context, _ *apitype.MirrorRebuildRequest) (*apitype.MirrorRebuild, error) {
	if err := s.needStore(); err != nil {
		return nil, err
	}
	if err := s.acquireWrite(ctx, false); err != nil {
		return nil, err
	}
	defer s.releaseWrite()
	c, err := s.Store.RebuildMirror(ctx)
	s.dropSQLReader()
	if err != nil {
		return nil, err
	}
	s.log().Info("daemon: mirror rebuilt", "sessions", c.Sessions, "messages", c.Messages, "parts", c.Parts)
	return &apitype.MirrorRebuild{Sessions: c.Sessions, Messages: c.Messages, Parts: c.Parts}, nil
}

// VerifyMirror compares the mirror with the Lance tables key by key, in the write slot, so no
// write is half applied while it looks.
func (s *Service) VerifyMirror(ctx context.Context, _ *apitype.MirrorVerifyRequest) (*apitype.MirrorVerify, error) {
	if err := s.needStore(); err != nil {
		return nil, err
	}
	if err := s.acquireWrite(ctx, false); err != nil {
		return nil, err
	}
	defer s.releaseWrite()
	drift, err := s.Store.Verify(ctx)
	if err != nil {
		return nil, err
	}
	return &apitype.MirrorVerify{Tables: drift}, nil
}

// Sync captures now. As `pond sync` asks it: a first run enables the adapters whose data
// exists, and the adapters named or enabled are read unless their capture is declined (when it
// was never asked, a remark says how to answer). Automatic (a plugin's `pond serve
// --with-sync`) reads only the agents whose capture was granted. Its progress goes to the
// watchers, source by source.
func (s *Service) Sync(ctx context.Context, req *apitype.SyncRequest) (*apitype.SyncResponse, error) {
	if err := s.needStore(); err != nil {
		return nil, err
	}
	if req.Path != "" && !filepath.IsAbs(req.Path) {
		return nil, &apitype.Error{Code: apitype.CodeValidation, Message: "path must be absolute (the daemon's working directory is not yours)"}
	}
	resp := &apitype.SyncResponse{}
	var cfg *config.Config
	var remark string
	var err error
	if req.Automatic {
		cfg, err = s.automaticConfig()
	} else {
		cfg, remark, err = s.bootstrap()
	}
	if err != nil {
		return nil, err
	}
	if remark != "" {
		resp.Remarks = append(resp.Remarks, remark)
	}
	targets, err := capture.Targets(cfg, s.Env, req.Adapter, req.Path)
	switch {
	case errors.Is(err, capture.ErrUnknownAdapter):
		return nil, &apitype.Error{Code: apitype.CodeUnknownAdapter, Message: err.Error()}
	case err != nil:
		return nil, &apitype.Error{Code: apitype.CodeValidation, Message: err.Error()}
	}
	if req.Automatic {
		var left []string
		targets, left = consented(cfg, targets, config.Granted)
		if len(left) > 0 {
			resp.Remarks = append(resp.Remarks, fmt.Sprintf("not captured automatically, capture not granted: %s (pond consent grant [--agent NAME])", strings.Join(left, ", ")))
		}
	} else {
		var declined []string
		targets, declined = consented(cfg, targets, config.Granted, config.NotAsked)
		if len(targets) == 0 && (len(declined) > 0 || cfg.Consent.Capture == config.Declined) {
			whom := "every agent"
			if len(declined) > 0 {
				whom = strings.Join(declined, ", ")
			}
			return nil, &apitype.Error{Code: apitype.CodeDeclined, Message: fmt.Sprintf("capture is declined for %s in %s", whom, s.Dirs.ConfigFile.Path)}
		}
		if len(declined) > 0 {
			resp.Remarks = append(resp.Remarks, fmt.Sprintf("skipped, capture declined: %s (pond consent grant --agent NAME)", strings.Join(declined, ", ")))
		}
		if _, unasked := consented(cfg, targets, config.Granted, config.Declined); len(unasked) > 0 {
			resp.Remarks = append(resp.Remarks, fmt.Sprintf("capture consent was never asked for %s: this sync ran because you asked for it; "+
				"`pond consent grant` lets Pond capture them as they are written (`--agent NAME` for one), `pond consent decline` stops it", strings.Join(unasked, ", ")))
		}
	}
	switch {
	case len(targets) == 0 && req.Automatic:
		// Nothing was granted: no sync ran, and none is recorded as the last capture.
		resp.Report = &view.SyncReport{Adapters: []view.AdapterReport{}, Outcome: "ok"}
		return resp, nil
	case len(targets) == 0:
		resp.Remarks = append(resp.Remarks, "no adapter is enabled and no agent data was found; see `pond adapters list`")
	}
	resp.Report, err = s.runSync(ctx, targets, capture.Options{DryRun: req.DryRun, Verify: req.Verify, Progress: s.syncProgress()}, req.NoWait)
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// syncProgress tells the watchers how far a sync is, at most about a hundred times per adapter
// (at each percent, and at an adapter's first and last source), live only: progress is stale
// once the next arrives, and a full sync must not crowd out the events a reconnecting watcher
// needs.
func (s *Service) syncProgress() func(view.SyncProgress) {
	if s.Hub == nil {
		return nil
	}
	return func(p view.SyncProgress) {
		if p.Done <= 1 || p.Done == p.Total || p.Done*100/p.Total != (p.Done-1)*100/p.Total {
			s.Hub.PublishLive(apitype.EventSyncProgress, p)
		}
	}
}

// consented splits targets into those whose agent's answer is one of answers and the names of
// the others.
func consented(cfg *config.Config, targets []capture.Target, answers ...config.Consent) (in []capture.Target, out []string) {
	for _, t := range targets {
		if slices.Contains(answers, cfg.ConsentFor(t.Adapter.Name())) {
			in = append(in, t)
		} else {
			out = append(out, t.Adapter.Name())
		}
	}
	return in, out
}

// automaticConfig is the config automatic capture reads: bootstrapped (the first run's
// adapters enabled) only when capture was granted for all.
func (s *Service) automaticConfig() (*config.Config, error) {
	cfg, err := s.loadConfig()
	if err != nil || cfg.Consent.Capture != config.Granted {
		return cfg, err
	}
	cfg, _, err = s.bootstrap()
	return cfg, err
}

// bootstrap loads the config and, the first time Pond runs, enables the adapters whose data
// exists (saying so in remark).
func (s *Service) bootstrap() (cfg *config.Config, remark string, err error) {
	s.cfgMu.Lock()
	defer s.cfgMu.Unlock()
	if cfg, err = s.loadConfig(); err != nil {
		return nil, "", err
	}
	if cfg.Consent.Capture == config.Declined || !capture.Bootstrap(cfg, s.Env) {
		return cfg, "", nil
	}
	if err := cfg.Save(s.Dirs.ConfigFile.Path); err != nil {
		return nil, "", err
	}
	if s.ConfigChanged != nil {
		s.ConfigChanged()
	}
	s.publish(apitype.EventAdapters, view.AdaptersChanged{Action: "discover", Adapters: cfg.AdapterNames()})
	return cfg, "enabled the adapters whose data was found: " + strings.Join(cfg.AdapterNames(), ", "), nil
}

// runSync runs one sync in the write slot, records it and tells the watchers. With noWait it
// refuses at once (sync_running) when another write holds the slot or, in a service other than
// the daemon's (which is the only writer while it runs), when another process holds the store
// lock.
func (s *Service) runSync(ctx context.Context, targets []capture.Target, opts capture.Options, noWait bool) (*view.SyncReport, error) {
	if err := s.acquireWrite(ctx, noWait); err != nil {
		return nil, err
	}
	defer s.releaseWrite()
	defer limitHeap()()
	if noWait && s.Daemon == nil {
		l, err := store.TryLock(s.Dirs.State.Path, "pond sync")
		var le *store.LockedError
		if errors.As(err, &le) {
			return nil, &apitype.Error{Code: apitype.CodeSyncRunning, Message: "another writer holds the store: " + le.Holder.String(),
				Details: map[string]any{"holder": le.Holder.String()}}
		}
		if err != nil {
			return nil, err
		}
		l.Release()
	}
	var names []string
	for _, t := range targets {
		names = append(names, t.Adapter.Name())
	}
	s.publish(apitype.EventSyncStarted, view.SyncStarted{Adapters: names, DryRun: opts.DryRun})
	eng := &capture.Engine{Store: s.Store, Env: s.Env, Cursors: &capture.Cursors{Dir: s.Dirs.State.Path},
		Stamp: store.Stamp{PondVersion: s.Version}, Log: s.log()}
	cfg, err := s.loadConfig()
	if err != nil {
		return nil, err
	}
	if opts.Exclude == nil {
		if opts.Exclude, err = adapters.NewExclusions(cfg.Privacy.ExcludeProjects, s.Env.Home); err != nil {
			return nil, &apitype.Error{Code: apitype.CodeValidation, Message: "config: privacy.exclude_projects: " + err.Error()}
		}
	}
	if err := s.Store.SetRedaction(cfg.Privacy.Redact); err != nil {
		return nil, err
	}
	// In an archive other machines write too, their rows and erasures come in first: this
	// sync's rows are checked against them, and searches here see them.
	if !opts.DryRun && s.Store.Shared() {
		got, err := s.Store.CatchUp(ctx)
		if err != nil {
			return nil, fmt.Errorf("catching up with other machines' commits: %w", err)
		}
		if got != (view.Tally{}) {
			s.publish(apitype.EventCaptured, view.Captured{Source: "catch-up", Inserted: got})
		}
	}
	rep, runErr := eng.Sync(ctx, targets, opts)
	if !opts.DryRun && rep != nil && rep.Inserted.Messages > 0 {
		// Keep the text index caught up, so common-word searches stay on it (a fold, when the
		// index exists; building it is upkeep's and pond optimize's job).
		if _, err := s.Store.MaintainSearchIndexes(ctx, false); err != nil && ctx.Err() == nil {
			s.log().Warn("text index not updated", "error", err)
		}
	}
	if !opts.DryRun {
		if err := capture.SaveLastSync(s.Dirs.State.Path, rep, runErr); err != nil && runErr == nil {
			runErr = err
		}
	}
	if runErr != nil {
		s.publish(apitype.EventError, view.Failed{During: "sync", Error: runErr.Error()})
		return nil, runErr
	}
	s.publish(apitype.EventSyncFinished, view.SyncFinished{Outcome: rep.Outcome, Inserted: rep.Inserted, DryRun: opts.DryRun})
	if rep.Inserted.Sessions+rep.Inserted.Messages > 0 {
		s.upkeep.changed.Store(true)
		s.publish(apitype.EventCaptured, view.Captured{Source: "sync", Inserted: rep.Inserted})
	}
	return rep, nil
}
