package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/apache/arrow/go/v17/arrow"
	"github.com/apache/arrow/go/v17/arrow/array"

	"github.com/pondhq/pond/session"
	"github.com/pondhq/pond/store/lance"
	"github.com/pondhq/pond/store/sqlite"
)

// ErrNotFound is returned for a session or message the archive does not hold.
var ErrNotFound = errors.New("store: not found")

// Transcript is one stored session with its messages in order (timestamp, then id) and each
// message's parts by ordinal.
type Transcript struct {
	Session  session.Session
	Messages []session.Message
	Parts    map[string][]session.Part // by message id
}

// SessionIDs lists the stored sessions, oldest first.
func (s *Store) SessionIDs(ctx context.Context) ([]string, error) {
	ids, err := sqlite.QueryStrings(ctx, s.mirror.DB(), `SELECT session_id FROM sessions ORDER BY created_at, session_id`)
	if err != nil {
		return nil, fmt.Errorf("store: list sessions: %w", err)
	}
	return ids, nil
}

// Projects lists the distinct projects the stored sessions name (absolute folders and agents'
// project keys alike), for adapters that look for files inside projects (Aider).
func (s *Store) Projects(ctx context.Context) ([]string, error) {
	ps, err := sqlite.QueryStrings(ctx, s.mirror.DB(), `SELECT DISTINCT project FROM sessions WHERE project <> '' ORDER BY project`)
	if err != nil {
		return nil, fmt.Errorf("store: list projects: %w", err)
	}
	return ps, nil
}

// ChildSessionIDs lists the stored sessions whose parent is id (sub-agents, forks,
// continuations), oldest first.
func (s *Store) ChildSessionIDs(ctx context.Context, id string) ([]string, error) {
	return childSessionIDs(ctx, s.mirror.DB(), id)
}

// childSessionIDs lists the sessions whose parent is id, oldest first.
func childSessionIDs(ctx context.Context, db querier, id string) ([]string, error) {
	ids, err := sqlite.QueryStrings(ctx, db, `SELECT session_id FROM sessions WHERE parent_session_id = ? ORDER BY created_at, session_id`, id)
	if err != nil {
		return nil, fmt.Errorf("store: children of %s: %w", id, err)
	}
	return ids, nil
}

func parseISO(s string) time.Time {
	t, _ := time.Parse(isoMicro, s)
	return t
}

func optionsFrom(s sql.NullString) session.Options {
	if !s.Valid || s.String == "" {
		return nil
	}
	var o session.Options
	if err := json.Unmarshal([]byte(s.String), &o); err != nil {
		return session.Options{"pond_unreadable_options": []byte(fmt.Sprintf("%q", s.String))}
	}
	return o
}

// ReadTranscript reads a whole stored session. The mirror serves rows; Lance serves what the
// mirror does not keep: file payloads and the messages' raw records.
func (s *Store) ReadTranscript(ctx context.Context, id string) (*Transcript, error) {
	extra, err := s.lanceOnly(ctx, []string{id})
	if err != nil {
		return nil, err
	}
	return s.readTranscript(ctx, id, extra)
}

// ReadTranscripts reads the stored sessions ids as ReadTranscript does, handing each to fn in
// turn, with one Lance scan of each table for them all instead of one per session (a copy reads
// thousands). ids should be a bounded batch: what Lance gives them is held together.
func (s *Store) ReadTranscripts(ctx context.Context, ids []string, fn func(*Transcript) error) error {
	extra, err := s.lanceOnly(ctx, ids)
	if err != nil {
		return err
	}
	for _, id := range ids {
		t, err := s.readTranscript(ctx, id, extra)
		if err != nil {
			return err
		}
		if err := fn(t); err != nil {
			return err
		}
	}
	return nil
}

