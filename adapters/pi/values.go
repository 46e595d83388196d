package pi

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/pondhq/pond/adapters"
)

// anyTime reads pi's two time shapes: an ISO string (entries, headers) or Unix milliseconds
// (messages). Anything else is the zero time.
func anyTime(raw json.RawMessage) time.Time {
	if adapters.Kind(raw) == '"' {
		return adapters.Time(raw)
	}
	if ms, ok := adapters.Float(raw); ok && ms > 0 && ms < 1e15 {
		return time.UnixMicro(int64(ms * 1000))
	}
	return time.Time{}
}

// fileTime reads the time in a session file name, the ISO time with ':' and '.' replaced by
// '-' (2026-09-30T11-37-32-309Z).
func fileTime(s string) time.Time {
	if len(s) != len("2006-01-02T15-04-05-000Z") {
		return time.Time{}
	}
	b := []byte(s)
	b[13], b[16], b[19] = ':', ':', '.'
	t, err := time.Parse(time.RFC3339Nano, string(b))
	if err != nil {
		return time.Time{}
	}
	return t
}

// lastElem is the last element of a path written on any OS.
func lastElem(path string) string {
	if i := strings.LastIndexAny(path, `/\`); i >= 0 {
		return path[i+1:]
	}
	return path
}

// splitFileName splits a session file name `<timestamp>_<uuid>.jsonl` into its time and id;
// a name of another shape is all id.
func splitFileName(path string) (ts, id string) {
	name := lastElem(path)
	stem := strings.TrimSuffix(name, ".jsonl")
	if i := strings.IndexByte(stem, '_'); i >= 0 && i < len(stem)-1 {
		return stem[:i], stem[i+1:]
	}
	if stem == "" {
		return "", name
	}
	return "", stem
}

func decodeBase64(s string) ([]byte, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		b, err = base64.RawStdEncoding.DecodeString(s)
	}
	return b, err
}

// sourceJSON builds options.source: the record byte for byte under "record" and its line
// number (when there is a record), then string facts as key, value pairs.
func sourceJSON(record []byte, line int, kv ...string) json.RawMessage {
	fields := make([]adapters.Field, 0, 2+len(kv)/2)
	if record != nil {
		fields = append(fields, adapters.Field{Key: "record", Value: record}, adapters.Field{Key: "line", Value: strconv.AppendInt(nil, int64(line), 10)})
	}
	for i := 0; i+1 < len(kv); i += 2 {
		fields = append(fields, adapters.Field{Key: kv[i], Value: adapters.String(kv[i+1])})
	}
	return adapters.Object(fields...)
}

// objectJSON writes an object with its values byte for byte, keys sorted (and written as they
// read, not HTML-escaped).
func objectJSON(o object) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.Keys() {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(adapters.String(k))
		b.WriteByte(':')
		b.Write(o[k])
	}
	b.WriteByte('}')
	return b.Bytes()
}
