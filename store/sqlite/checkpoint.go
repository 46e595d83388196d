package sqlite

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"
)

// checkpointer copies the mirror's write-ahead log into the database file on its own connection
// and goroutine, after each commit. SQLite's automatic checkpoint would do that copy inside the
// committing transaction, on the writer's path: about a fifth of the mirror's write time in bulk
// ingest (docs/benchmarks.md). Here it overlaps the writer's next batch.
//
// A checkpoint never blocks the writer (PASSIVE). But the log only restarts from its beginning
// when a write transaction starts after everything in it was copied; under a steady stream of
// batches the writer starts its next one while the copy still runs, and the log would grow for
// as long as the stream lasts. The writer bounds it: before a transaction it calls settle, which
// checkpoints in line once the log holds more than maxLogFrames.
type checkpointer struct {
	db     *sql.DB
	kick   chan struct{}
	done   chan struct{}
	mu     sync.Mutex   // one checkpoint at a time
	log    atomic.Int64 // frames in the log at the last checkpoint
	kmu    sync.Mutex   // guards kick against close
	closed bool
	err    error
}

// maxLogFrames bounds the log: 16,384 pages, 256 MiB at 16 KiB.
const maxLogFrames = 16384

func startCheckpointer(db *sql.DB) *checkpointer {
	c := &checkpointer{db: db, kick: make(chan struct{}, 1), done: make(chan struct{})}
	go c.loop()
	return c
}

func (c *checkpointer) loop() {
	defer close(c.done)
	for range c.kick {
		c.run(context.Background(), c.db)
	}
}

// run checkpoints through q and records the log's length. An error is left to the next run: a
// checkpoint that fails loses nothing.
func (c *checkpointer) run(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var busy, log, copied int64
	if err := q.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &log, &copied); err == nil {
		c.log.Store(log)
	}
}

// committed tells the checkpointer there is something to copy.
func (c *checkpointer) committed() {
	c.kmu.Lock()
	defer c.kmu.Unlock()
	if c.closed {
		return
	}
	select {
	case c.kick <- struct{}{}:
	default: // one is pending already
	}
}

// settle checkpoints in line, through the writer's connection, when the log has run too far.
func (c *checkpointer) settle(ctx context.Context, writer *sql.DB) {
	if c.log.Load() > maxLogFrames {
		c.run(ctx, writer)
	}
}

func (c *checkpointer) close() error {
	c.kmu.Lock()
	defer c.kmu.Unlock()
	if !c.closed {
		c.closed = true
		close(c.kick)
		<-c.done
		c.err = c.db.Close()
	}
	return c.err
}
