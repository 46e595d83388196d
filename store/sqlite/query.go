package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/pondhq/pond/session/view"
)

// ErrRefused marks a statement the read-only gate refuses (exit code 2 on the CLI, a tool error
// on MCP).
var ErrRefused = errors.New("refused")

// Limits of one query.
const (
	DefaultTimeout = view.SQLDefaultTimeout
	MaxTimeout     = view.SQLMaxTimeout
	// MCPMaxTimeout is the timeout cap for SQL an agent sends (Options.MaxTimeout); see
	// view.SQLMCPMaxTimeout.
	MCPMaxTimeout = view.SQLMCPMaxTimeout
	DefaultRows   = 100
	MaxRows       = 1000
	TextBudget    = 80_000  // bytes of rendered text
	JSONBudget    = 2 << 20 // bytes of JSON rows
	CellChars     = 1000    // a longer cell is clipped
)

// sqliteRecursive is SQLITE_RECURSIVE, which go-sqlite3 does not export: a recursive CTE.
const sqliteRecursive = 33

// deniedFunctions could reach outside the database or change SQLite's own state.
var deniedFunctions = map[string]bool{"load_extension": true, "readfile": true, "writefile": true, "edit": true, "fts3_tokenizer": true}

// readOnlyHook sets up a connection of the read-only SQL surface: an authorizer that allows
// reading and nothing else, and Pond's helper functions. The authorizer is the real
// enforcement: mode=ro and query_only alone leave ATTACH, temporary objects, VACUUM INTO and
// writable_schema open.
func readOnlyHook(archive Archive, next func(string, int) ([]string, error)) func(*sqlite3.SQLiteConn) error {
	return func(c *sqlite3.SQLiteConn) error {
		if err := registerFunctions(c, newArchiveValues(archive, next)); err != nil {
			return err
		}
		c.RegisterAuthorizer(authorize)
		c.SetLimit(sqlite3.SQLITE_LIMIT_LENGTH, maxValueBytes)
		return nil
	}
}

func authorize(op int, a1, a2, a3 string) int {
	switch op {
	case sqlite3.SQLITE_SELECT, sqliteRecursive:
		return sqlite3.SQLITE_OK
	case sqlite3.SQLITE_READ:
		if strings.HasPrefix(a1, "_pond") {
			return sqlite3.SQLITE_DENY // internal bookkeeping is not part of the schema
		}
		return sqlite3.SQLITE_OK
	case sqlite3.SQLITE_FUNCTION:
		if deniedFunctions[strings.ToLower(a2)] {
			return sqlite3.SQLITE_DENY
		}
		return sqlite3.SQLITE_OK
	case sqlite3.SQLITE_PRAGMA:
		// FTS5 runs this one internally; every other PRAGMA is refused.
		if strings.EqualFold(a1, "data_version") && a2 == "" {
			return sqlite3.SQLITE_OK
		}
	}
	return sqlite3.SQLITE_DENY
}

// registerFunctions gives a connection Pond's functions; archive is where the views' values
// kept only in Lance come from (records.go), one per connection.
func registerFunctions(c *sqlite3.SQLiteConn, archive archiveValues) error {
	cache := map[string]*regexp.Regexp{}
	fns := map[string]any{
		// regexp(pattern, text): what `text REGEXP pattern` calls.
		"regexp": func(pattern, text string) (bool, error) {
			re, ok := cache[pattern]
			if !ok {
				var err error
				if re, err = regexp.Compile(pattern); err != nil {
					return false, err
				}
				cache[pattern] = re
			}
			return re.MatchString(text), nil
		},
	}
	// Lenient JSON getters like the original system's: NULL rather than an error when the text is
	// not JSON, the path is absent or the value has another type.
	// pond_unpack(value): a packed column's text (pack.go); the views messages and parts call it.
	fns["pond_unpack"] = unpack
	// pond_text_part(search_text), pond_pack(value): a derived text part's value and the
	// stored form of one (textpart.go); the parts view and the mirror's trigger call them.
	fns["pond_text_part"] = textPartSQL
	fns["pond_pack"] = packSQL
	// pond_message_options(session_id, message_id, ingest_seq): a message's raw record, and
	// pond_part_value(session_id, message_id, id, column, ingest_seq): a part's tool body or
	// record, read from Lance (records.go); the views messages and parts call them.
	fns["pond_message_options"] = archive.messageOptions
	fns["pond_part_value"] = archive.partValue
	fns["json_get"] = func(doc, path string) any { return jsonGet(doc, path, "") }
	fns["json_get_string"] = func(doc, path string) any { return jsonGet(doc, path, "string") }
	fns["json_get_int"] = func(doc, path string) any { return jsonGet(doc, path, "int") }
	fns["json_get_float"] = func(doc, path string) any { return jsonGet(doc, path, "float") }
	fns["json_get_bool"] = func(doc, path string) any { return jsonGet(doc, path, "bool") }
	for name, impl := range fns {
		if err := c.RegisterFunc(name, impl, true); err != nil {
			return err
		}
	}
	return nil
}