// readTranscript reads session id from the mirror, with what only Lance keeps.
func (s *Store) readTranscript(ctx context.Context, id string, extra lanceExtras) (*Transcript, error) {
	db := s.mirror.DB()
	t := &Transcript{Parts: map[string][]session.Part{}}
	var parent, parentMsg, opts sql.NullString
	var created string
	err := db.QueryRowContext(ctx, `SELECT session_id, parent_session_id, parent_message_id, source_agent, created_at, project, options
		FROM sessions WHERE session_id = ?`, id).
		Scan(&t.Session.ID, &parent, &parentMsg, &t.Session.SourceAgent, &created, &t.Session.Project, &opts)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w: session %s", ErrNotFound, id)
	}
	if err != nil {
		return nil, fmt.Errorf("store: read session %s: %w", id, err)
	}
	t.Session.ParentSessionID, t.Session.ParentMessageID = parent.String, parentMsg.String
	t.Session.CreatedAt, t.Session.Options = parseISO(created), optionsFrom(opts)

	rows, err := db.QueryContext(ctx, `SELECT message_id, timestamp, role, content FROM message_rows
		WHERE session_id = ? ORDER BY timestamp, message_id`, id)
	if err != nil {
		return nil, fmt.Errorf("store: read messages of %s: %w", id, err)
	}
	for rows.Next() {
		m := session.Message{SessionID: id}
		var ts string
		var content sql.NullString
		if err := rows.Scan(&m.ID, &ts, &m.Role, &content); err != nil {
			rows.Close()
			return nil, err
		}
		record, ok := extra.records[id][m.ID]
		m.Timestamp, m.Content, m.Options = parseISO(ts), content.String, optionsFrom(sql.NullString{String: record, Valid: ok})
		t.Messages = append(t.Messages, m)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}

	// The parts as the mirror holds them, with the values it leaves to Lance taken from extra.
	rows, err = db.QueryContext(ctx, `SELECT message_id, id, ordinal, type, provenance, variant_data, options FROM _pond_parts_here
		WHERE session_id = ? ORDER BY message_id, ordinal, id`, id)
	if err != nil {
		return nil, fmt.Errorf("store: read parts of %s: %w", id, err)
	}
	defer rows.Close()
	values := extra.parts[id]
	for rows.Next() {
		p := session.Part{SessionID: id}
		var variantJSON, po sql.NullString
		if err := rows.Scan(&p.MessageID, &p.ID, &p.Ordinal, &p.Type, &p.Provenance, &variantJSON, &po); err != nil {
			return nil, err
		}
		if v, ok := values[sqlite.PartValueKey(p.MessageID, p.ID, "variant_data")]; ok && !variantJSON.Valid {
			variantJSON = sql.NullString{String: v, Valid: true}
		}
		if v, ok := values[sqlite.PartValueKey(p.MessageID, p.ID, "options")]; ok && !po.Valid {
			po = sql.NullString{String: v, Valid: true}
		}
		p.Options = optionsFrom(po)
		if err := partFromBody(&p, variantJSON.String, extra.payloads[id+"\x00"+p.MessageID+"\x00"+p.ID]); err != nil {
			return nil, err
		}
		t.Parts[p.MessageID] = append(t.Parts[p.MessageID], p)
	}
	return t, rows.Err()
}

// lanceExtras is what a transcript's rows in the mirror lack: the parts' inline file bytes (by
// session, message and part id), the messages' raw records (by session and message id) and
// the parts' values the mirror leaves to Lance (by session and sqlite.PartValueKey).
type lanceExtras struct {
	payloads map[string][]byte
	records  map[string]map[string]string
	parts    map[string]map[string]string
}

// lanceOnly reads from Lance what the mirror does not keep of sessions.
func (s *Store) lanceOnly(ctx context.Context, sessionIDs []string) (lanceExtras, error) {
	payloads, err := s.filePayloads(ctx, sessionIDs)
	if err != nil {
		return lanceExtras{}, err
	}
	a := s.MirrorArchive()
	records, err := a.Records(ctx, sessionIDs)
	if err != nil {
		return lanceExtras{}, fmt.Errorf("store: raw records of %s: %w", strings.Join(sessionIDs, ", "), err)
	}
	parts, err := a.PartValues(ctx, sessionIDs)
	if err != nil {
		return lanceExtras{}, fmt.Errorf("store: tool bodies of %s: %w", strings.Join(sessionIDs, ", "), err)
	}
	return lanceExtras{payloads, records, parts}, nil
}

// mirrorArchive reads what the mirror leaves to Lance (sqlite.Archive): the raw records from the
// messages table, the tool bodies and part records from the parts table; for the mirror's SQL
// surface and for whole transcripts.
type mirrorArchive struct{ messages, parts *lance.Table }

func (r mirrorArchive) Records(ctx context.Context, sessionIDs []string) (map[string]map[string]string, error) {
	return scanRecords(ctx, r.messages, inFilter("session_id", sessionIDs))
}

// recordsOf reads the raw records of a few messages, by session and message id (with perhaps
// others that share both lists). A reindex needs one message of a long session, whose other
// records would be as many pages to decompress.
func (s *Store) recordsOf(ctx context.Context, keys []sqlite.MessageKey) (map[string]map[string]string, error) {
	sessions, ids := map[string]bool{}, map[string]bool{}
	for _, k := range keys {
		sessions[k.SessionID], ids[k.MessageID] = true, true
	}
	filter := inFilter("session_id", slices.Sorted(maps.Keys(sessions))) + " AND " + inFilter("id", slices.Sorted(maps.Keys(ids)))
	return scanRecords(ctx, s.tables[TableMessages], filter)
}

