package store

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"
	"github.com/apache/arrow/go/v17/arrow/memory"

	"github.com/pondhq/pond/store/lance"
)

// A lease lets one machine at a time do what must not run twice at once on an archive that
// several machines write (upkeep's compaction, index builds and version cleanup, an erase): the
// store lock only keeps one process of a machine. It is kept in the archive, in the leases
// table, with nothing but Lance appends: a machine appends its claim, then reads the live
// claims for the name; the oldest commit wins. Appends commit in order, each into fragments
// numbered after every earlier commit's, so the row ids order the claims as committed: two
// machines claiming at once both see the first one's claim once their own is committed, and
// the later one withdraws. A claim lives until its holder releases it or its time runs out
// (a machine that died holding it).
const TableLeases = "leases"

var leasesSchema = arrow.NewSchema([]arrow.Field{
	str("name", false),
	str("holder", false),
	i64("expires"), // microseconds since the epoch
}, nil)

// LeaseUpkeep is the lease of upkeep and erase.
const LeaseUpkeep = "upkeep"

// LeaseBusyError is acquireLease's answer when another machine holds the lease.
type LeaseBusyError struct {
	Name, Holder string
	Expires      time.Time
}

func (e *LeaseBusyError) Error() string {
	return fmt.Sprintf("store: another machine (%s) holds the archive's %s lease until %s", e.Holder, e.Name, e.Expires.Local().Format(time.DateTime))
}

// Lease is a held lease.
type Lease struct {
	s            *Store
	name, holder string
}

// acquireLease claims the lease name for ttl, or returns a *LeaseBusyError. In an archive on
// local disk there is nothing to claim: the store lock is enough, and it returns a lease whose
// Release does nothing.
func (s *Store) acquireLease(ctx context.Context, name string, ttl time.Duration) (*Lease, error) {
	if !s.db.Location().Remote() {
		return &Lease{}, nil
	}
	if err := s.openLeases(ctx); err != nil {
		return nil, err
	}
	host, _ := os.Hostname()
	nonce := make([]byte, 6)
	rand.Read(nonce)
	holder := fmt.Sprintf("%s pid %d #%s", host, os.Getpid(), hex.EncodeToString(nonce))
	b := array.NewRecordBuilder(memory.DefaultAllocator, leasesSchema)
	defer b.Release()
	b.Field(0).(*array.StringBuilder).Append(name)
	b.Field(1).(*array.StringBuilder).Append(holder)
	b.Field(2).(*array.Int64Builder).Append(time.Now().Add(ttl).UnixMicro())
	rec := b.NewRecord()
	defer rec.Release()
	if err := s.leases.Append(ctx, rec); err != nil {
		return nil, fmt.Errorf("store: claim the %s lease: %w", name, err)
	}
	l := &Lease{s: s, name: name, holder: holder}
	first, err := s.firstClaim(ctx, name)
	if err != nil {
		l.Release(context.WithoutCancel(ctx))
		return nil, err
	}
	if first.Name != holder {
		l.Release(context.WithoutCancel(ctx))
		return nil, &LeaseBusyError{Name: name, Holder: first.Name, Expires: first.Expires}
	}
	return l, nil
}

// claim is one live claim: its holder (in Name) and when it runs out.
type claim struct {
	Name    string
	Expires time.Time
	row     uint64
}

// firstClaim is the live claim of name committed first.
func (s *Store) firstClaim(ctx context.Context, name string) (claim, error) {
	var live []claim
	now := time.Now().UnixMicro()
	q := lance.Query{Columns: []string{"holder", "expires"}, Filter: fmt.Sprintf("name = %s AND expires > %d", lance.Quote(name), now), WithRowID: true}
	err := s.leases.Scan(ctx, q, func(r arrow.Record) error {
		holders, expires := r.Column(0).(*array.String), r.Column(1).(*array.Int64)
		rows, ok := r.Column(r.Schema().FieldIndices("_rowid")[0]).(*array.Uint64)
		if !ok {
			return errors.New("store: leases: no row ids in the scan")
		}
		for i := range int(r.NumRows()) {
			live = append(live, claim{Name: holders.Value(i), Expires: time.UnixMicro(expires.Value(i)), row: rows.Value(i)})
		}
		return nil
	})
	if err != nil {
		return claim{}, fmt.Errorf("store: read the %s lease: %w", name, err)
	}
	if len(live) == 0 {
		return claim{}, fmt.Errorf("store: the claim on the %s lease is not in the archive", name)
	}
	return slices.MinFunc(live, func(a, b claim) int { return cmp.Compare(a.row, b.row) }), nil
}

// Release withdraws the claim (and clears claims that ran out).
func (l *Lease) Release(ctx context.Context) error {
	if l == nil || l.s == nil {
		return nil
	}
	_, err := l.s.leases.Delete(ctx, fmt.Sprintf("(name = %s AND holder = %s) OR expires < %d",
		lance.Quote(l.name), lance.Quote(l.holder), time.Now().Add(-time.Hour).UnixMicro()))
	return err
}

// openLeases opens the leases table, creating it when missing.
func (s *Store) openLeases(ctx context.Context) error {
	if s.leases != nil {
		return nil
	}
	names, err := s.db.TableNames(ctx)
	if err != nil {
		return err
	}
	var t *lance.Table
	if slices.Contains(names, TableLeases) {
		t, err = s.db.OpenTable(ctx, TableLeases)
	} else if t, err = s.db.CreateTable(ctx, TableLeases, leasesSchema); err != nil {
		t, err = s.db.OpenTable(ctx, TableLeases) // another machine created it first
	}
	if err != nil {
		return err
	}
	s.leases = t
	return nil
}
