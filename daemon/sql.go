package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/paths"
	"github.com/pondhq/pond/session/view"
	"github.com/pondhq/pond/store/sqlite"
)

// sqlReader is the read-only gate over the mirror, opened on first use, reading raw records
// (messages.options) from the store's Lance table. A service without the store open serves
// every other column: it first opens the mirror for writing, which gives a new archive empty
// tables to query.
func (s *Service) sqlReader(ctx context.Context) (*sqlite.Reader, error) {
	s.readerMu.Lock()
	defer s.readerMu.Unlock()
	if s.reader != nil {
		return s.reader, nil
	}
	path := paths.MirrorFile(s.Dirs.Data.Path)
	var archive sqlite.Archive // what the mirror leaves to Lance (none without the store)
	if s.Store != nil {
		path, archive = s.Store.MirrorPath(), s.Store.MirrorArchive()
	} else {
		if err := os.MkdirAll(s.Dirs.Data.Path, 0o700); err != nil {
			return nil, err
		}
		m, err := sqlite.OpenMirror(ctx, path)
		if err != nil {
			return nil, err
		}
		m.Close()
	}
	r, err := sqlite.OpenReader(path, archive)
	if err != nil {
		return nil, err
	}
	s.reader = r
	return r, nil
}

// dropSQLReader closes the SQL reader, to be reopened on the next query (after the mirror file
// was replaced).
func (s *Service) dropSQLReader() {
	s.readerMu.Lock()
	defer s.readerMu.Unlock()
	if s.reader != nil {
		s.reader.Close()
		s.reader = nil
	}
}

// SQL runs one read-only statement over the mirror. Refusals and bad statements are
// validation errors the caller can correct.
func (s *Service) SQL(ctx context.Context, req *apitype.SQLRequest) (*view.SQLResult, error) {
	q := req.Query
	if q == "" {
		q = req.SQL
	}
	if strings.TrimSpace(q) == "" {
		return nil, &apitype.Error{Code: apitype.CodeValidation, Message: "query is required: one SELECT, WITH or EXPLAIN statement"}
	}
	if req.Limit < 0 || req.Limit > sqlite.MaxRows {
		return nil, &apitype.Error{Code: apitype.CodeValidation, Message: fmt.Sprintf("limit must be 1..%d", sqlite.MaxRows)}
	}
	r, err := s.sqlReader(ctx)
	if err != nil {
		return nil, err
	}
	res, err := r.Query(ctx, q, sqlite.Options{Limit: req.Limit, Timeout: sqlTimeout(req.TimeoutSeconds)})
	if err != nil {
		return nil, sqlError(ctx, err)
	}
	return res, nil
}

// SQLExport writes one read-only statement's every row to w as ndjson, csv or parquet.
func (s *Service) SQLExport(ctx context.Context, req *apitype.SQLExportRequest, w io.Writer) (*view.SQLExport, error) {
	switch req.Format {
	case "ndjson", "csv", "parquet":
	default:
		return nil, &apitype.Error{Code: apitype.CodeValidation, Message: fmt.Sprintf("format %q: want ndjson, csv or parquet", req.Format)}
	}
	if strings.TrimSpace(req.Query) == "" {
		return nil, &apitype.Error{Code: apitype.CodeValidation, Message: "query is required: one SELECT, WITH or EXPLAIN statement"}
	}
	r, err := s.sqlReader(ctx)
	if err != nil {
		return nil, err
	}
	sum, err := r.Export(ctx, req.Query, req.Format, sqlTimeout(req.TimeoutSeconds), w)
	if err != nil {
		return nil, sqlError(ctx, err)
	}
	return sum, nil
}

func sqlTimeout(secs int) time.Duration {
	if secs > 0 {
		return min(time.Duration(secs)*time.Second, sqlite.MaxTimeout)
	}
	return sqlite.DefaultTimeout
}

// sqlError gives a failed statement its code: refused by the read-only gate, or to be fixed.
func sqlError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	code := apitype.CodeValidation
	if errors.Is(err, sqlite.ErrRefused) {
		code = apitype.CodeRefused
	}
	return &apitype.Error{Code: code, Message: err.Error(), Details: map[string]any{"schema": "pond sql --schema, or the MCP resource schema://pond-sql"}}
}
