package transfer

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/pondhq/pond/internal/atomicfile"
	"github.com/pondhq/pond/paths"
	"github.com/pondhq/pond/store"
	"github.com/pondhq/pond/store/lance"
	"github.com/pondhq/pond/store/objstore"
)

// Kind is what an endpoint of pond copy names.
type Kind string

// Endpoint kinds.
const (
	KindStore   Kind = "store"   // a store location: a folder of Lance tables or an object-store URL
	KindArchive Kind = "archive" // a .pond file
	KindStream  Kind = "jsonl"   // a JSONL stream: a .jsonl file or - (export only)
)

// Endpoint is one side of a copy.
type Endpoint struct {
	Kind     Kind
	Location lance.Location // KindStore
	Path     string         // KindArchive and KindStream ("-": standard output)
	// Configured is this Pond's own archive (@, local, or the location it is configured with):
	// opened where it lives, with its own mirror and store lock.
	Configured bool
}

func (e Endpoint) String() string {
	switch {
	case e.Configured:
		return "this Pond's archive (" + e.Location.String() + ")"
	case e.Kind == KindStore:
		return e.Location.String()
	case e.Path == "-":
		return "standard output"
	}
	return e.Path
}

// Parse reads an endpoint as pond copy names it: @, local or default for the archive this Pond
// is configured with (configured); a path ending in .pond; a path ending in .jsonl, or -, for
// a JSONL stream; anything else a store location (objstore.Parse). A local folder holding a
// lance/ folder of tables (a Pond data directory) names that lance/ folder.
func Parse(raw string, configured lance.Location) (Endpoint, error) {
	raw = strings.TrimSpace(raw)
	low := strings.ToLower(raw)
	switch {
	case raw == "":
		return Endpoint{}, fmt.Errorf("%w: an empty location", objstore.ErrParse)
	case raw == "@" || raw == "local" || raw == "default":
		return Endpoint{Kind: KindStore, Location: configured, Configured: true}, nil
	case raw == "-":
		return Endpoint{Kind: KindStream, Path: "-"}, nil
	case strings.HasSuffix(low, ".pond") && !strings.Contains(raw, "://"):
		p, err := filepath.Abs(raw)
		return Endpoint{Kind: KindArchive, Path: p}, err
	case strings.HasSuffix(low, ".jsonl") && !strings.Contains(raw, "://"):
		p, err := filepath.Abs(raw)
		return Endpoint{Kind: KindStream, Path: p}, err
	}
	loc, err := lance.ParseLocation(raw)
	if err != nil {
		return Endpoint{}, err
	}
	if !loc.Remote() {
		inner := filepath.Join(loc.Dir(), "lance")
		if isDir(filepath.Join(inner, store.TableSessions+".lance")) && !isDir(filepath.Join(loc.Dir(), store.TableSessions+".lance")) {
			loc = lance.LocalDir(inner)
		}
	}
	ep := Endpoint{Kind: KindStore, Location: loc}
	ep.Configured = sameLocation(loc, configured)
	return ep, nil
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func sameLocation(a, b lance.Location) bool {
	if a.Remote() || b.Remote() {
		return a.Remote() && b.Remote() && strings.TrimSuffix(a.URI(), "/") == strings.TrimSuffix(b.URI(), "/")
	}
	ra, errA := filepath.EvalSymlinks(a.Dir())
	rb, errB := filepath.EvalSymlinks(b.Dir())
	if errA != nil || errB != nil {
		return filepath.Clean(a.Dir()) == filepath.Clean(b.Dir())
	}
	return ra == rb
}

// Same reports whether a and b name the same archive.
func Same(a, b Endpoint) bool {
	switch {
	case a.Kind != b.Kind:
		return false
	case a.Kind == KindStore:
		return a.Configured && b.Configured || sameLocation(a.Location, b.Location)
	default:
		return a.Path == b.Path && a.Path != "-"
	}
}

// Env is what opening an endpoint needs.
type Env struct {
	// Configured opens this Pond's own archive (its data, state and storage).
	Configured store.Options
	// Scratch is a private folder for what a copy only needs while it runs: the mirrors of
	// other stores, an unpacked .pond file. The caller removes it.
	Scratch     string
	PondVersion string
	Logger      *slog.Logger
}

// Opened is an endpoint opened as a store.
type Opened struct {
	Store *store.Store
	ep    Endpoint
	env   Env
	lance string // an archive's unpacked Lance folder
}

// OpenSource opens ep to read: read-only (store.Options.ReadOnly: nothing is created,
// migrated or written where it lives). A store other than this Pond's own gets a mirror built
// from its Lance tables in the scratch folder. A .pond file is unpacked there first.
func OpenSource(ctx context.Context, ep Endpoint, env Env) (*Opened, error) {
	return open(ctx, ep, env, "source", true)
}

// OpenDestination opens ep to write: this Pond's own archive as it is; another store with a
// mirror built in the scratch folder (its tables are created when it has none); a .pond file
// unpacked into the scratch folder (or a new, empty archive there), written back by Finish.
// readOnly opens it for --verify-only, which writes nothing anywhere.
func OpenDestination(ctx context.Context, ep Endpoint, env Env, readOnly bool) (*Opened, error) {
	return open(ctx, ep, env, "destination", readOnly)
}

func open(ctx context.Context, ep Endpoint, env Env, side string, readOnly bool) (*Opened, error) {
	o := &Opened{ep: ep, env: env}
	base := filepath.Join(env.Scratch, side)
	opts := store.Options{DataDir: filepath.Join(base, "data"), StateDir: filepath.Join(base, "state"),
		Command: "pond copy", Logger: env.Logger, ReadOnly: readOnly}
	switch {
	case ep.Kind == KindStream:
		return nil, fmt.Errorf("transfer: a JSONL stream is written by pond copy, not read: import it with `pond import %s`", ep.Path)
	case ep.Configured:
		opts = env.Configured
		opts.Command, opts.ReadOnly = "pond copy", readOnly
		s, err := store.Open(ctx, opts)
		if err != nil {
			return nil, err
		}
		o.Store = s
		return o, nil
	case ep.Kind == KindArchive:
		_, err := os.Stat(ep.Path)
		switch {
		case err == nil:
			if _, o.lance, err = Unpack(ep.Path, filepath.Join(base, "archive")); err != nil {
				return nil, err
			}
		case errors.Is(err, fs.ErrNotExist) && !readOnly:
			o.lance = filepath.Join(base, "archive", lanceEntry)
		default:
			return nil, err
		}
		opts.Storage = o.lance
	default:
		opts.Storage = ep.Location.String()
	}
	s, err := store.Open(ctx, opts)
	if err != nil {
		return nil, err
	}
	// The mirror of a store opened here starts empty: it is made from the store's Lance
	// tables, in the scratch folder (nothing is written where the store lives).
	if _, err := s.RebuildMirror(ctx); err != nil {
		s.Close()
		return nil, err
	}
	o.Store = s
	return o, nil
}

// Finish writes a .pond destination back to its file (replaced whole, atomically, once the
// new file is complete and on disk), and closes the store. For other endpoints it closes.
func (o *Opened) Finish(ctx context.Context) error {
	if o.ep.Kind != KindArchive || o.Store.ReadOnly() {
		return o.Close()
	}
	m, err := Describe(ctx, o.Store, o.env.PondVersion)
	if err != nil {
		return err
	}
	if err := o.Close(); err != nil {
		return err
	}
	f, err := atomicfile.Create(o.ep.Path, paths.FileMode, true)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := Pack(f, o.lance, m); err != nil {
		return err
	}
	return f.Commit()
}

// Close closes the store.
func (o *Opened) Close() error {
	if o.Store == nil {
		return nil
	}
	err := o.Store.Close()
	o.Store = nil
	return err
}
