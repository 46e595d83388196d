package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"
)

// Full-text search lives in the mirror as two FTS5 indexes over messages.search_text, kept in
// step with the messages table by triggers, so a message is searchable in the same transaction
// that stores it (docs/benchmarks.md has the measurements that chose FTS5 over Lance's index):
//
//   - messages_fts: words (unicode61, diacritics folded, Porter stemming, like the original
//     system's English-stemmed word index). It serves every query without CJK characters.
//   - messages_cjk: trigrams of the messages that contain Chinese, Japanese or Korean text, which
//     word tokenizers cannot segment (a run of ideographs is one "word" to unicode61). Queries
//     containing CJK characters search it by substring.
//
// Both are external-content tables: they index messages' rows by rowid and store no copy of the
// text. Their content is message_rows' search text unpacked (it is stored packed, pack.go),
// through the views _pond_fts_content and _pond_cjk_content, so that what FTS5 reads back itself
// (a rebuild) is the text.
//
// The word index has two columns: search_text holds the text of every message but sub-agents',
// subagent_search_text theirs. A search leaves sub-agents out unless asked (store's plan), and a
// MATCH restricted to the first column (WithoutSubagents) does that inside FTS5: with no other
// filter, the ranking needs nothing per match but FTS5's own doclists, where telling a
// sub-agent's message took a lookup of each match in the rank table (rank.go): a single word
// of 5,000-17,000 matches now ranks in half the time or less (docs/benchmarks.md). A message's
// agent never changes, so neither does its column.
//
// New rows are indexed by Mirror.ApplyWhen in its own transaction (indexNewMessages), not by a
// trigger: FTS5 writes its pending terms to disk at every statement savepoint, and an insert
// trigger ran one per row, so it wrote a segment per message and then merged them (2.5× the
// cost of indexing the same rows in one statement; docs/benchmarks.md). Plain INSERT
// statements, one a row, open no such savepoint: 20,000 rows so indexed leave FTS5 the same
// segments as one INSERT … SELECT, in about the same time. Updates and deletes are rare and
// stay on triggers.
var ftsDDL = []string{
	// Searchable messages counted per agent, project, role and UTC day, so that "N searchable in
	// scope" is a sum over a few thousand rows for any filter but a session id.
	`CREATE TABLE IF NOT EXISTS _pond_search_scope (
		source_agent TEXT NOT NULL, project TEXT NOT NULL, role TEXT NOT NULL, day TEXT NOT NULL, n INTEGER NOT NULL,
		PRIMARY KEY (source_agent, project, role, day)) WITHOUT ROWID`,
	// New rows are counted by indexNewMessages, once per transaction, like the word index
	// below; mirrors written before carry this trigger.
	`DROP TRIGGER IF EXISTS messages_scope_insert`,
	`CREATE TRIGGER IF NOT EXISTS messages_scope_delete AFTER DELETE ON message_rows
		WHEN old.search_text IS NOT NULL AND old.search_text != '' BEGIN
		UPDATE _pond_search_scope SET n = n - 1 WHERE source_agent = old.source_agent AND project = old.project
			AND role = old.role AND day = substr(old.timestamp, 1, 10);
	END`,
	`CREATE TRIGGER IF NOT EXISTS messages_scope_update AFTER UPDATE OF search_text ON message_rows
		WHEN (old.search_text IS NOT NULL AND old.search_text != '') != (new.search_text IS NOT NULL AND new.search_text != '') BEGIN
		INSERT INTO _pond_search_scope VALUES (new.source_agent, new.project, new.role, substr(new.timestamp, 1, 10),
			CASE WHEN new.search_text IS NOT NULL AND new.search_text != '' THEN 1 ELSE -1 END)
			ON CONFLICT DO UPDATE SET n = n + excluded.n;
	END`,
	`CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5(search_text, subagent_search_text,
		content='_pond_fts_content', content_rowid='rid', tokenize='porter unicode61 remove_diacritics 2')`,
	`CREATE VIRTUAL TABLE IF NOT EXISTS messages_cjk USING fts5(search_text, content='_pond_cjk_content', content_rowid='rid',
		tokenize='trigram')`,
	// Mirrors written before ApplyWhen indexed new rows itself carry this trigger.
	`DROP TRIGGER IF EXISTS messages_fts_insert`,
	`CREATE TRIGGER IF NOT EXISTS messages_fts_delete AFTER DELETE ON message_rows
		WHEN old.search_text IS NOT NULL AND old.search_text != '' BEGIN
		INSERT INTO messages_fts(messages_fts, rowid, search_text, subagent_search_text)
			VALUES ('delete', old.rowid, ` + wordColumnsSQL(oldText, "old.source_agent") + `);
		INSERT INTO messages_cjk(messages_cjk, rowid, search_text) SELECT 'delete', old.rowid, ` + oldText + ` WHERE ` + oldText + ` GLOB '` + cjkGlob + `';
	END`,
	`CREATE TRIGGER IF NOT EXISTS messages_fts_update AFTER UPDATE OF search_text ON message_rows BEGIN
		INSERT INTO messages_fts(messages_fts, rowid, search_text, subagent_search_text)
			SELECT 'delete', old.rowid, ` + wordColumnsSQL(oldText, "old.source_agent") + `
			WHERE old.search_text IS NOT NULL AND old.search_text != '';
		INSERT INTO messages_cjk(messages_cjk, rowid, search_text) SELECT 'delete', old.rowid, ` + oldText + `
			WHERE ` + oldText + ` GLOB '` + cjkGlob + `';
		INSERT INTO messages_fts(rowid, search_text, subagent_search_text) SELECT new.rowid, ` + wordColumnsSQL(newText, "new.source_agent") + `
			WHERE new.search_text IS NOT NULL AND new.search_text != '';
		INSERT INTO messages_cjk(rowid, search_text) SELECT new.rowid, ` + newText + ` WHERE ` + newText + ` GLOB '` + cjkGlob + `';
	END`,
}

