package pi

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// str is raw as a string, when it is one.
func str(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// number is raw as a number, when it is one.
func number(raw json.RawMessage) (float64, bool) {
	if len(raw) == 0 || raw[0] == '"' || raw[0] == 'n' {
		return 0, false
	}
	var f float64
	if json.Unmarshal(raw, &f) != nil {
		return 0, false
	}
	return f, true
}

// boolean is raw as a bool, when it is one.
func boolean(raw json.RawMessage) (bool, bool) {
	var b bool
	if len(raw) == 0 || json.Unmarshal(raw, &b) != nil {
		return false, false
	}
	return b, true
}

// anyTime reads pi's two time shapes: an ISO string (entries, headers) or Unix milliseconds
// (messages). Anything else is the zero time.
func anyTime(raw json.RawMessage) time.Time {
	if s, ok := str(raw); ok {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return time.Time{}
		}
		return t
	}
	if ms, ok := number(raw); ok && ms > 0 && ms < 1e15 {
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

// orderedValues are the values of a JSON object in their recorded order.
func orderedValues(raw json.RawMessage) []json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var out []json.RawMessage
	for dec.More() {
		if _, err := dec.Token(); err != nil {
			return out
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return out
		}
		out = append(out, v)
	}
	return out
}

// jsonString encodes s without HTML escaping, so that text reads as it was written.
func jsonString(s string) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimRight(b.Bytes(), "\n")
}

// sourceJSON builds options.source: the record byte for byte under "record" and its line
// number (when there is a record), then string facts as key, value pairs. It is written by
// hand because encoding/json would re-encode the record.
func sourceJSON(record []byte, line int, kv ...string) json.RawMessage {
	var b bytes.Buffer
	b.Grow(len(record) + 64)
	b.WriteByte('{')
	if record != nil {
		b.WriteString(`"record":`)
		b.Write(record)
		b.WriteString(`,"line":`)
		b.WriteString(strconv.Itoa(line))
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.Write(jsonString(kv[i]))
		b.WriteByte(':')
		b.Write(jsonString(kv[i+1]))
	}
	b.WriteByte('}')
	return b.Bytes()
}

// objectJSON writes an object with its values byte for byte, keys sorted.
func objectJSON(o object) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range sortedKeys(o) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(jsonString(k))
		b.WriteByte(':')
		b.Write(o[k])
	}
	b.WriteByte('}')
	return b.Bytes()
}

func sortedKeys(o object) []string { return slices.Sorted(maps.Keys(o)) }
