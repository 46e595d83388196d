package adapters

import (
	"bytes"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/pondhq/pond/adapters/restore"
)

// Column is the index of the column name in cols, or -1 when a store's schema lacks it (agents'
// older schemas drop columns, so readers probe rather than assume).
func Column(cols []string, name string) int {
	return slices.Index(cols, name)
}

// ScanRow reads one row of an agent's database with its values as the driver gives them.
func ScanRow(rows *sql.Rows, n int) ([]any, error) {
	vals := make([]any, n)
	ptrs := make([]any, n)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return nil, err
	}
	return vals, nil
}

// RowJSON is a row of an agent's database as a JSON object of its columns in table order, the
// form a database row is kept in under options.source.record: TEXT as strings, INTEGER and REAL
// as numbers (a REAL always with a fraction or exponent, so it stays a REAL when written back),
// NULL as null, a BLOB as {"$blob": base64}. RowInsert reads it back.
func RowJSON(cols []string, vals []any) json.RawMessage {
	fields := make([]Field, 0, len(cols))
	for i, c := range cols {
		fields = append(fields, Field{Key: c, Value: columnJSON(vals[i])})
	}
	return Object(fields...)
}

func columnJSON(v any) json.RawMessage {
	switch x := v.(type) {
	case nil:
		return json.RawMessage(`null`)
	case int64:
		return json.RawMessage(strconv.FormatInt(x, 10))
	case float64:
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return String(strconv.FormatFloat(x, 'g', -1, 64))
		}
		s := strconv.FormatFloat(x, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eEn") {
			s += ".0"
		}
		return json.RawMessage(s)
	case string:
		return String(x)
	case []byte:
		return Object(Field{Key: "$blob", Value: String(base64.StdEncoding.EncodeToString(x))})
	case bool:
		if x {
			return json.RawMessage(`1`)
		}
		return json.RawMessage(`0`)
	default:
		return String(fmt.Sprint(x))
	}
}

// RowInsert turns a kept database row (RowJSON) back into an insert into table, with the
// columns it had, in their order.
func RowInsert(table string, rec json.RawMessage) (restore.Insert, error) {
	in := restore.Insert{Table: table}
	err := EachMember(rec, func(key string, val json.RawMessage, _ int) error {
		v, err := columnValue(val)
		if err != nil {
			return fmt.Errorf("column %s: %w", key, err)
		}
		in.Columns = append(in.Columns, key)
		in.Values = append(in.Values, v)
		return nil
	})
	return in, err
}

// columnValue is a column's value as RowJSON wrote it.
func columnValue(val json.RawMessage) (any, error) {
	switch Kind(val) {
	case 'n':
		return nil, nil
	case '"':
		return Str(val), nil
	case 't':
		return int64(1), nil
	case 'f':
		return int64(0), nil
	case '{':
		var b struct {
			Blob *string `json:"$blob"`
		}
		if json.Unmarshal(val, &b) == nil && b.Blob != nil {
			return base64.StdEncoding.DecodeString(*b.Blob)
		}
		return string(val), nil
	case '[':
		return string(val), nil
	}
	s := string(bytes.TrimSpace(val))
	if !strings.ContainsAny(s, ".eE") {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n, nil
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, err
	}
	return f, nil
}