// oldText and newText are a trigger's old and new search text, unpacked (pack.go).
var (
	oldText = unpackedSQL("old.search_text")
	newText = unpackedSQL("new.search_text")
)

// wordColumnsSQL renders a message's search text as the values of the word index's two
// columns (see above), separated by a comma: the text and NULL, or for a sub-agent's message
// NULL and the text.
func wordColumnsSQL(text, sourceAgent string) string {
	sub := SubagentSQL(sourceAgent)
	return `CASE WHEN ` + sub + ` THEN NULL ELSE ` + text + ` END, CASE WHEN ` + sub + ` THEN ` + text + ` END`
}

// WithoutSubagents restricts a MATCH expression of the word index (MatchExpr's All or Any) to
// messages outside sub-agents' sessions.
func WithoutSubagents(match string) string { return `{search_text} : (` + match + `)` }

// cjkGlob matches text holding at least one character of the scripts word tokenizers leave
// unsegmented: CJK ideographs (with extension A), hiragana, katakana and Hangul syllables.
const cjkGlob = `*[㐀-鿿぀-ヿ가-힯]*`

// IsCJK reports whether r belongs to the scripts cjkGlob matches.
func IsCJK(r rune) bool {
	return (r >= 0x3400 && r <= 0x9FFF) || (r >= 0x3040 && r <= 0x30FF) || (r >= 0xAC00 && r <= 0xD7AF)
}