// jsonGet follows a path ($.a.b[2], or a.b) into a JSON document and returns the value as the
// asked kind ("" keeps JSON text for objects and arrays), or nil.
func jsonGet(doc, path, kind string) any {
	var v any
	if json.Unmarshal([]byte(doc), &v) != nil {
		return nil
	}
	path = strings.TrimPrefix(strings.TrimPrefix(path, "$"), ".")
	for path != "" {
		var key string
		if strings.HasPrefix(path, "[") {
			end := strings.IndexByte(path, ']')
			if end < 0 {
				return nil
			}
			i, err := strconv.Atoi(path[1:end])
			arr, ok := v.([]any)
			if err != nil || !ok || i < 0 || i >= len(arr) {
				return nil
			}
			v, path = arr[i], strings.TrimPrefix(path[end+1:], ".")
			continue
		}
		end := strings.IndexAny(path, ".[")
		if end < 0 {
			key, path = path, ""
		} else {
			key, path = path[:end], strings.TrimPrefix(path[end:], ".")
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		if v, ok = obj[key]; !ok {
			return nil
		}
	}
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		if kind == "" || kind == "string" {
			return x
		}
	case float64:
		switch kind {
		case "int":
			if x == float64(int64(x)) {
				return int64(x)
			}
		case "float", "":
			return x
		}
	case bool:
		if kind == "bool" || kind == "" {
			return x
		}
	default:
		if kind == "" {
			b, _ := json.Marshal(x)
			return string(b)
		}
	}
	return nil
}

// Reader runs read-only SQL against the mirror.
type Reader struct {
	db      *sql.DB
	order   *sql.DB // where the raw records' read-ahead finds the next sessions (records.go)
	path    string
	tempDir string
	watch   tempWatch
}

// OpenReader opens the mirror at path for read-only queries, what it leaves to Lance read from
// archive.
// Each statement is bounded in time (Options), in the length of one value (maxValueBytes), and
// in temporary space: SQLite's temporary files go to a private directory beside the mirror
// (tempDirName), and the statements running when they hold more than maxTempBytes are stopped.
func OpenReader(path string, archive Archive) (*Reader, error) {
	tempDir := filepath.Join(filepath.Dir(path), tempDirName)
	if err := useTempDir(tempDir); err != nil {
		return nil, err
	}
	q := url.Values{}
	q.Set("mode", "ro")
	q.Set("_query_only", "1")
	q.Set("_busy_timeout", "5000")
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
	order := openDB(dsn, func(*sqlite3.SQLiteConn) error { return nil })
	order.SetMaxOpenConns(1)
	db := openDB(dsn, readOnlyHook(archive, sessionsAfter(order)))
	db.SetMaxOpenConns(4)
	return &Reader{db: db, order: order, path: path, tempDir: tempDir}, nil
}

// Close closes the reader.
func (r *Reader) Close() error { return errors.Join(r.db.Close(), r.order.Close()) }

// Options bound one query.
type Options struct {
	Limit   int           // rows returned (default 100, at most 1000)
	Timeout time.Duration // default 30 s, at most MaxTimeout
	// MaxTimeout lowers the cap on Timeout (0: MaxTimeout); the MCP server passes
	// MCPMaxTimeout.
	MaxTimeout time.Duration
}

// CheckStatement refuses anything but exactly one SELECT, WITH, VALUES or EXPLAIN statement.
// go-sqlite3 runs every statement of a multi-statement string, so a second statement must be
// caught here; whether the statement only reads is the authorizer's to enforce.
func CheckStatement(q string) error {
	first, rest := splitFirst(q)
	if strings.TrimSpace(first) == "" {
		return fmt.Errorf("%w: empty statement", ErrRefused)
	}
	if strings.TrimSpace(stripComments(rest)) != "" {
		return fmt.Errorf("%w: only one statement is allowed", ErrRefused)
	}
	kw := strings.ToUpper(firstWord(stripComments(first)))
	switch kw {
	case "SELECT", "WITH", "VALUES", "EXPLAIN":
		return nil
	}
	return fmt.Errorf("%w: only SELECT, WITH or EXPLAIN statements run here (got %s)", ErrRefused, kw)
}

