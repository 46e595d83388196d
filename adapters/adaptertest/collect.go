// Package adaptertest is the shared test kit of the adapters: a Collector that checks an
// adapter's event stream with the store's own validator, and helpers that read a whole root
// the way the sync engine does.
package adaptertest

import (
	"context"
	"fmt"
	"os"
	"sort"
	"testing"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/session"
)

// Collector records what an adapter emits. Every event passes through session.Validator, so
// an adapter that breaks the stream order or the model's rules fails its tests.
type Collector struct {
	Events    []session.Event
	Bad       []Problem // Malformed reports
	Drift     []Problem // Unknown reports
	validator session.Validator
}

// Problem is one Malformed or Unknown report.
type Problem struct {
	At   adapters.Location
	What string
}

// Event implements adapters.Emitter.
func (c *Collector) Event(e session.Event) error {
	if err := c.validator.Check(&e); err != nil {
		return err
	}
	c.Events = append(c.Events, e)
	return nil
}

// Malformed implements adapters.Emitter.
func (c *Collector) Malformed(at adapters.Location, err error) {
	c.Bad = append(c.Bad, Problem{At: at, What: err.Error()})
}

// Unknown implements adapters.Emitter.
func (c *Collector) Unknown(at adapters.Location, what string) {
	c.Drift = append(c.Drift, Problem{At: at, What: what})
}

// Sessions are the distinct sessions emitted, by id (the last emission wins).
func (c *Collector) Sessions() map[string]session.Session {
	out := map[string]session.Session{}
	for _, e := range c.Events {
		if e.Session != nil {
			out[e.Session.ID] = *e.Session
		}
	}
	return out
}

// Messages are the distinct messages emitted, keyed by (session, id), in first-emission order.
func (c *Collector) Messages() []session.Message {
	seen := map[session.Key]bool{}
	var out []session.Message
	for _, e := range c.Events {
		if e.Message != nil && !seen[e.Key()] {
			seen[e.Key()] = true
			out = append(out, *e.Message)
		}
	}
	return out
}

// Parts are the distinct parts emitted, in first-emission order.
func (c *Collector) Parts() []session.Part {
	seen := map[session.Key]bool{}
	var out []session.Part
	for _, e := range c.Events {
		if e.Part != nil && !seen[e.Key()] {
			seen[e.Key()] = true
			out = append(out, *e.Part)
		}
	}
	return out
}

// PartsOf are the parts of one message, by ordinal.
func (c *Collector) PartsOf(sessionID, messageID string) []session.Part {
	var out []session.Part
	for _, p := range c.Parts() {
		if p.SessionID == sessionID && p.MessageID == messageID {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Ordinal < out[j].Ordinal })
	return out
}

// Counts summarises a collection for table tests.
type Counts struct{ Sessions, Messages, Parts, Malformed int }

// Counts counts distinct sessions, messages and parts, and malformed reports.
func (c *Collector) Counts() Counts {
	return Counts{len(c.Sessions()), len(c.Messages()), len(c.Parts()), len(c.Bad)}
}

// Read is one source read and the cursor it left.
type Read struct {
	Source adapters.Source
	Cursor adapters.Cursor
}

// ReadRoot scans root and reads every source from the given cursors (by source key; missing
// means from the start), skipping sources whose stamp equals their cursor's as the sync engine
// does. It returns the cursors after the reads.
func ReadRoot(t testing.TB, a adapters.Adapter, env adapters.Env, root string, cursors map[string]adapters.Cursor, c *Collector) map[string]adapters.Cursor {
	t.Helper()
	ctx := context.Background()
	srcs, err := a.Scan(ctx, env, root)
	if err != nil {
		t.Fatalf("%s: scan %s: %v", a.Name(), root, err)
	}
	next := map[string]adapters.Cursor{}
	for _, src := range srcs {
		cur := cursors[src.Key]
		if cur.Stamp != "" && cur.Stamp == src.Stamp {
			next[src.Key] = cur
			continue
		}
		nc, err := a.Read(ctx, env, src, cur, c)
		if err != nil {
			t.Fatalf("%s: read %s: %v", a.Name(), src.Key, err)
		}
		if nc.Stamp == "" {
			t.Fatalf("%s: read %s returned a cursor without the source's stamp", a.Name(), src.Key)
		}
		next[src.Key] = nc
	}
	return next
}

// ReadSource reads the one file at path as the source key (its stamp from the file as it is now),
// from cur, into c, and returns the next cursor.
func ReadSource(t testing.TB, a adapters.Adapter, env adapters.Env, key, path string, cur adapters.Cursor, c *Collector) adapters.Cursor {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	src := adapters.Source{Key: key, Path: path, Stamp: adapters.FileStamp(info), Size: info.Size(), ModTime: info.ModTime()}
	next, err := a.Read(context.Background(), env, src, cur, c)
	if err != nil {
		t.Fatalf("%s: read %s: %v", a.Name(), key, err)
	}
	return next
}

// FakeEnv is an environment with home as $HOME and only the given variables set.
func FakeEnv(goos, home string, vars map[string]string) adapters.Env {
	return adapters.Env{GOOS: goos, Home: home, Getenv: func(k string) string {
		if k == "HOME" {
			return home
		}
		return vars[k]
	}}
}

// Describe renders counts for failure messages.
func (c Counts) String() string {
	return fmt.Sprintf("%d sessions, %d messages, %d parts, %d malformed", c.Sessions, c.Messages, c.Parts, c.Malformed)
}