// ensureFTS creates the full-text indexes and, when they are new on a mirror that already holds
// messages, builds them from its rows.
func ensureFTS(ctx context.Context, tx *sql.Tx) error {
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name = 'messages_fts'`).Scan(&n); err != nil {
		return err
	}
	fresh := n == 0
	for _, ddl := range ftsDDL {
		if _, err := tx.ExecContext(ctx, ddl); err != nil {
			return fmt.Errorf("full-text index: %w", err)
		}
	}
	if !fresh {
		return nil
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO _pond_search_scope
		SELECT source_agent, project, role, substr(timestamp, 1, 10), count(*) FROM message_rows
		WHERE search_text IS NOT NULL AND search_text != '' GROUP BY 1, 2, 3, 4`); err != nil {
		return fmt.Errorf("full-text index: count: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO messages_fts(messages_fts) VALUES ('rebuild')`); err != nil {
		return fmt.Errorf("full-text index: build: %w", err)
	}
	// 'rebuild' would index every row into the trigram table; only the CJK ones belong there.
	if _, err := tx.ExecContext(ctx, `INSERT INTO messages_cjk(rowid, search_text)
		SELECT rid, search_text FROM _pond_cjk_content WHERE search_text GLOB '`+cjkGlob+`'`); err != nil {
		return fmt.Errorf("full-text index: build: %w", err)
	}
	return nil
}

// indexNewMessages counts the messages inserted after rowid before in the search scope and adds
// them to the rank table (rank.go) and the full-text indexes: all of them with search text to
// the word index, the ones with CJK text (found here, in Go, rather than by a GLOB that costs
// ~70 µs per message) to the trigram index. rowids[i] is the rowid rows[i] was inserted under,
// 0 when it was not. The indexes are given the text as the writer has it, rather than reading
// back and unpacking what was just packed (a call into Go and a zstd decode per message).
func indexNewMessages(ctx context.Context, tx *sql.Tx, before int64, rows []MessageRow, rowids []int64) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO _pond_search_scope
		SELECT source_agent, project, role, substr(timestamp, 1, 10), count(*) FROM message_rows
		WHERE rowid > ? AND search_text IS NOT NULL AND search_text != '' GROUP BY 1, 2, 3, 4
		ON CONFLICT DO UPDATE SET n = n + excluded.n`, before); err != nil {
		return fmt.Errorf("mirror: count searchable messages: %w", err)
	}
	// Each statement is prepared on first use: most batches hold no CJK text.
	stmts := map[string]*sql.Stmt{}
	insert := func(q string, args ...any) error {
		st := stmts[q]
		if st == nil {
			var err error
			if st, err = tx.PrepareContext(ctx, q); err != nil {
				return err
			}
			stmts[q] = st
		}
		_, err := st.ExecContext(ctx, args...)
		return err
	}
	defer func() {
		for _, st := range stmts {
			st.Close()
		}
	}()
	for i, x := range rows {
		if rowids[i] == 0 {
			continue
		}
		if err := insert(rankInsertSQL, rowids[i], x.Timestamp, x.SourceAgent, x.Role); err != nil {
			return fmt.Errorf("mirror: rank table: %w", err)
		}
		if x.SearchText == "" {
			continue
		}
		text, subagentText := any(x.SearchText), any(nil) // the word index's columns (wordColumnsSQL)
		if IsSubagent(x.SourceAgent) {
			text, subagentText = nil, x.SearchText
		}
		if err := insert(`INSERT INTO messages_fts(rowid, search_text, subagent_search_text) VALUES (?, ?, ?)`, rowids[i], text, subagentText); err != nil {
			return fmt.Errorf("mirror: full-text index: %w", err)
		}
		if strings.IndexFunc(x.SearchText, IsCJK) < 0 {
			continue
		}
		if err := insert(`INSERT INTO messages_cjk(rowid, search_text) VALUES (?, ?)`, rowids[i], x.SearchText); err != nil {
			return fmt.Errorf("mirror: trigram index: %w", err)
		}
	}
	return nil
}

// MatchExpr is a user's query turned into FTS5 MATCH expressions.
type MatchExpr struct {
	// Table is the index to search: messages_fts, or messages_cjk when the query holds CJK text.
	Table string
	// All requires every term; Any requires one of them (the fallback when All finds nothing).
	All, Any string
	// Terms are the query's words as typed (for snippets and highlighting), stop words left
	// out.
	Terms []string
	// Words are the query's words under Words' rule, lower-cased, each once, stop words left
	// out: what Lance's text index is asked for and what a row it returns must hold.
	Words []string
	// OnlyStopWords says that every word of the query is a stop word; they are all kept then,
	// and only FTS5 can answer (Lance's index leaves stop words out).
	OnlyStopWords bool
	// Short are CJK terms under three characters, which a trigram index cannot match: the
	// caller filters on them with LIKE.
	Short []string
}

// One rule says what a word is, for both full-text engines and for the check of what they
// return: a run of letters and digits, lower-cased (FTS5's unicode61 tokenizer and Lance's
// "simple" one both split text there), stop words left out of queries. Lance's English
// analyzer drops stop words from the text it indexes and from queries; FTS5 keeps them. A
// query word that one engine ignores and the other requires makes them disagree, and a check
// that requires it drops every row Lance rightly returned without it ("role the auth" lost
// most of its sessions). So stop words never count in a query, on either engine: "role the
// auth" searches role and auth.

// Words splits s into words: maximal runs of letters and digits, lower-cased.
func Words(s string) []string {
	f := strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
	for i, w := range f {
		f[i] = strings.ToLower(w)
	}
	return f
}

// stopWords are the words Lance's English analyzer removes: tantivy's list (Lucene's English
// stop words), and the words Snowball's English stemmer, which runs before the stop-word
// filter, turns into one of them ("being" into "be", "its" into "it"). A word Lance drops must
// be in this set, or the check of its rows would require a word Lance never looked for;
// store's TestStopWordsAreLances asks Lance about each, and about their near neighbours.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an and are as at be but by for if in into is it no not of on or such that
		the their then there these they this to was will with
		ands ares ats buts fors ifs ins intos its nots ons ors suches thats thens theres theses theirs wills
		withs anded being beings thenly willed willing willingly`) {
		stopWords[w] = true
	}
}