// splitFirst cuts q after its first top-level ';', honouring quotes and comments.
func splitFirst(q string) (first, rest string) {
	for i := 0; i < len(q); i++ {
		switch c := q[i]; {
		case c == '\'' || c == '"' || c == '`' || c == '[':
			end := map[byte]byte{'\'': '\'', '"': '"', '`': '`', '[': ']'}[c]
			j := i + 1
			for j < len(q) {
				if q[j] == end {
					if end != ']' && j+1 < len(q) && q[j+1] == end { // doubled quote
						j += 2
						continue
					}
					break
				}
				j++
			}
			i = j
		case c == '-' && i+1 < len(q) && q[i+1] == '-':
			for i < len(q) && q[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(q) && q[i+1] == '*':
			if j := strings.Index(q[i+2:], "*/"); j >= 0 {
				i += j + 3
			} else {
				i = len(q)
			}
		case c == ';':
			return q[:i], q[i+1:]
		}
	}
	return q, ""
}

// stripComments removes SQL comments outside quotes (enough to find the first keyword and to
// see whether anything but comments follows a ';').
func stripComments(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '-' && i+1 < len(s) && s[i+1] == '-':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case s[i] == '/' && i+1 < len(s) && s[i+1] == '*':
			if j := strings.Index(s[i+2:], "*/"); j >= 0 {
				i += j + 3
			} else {
				i = len(s)
			}
		case s[i] == '\'':
			j := i + 1
			for j < len(s) && !(s[j] == '\'' && (j+1 >= len(s) || s[j+1] != '\'')) {
				if s[j] == '\'' {
					j++
				}
				j++
			}
			b.WriteString(s[i:min(j+1, len(s))])
			i = j
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func firstWord(s string) string {
	s = strings.TrimLeft(s, " \t\r\n(")
	for i, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return s[:i]
		}
	}
	return s
}

// statement is one checked statement running under its timeout.
type statement struct {
	rows    *sql.Rows
	cols    []string
	ctx     context.Context
	cancel  context.CancelFunc
	stop    context.CancelCauseFunc // stops the statement for a reason of the reader's
	timeout time.Duration
	// maxTimeout is the cap the timeout was clamped to, for the message when it runs out.
	maxTimeout time.Duration
	began      time.Time
	reader     *Reader
}

// run checks q, clamps the timeout to maxTimeout (0: MaxTimeout) and starts the one
// statement; close it when done.
func (r *Reader) run(ctx context.Context, q string, timeout, maxTimeout time.Duration) (*statement, error) {
	if err := CheckStatement(q); err != nil {
		return nil, err
	}
	// Only the one statement runs (a trailing ';' and comments are dropped): go-sqlite3 would
	// run every statement in the string and answer with the last one's rows.
	q, _ = splitFirst(q)
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if maxTimeout <= 0 || maxTimeout > MaxTimeout {
		maxTimeout = MaxTimeout
	}
	st := &statement{timeout: min(timeout, maxTimeout), maxTimeout: maxTimeout, began: time.Now(), reader: r}
	stopCtx, stop := context.WithCancelCause(ctx)
	st.ctx, st.cancel = context.WithTimeout(stopCtx, st.timeout)
	st.stop = stop
	r.watch.start(r.tempDir, st)
	var err error
	if st.rows, err = r.db.QueryContext(st.ctx, q); err != nil {
		err = st.classify(err)
		r.watch.done(st)
		st.cancel()
		stop(nil)
		return nil, err
	}
	if st.cols, err = st.rows.Columns(); err != nil {
		st.close()
		return nil, err
	}
	return st, nil
}

// next scans the next row into a new slice, text as strings; nil at the end.
func (st *statement) next() ([]any, error) {
	if !st.rows.Next() {
		return nil, nil
	}
	vals := make([]any, len(st.cols))
	ptrs := make([]any, len(vals))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := st.rows.Scan(ptrs...); err != nil {
		return nil, err
	}
	for i, v := range vals {
		if b, ok := v.([]byte); ok {
			vals[i] = string(b)
		}
	}
	return vals, nil
}

// err is the statement's final error, classified.
func (st *statement) err() error {
	if err := st.rows.Err(); err != nil {
		return st.classify(err)
	}
	return nil
}

func (st *statement) close() {
	st.rows.Close()
	st.reader.watch.done(st)
	st.cancel()
	st.stop(nil)
}

func (st *statement) elapsedMs() int64 { return time.Since(st.began).Milliseconds() }

// rowMap is a row as a JSON object, NULLs omitted.
func rowMap(cols []string, vals []any) map[string]any {
	row := make(map[string]any, len(cols))
	for i, c := range cols {
		if vals[i] != nil {
			row[c] = vals[i]
		}
	}
	return row
}