// scanRecords reads the raw records of the messages filter selects, decoded, by session and
// message id.
func scanRecords(ctx context.Context, messages *lance.Table, filter string) (map[string]map[string]string, error) {
	out := map[string]map[string]string{}
	// No condition on options: Lance would evaluate it on every row of the pages it reads.
	// The search text comes along: each record is stored against its row's (rawrecord.go).
	q := lance.Query{Columns: []string{"session_id", "id", "options", "search_text"}, Filter: filter}
	var ref []byte
	err := messages.Scan(ctx, q, func(rec arrow.Record) error {
		sid := rec.Column(0).(*array.String)
		id := rec.Column(1).(*array.String)
		opts := rec.Column(2).(*array.String)
		text := rec.Column(3).(*array.String)
		for i := 0; i < int(rec.NumRows()); i++ {
			if opts.IsNull(i) {
				continue
			}
			stored := opts.Value(i)
			record, err := decodeRecord(stored, text.Value(i), &ref)
			if err != nil {
				return fmt.Errorf("%s/%s: %w", sid.Value(i), id.Value(i), err)
			}
			if record == stored { // still the record's memory
				record = strings.Clone(record)
			}
			byID := out[sid.Value(i)]
			if byID == nil {
				byID = map[string]string{}
				out[strings.Clone(sid.Value(i))] = byID
			}
			byID[strings.Clone(id.Value(i))] = record
		}
		return nil
	})
	return out, err
}

// PartValues returns the values of the sessions' parts that the mirror leaves to Lance
// (sqlite.LeftToLance): the long tool bodies and part records, and nothing it keeps itself.
func (r mirrorArchive) PartValues(ctx context.Context, sessionIDs []string) (map[string]map[string]string, error) {
	out := map[string]map[string]string{}
	q := lance.Query{Columns: []string{"session_id", "message_id", "id", "type", "variant_data", "options"}, Filter: inFilter("session_id", sessionIDs)}
	err := r.parts.Scan(ctx, q, func(rec arrow.Record) error {
		sid := rec.Column(0).(*array.String)
		msg := rec.Column(1).(*array.String)
		id := rec.Column(2).(*array.String)
		typ := rec.Column(3).(*array.String)
		body := rec.Column(4).(*array.String)
		opts := rec.Column(5).(*array.String)
		for i := 0; i < int(rec.NumRows()); i++ {
			byKey := out[sid.Value(i)]
			if byKey == nil {
				byKey = map[string]string{}
				out[strings.Clone(sid.Value(i))] = byKey
			}
			if sqlite.LeftToLance(typ.Value(i), "variant_data", body.Value(i)) {
				byKey[sqlite.PartValueKey(msg.Value(i), id.Value(i), "variant_data")] = strings.Clone(body.Value(i))
			}
			if sqlite.LeftToLance(typ.Value(i), "options", opts.Value(i)) {
				byKey[sqlite.PartValueKey(msg.Value(i), id.Value(i), "options")] = strings.Clone(opts.Value(i))
			}
		}
		return nil
	})
	return out, err
}

// Generation counts the writes through the store's handles of the two tables: the daemon, the
// only writer while it runs, writes through them, and a pond sql that runs without one reads
// for one statement only.
func (r mirrorArchive) Generation() uint64 { return r.messages.Writes() + r.parts.Writes() }

// MirrorArchive is where the mirror's views read what it leaves to Lance, for a reader of its
// SQL surface (sqlite.OpenReader).
func (s *Store) MirrorArchive() sqlite.Archive {
	return mirrorArchive{s.tables[TableMessages], s.tables[TableParts]}
}

// filePayloads reads the inline file bytes of the parts of sessions from Lance, by session,
// message and part id.
func (s *Store) filePayloads(ctx context.Context, sessionIDs []string) (map[string][]byte, error) {
	out := map[string][]byte{}
	q := lance.Query{
		Columns: []string{"session_id", "message_id", "id", "data"},
		Filter:  inFilter("session_id", sessionIDs) + " AND data IS NOT NULL",
	}
	err := s.tables[TableParts].Scan(ctx, q, func(r arrow.Record) error {
		sid := r.Column(0).(*array.String)
		msg := r.Column(1).(*array.String)
		id := r.Column(2).(*array.String)
		data := r.Column(3).(*array.Binary)
		for i := 0; i < int(r.NumRows()); i++ {
			out[sid.Value(i)+"\x00"+msg.Value(i)+"\x00"+id.Value(i)] = append([]byte(nil), data.Value(i)...)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: file payloads of %s: %w", strings.Join(sessionIDs, ", "), err)
	}
	return out, nil
}

// Events renders a transcript as the event stream that produced it.
func (t *Transcript) Events() []session.Event {
	out := []session.Event{{Session: &t.Session}}
	for i := range t.Messages {
		m := &t.Messages[i]
		out = append(out, session.Event{Message: m})
		parts := t.Parts[m.ID]
		for j := range parts {
			out = append(out, session.Event{Part: &parts[j]})
		}
	}
	return out
}