// IsStopWord reports whether w (lower-case) is a stop word.
func IsStopWord(w string) bool { return stopWords[w] }

// StopWords lists the stop words, sorted.
func StopWords() []string { return slices.Sorted(maps.Keys(stopWords)) }

// LanceMaxWordBytes is the length from which Lance's analyzer drops a word (tantivy's
// RemoveLongFilter keeps tokens shorter than the limit, 40 bytes by default): a query holding
// such a word is answered by FTS5 alone.
const LanceMaxWordBytes = 40

// ParseQuery splits a query into terms on white space and quotes each one, so that FTS5's query
// syntax (AND, NEAR, column filters, *) never applies to what a user typed: a term with
// punctuation such as pgx.Pool becomes the phrase "pgx pool". A term whose words are all stop
// words is left out, unless every word of the query is one. It returns false when the query
// has nothing searchable.
func ParseQuery(q string) (MatchExpr, bool) {
	var e MatchExpr
	e.Table = "messages_fts"
	all := Words(q)
	e.OnlyStopWords = len(all) > 0
	seen := map[string]bool{}
	for _, w := range all {
		if !IsStopWord(w) && !seen[w] {
			seen[w] = true
			e.Words = append(e.Words, w)
			e.OnlyStopWords = false
		}
	}
	if e.OnlyStopWords {
		for _, w := range all {
			if !seen[w] {
				seen[w] = true
				e.Words = append(e.Words, w)
			}
		}
	}
	for _, f := range strings.Fields(q) {
		if strings.IndexFunc(f, IsCJK) >= 0 {
			e.Table = "messages_cjk"
		}
	}
	var quoted []string
	for _, f := range strings.Fields(q) {
		words := Words(f)
		if len(words) == 0 || !e.OnlyStopWords && !slices.ContainsFunc(words, func(w string) bool { return !IsStopWord(w) }) {
			continue
		}
		e.Terms = append(e.Terms, f)
		if e.Table == "messages_cjk" && len([]rune(f)) < 3 {
			e.Short = append(e.Short, f)
			continue
		}
		quoted = append(quoted, `"`+strings.ReplaceAll(f, `"`, `""`)+`"`)
	}
	e.All, e.Any = strings.Join(quoted, " "), strings.Join(quoted, " OR ")
	return e, len(e.Terms) > 0
}