// Query runs one read-only statement within opts' limits.
func (r *Reader) Query(ctx context.Context, q string, opts Options) (*view.SQLResult, error) {
	limit := opts.Limit
	if limit <= 0 {
		limit = DefaultRows
	}
	limit = min(limit, MaxRows)
	st, err := r.run(ctx, q, opts.Timeout, opts.MaxTimeout)
	if err != nil {
		return nil, err
	}
	defer st.close()
	res := &view.SQLResult{Columns: st.cols, Rows: []map[string]any{}, TimeoutSeconds: int(st.timeout / time.Second)}
	budget := JSONBudget
	for {
		vals, err := st.next()
		if err != nil {
			return nil, err
		}
		if vals == nil {
			break
		}
		if len(res.Rows) >= limit || budget <= 0 {
			res.Truncated = true
			break
		}
		for i, v := range vals {
			if s, ok := v.(string); ok {
				if n := utf8.RuneCountInString(s); n > CellChars {
					s = string([]rune(s)[:CellChars]) + fmt.Sprintf(" [+%d chars]", n-CellChars)
					res.Clipped++
				}
				budget -= len(s)
				vals[i] = s
			}
		}
		res.Rows = append(res.Rows, rowMap(st.cols, vals))
	}
	if err := st.err(); err != nil {
		return nil, err
	}
	res.RowCount = len(res.Rows)
	res.ElapsedMs = st.elapsedMs()
	return res, nil
}

// classify turns SQLite's answers into the gate's: an authorizer denial is a refusal; a
// timeout, the temporary-space cap and the value length each say so.
func (st *statement) classify(err error) error {
	var se sqlite3.Error
	switch {
	case errors.Is(context.Cause(st.ctx), errTempSpace):
		return fmt.Errorf("query stopped: it needed more than %d MiB of temporary space (sorting, DISTINCT, GROUP BY or a recursive query over many rows): narrow it with WHERE or LIMIT", maxTempBytes>>20)
	case st.ctx.Err() == context.DeadlineExceeded || st.ctx.Err() == nil && strings.Contains(err.Error(), "interrupted"):
		return fmt.Errorf("query stopped after the %s timeout (raise it with --timeout, at most %s)", st.timeout, st.maxTimeout)
	case st.ctx.Err() != nil:
		return st.ctx.Err()
	case errors.As(err, &se) && se.Code == sqlite3.ErrTooBig:
		return fmt.Errorf("query stopped: a value grew past %d MiB", maxValueBytes>>20)
	}
	msg := err.Error()
	if strings.Contains(msg, "not authorized") || strings.Contains(msg, "readonly") || strings.Contains(msg, "read-only") ||
		strings.Contains(msg, "prohibited") || strings.Contains(msg, "query_only") {
		return fmt.Errorf("%w: the SQL surface is read-only (%s)", ErrRefused, msg)
	}
	return err
}

const (
	// searchCacheKiB is the most page cache one search connection keeps (64 MiB).
	searchCacheKiB = 64 << 10
	// searchConnIdle is how long a search connection may sit idle before it is closed.
	searchConnIdle = 10 * time.Second
)

// OpenSearchDB opens the mirror at path read-only for the search planner and session pages,
// with Pond's helper functions (regexp for project filters; what only Lance keeps, from
// archive) and no authorizer: the planner's own queries read the mirror's bookkeeping tables.
func OpenSearchDB(path string, archive Archive) *sql.DB {
	q := url.Values{}
	q.Set("mode", "ro")
	q.Set("_query_only", "1")
	q.Set("_busy_timeout", "5000")
	// A search reads a page of the rank table and one of FTS5's document sizes for each match,
	// scattered over the archive: 57 and 8 MB at a million messages, where SQLite's default 2 MiB
	// of cache kept almost none of them from one search to the next. With room for both, the
	// ranking query of a word 300-450 messages hold, each word searched once after 300 others,
	// took 1.3-1.5 ms instead of 3.1-3.6 (docs/benchmarks.md). The cache fills only as far as
	// searches read, and goes with the connection (below).
	q.Set("_cache_size", strconv.Itoa(-searchCacheKiB))
	// No read-ahead: searches and session pages read the values of one session at most.
	db := openDB("file:"+(&url.URL{Path: path}).EscapedPath()+"?"+q.Encode(), func(c *sqlite3.SQLiteConn) error {
		return registerFunctions(c, newArchiveValues(archive, nil))
	})
	// Four for queries, one pinned by the store to watch the data version.
	db.SetMaxOpenConns(5)
	db.SetMaxIdleConns(5)
	// A connection left idle is closed, its cache with it, before the daemon gives memory back
	// once quiet (15 s): a burst of searches keeps its cache, an idle daemon holds none.
	db.SetConnMaxIdleTime(searchConnIdle)
	return db
}
