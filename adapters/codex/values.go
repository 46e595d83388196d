package codex

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"hash/fnv"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/pondhq/pond/adapters"
)

// object is a JSON object with its values kept as raw bytes.
type object = map[string]json.RawMessage

// parseObject decodes raw as a JSON object; nil when it is not one.
func parseObject(raw json.RawMessage) object {
	if len(raw) == 0 || firstByte(raw) != '{' {
		return nil
	}
	var o object
	if json.Unmarshal(raw, &o) != nil {
		return nil
	}
	return o
}

// firstByte is the first non-space byte of raw, 0 when there is none.
func firstByte(raw []byte) byte {
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return c
	}
	return 0
}

// str decodes a JSON string; ok is false for anything else (null included).
func str(raw json.RawMessage) (s string, ok bool) {
	if len(raw) == 0 || firstByte(raw) != '"' {
		return "", false
	}
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// strOf is o[key] as a string, "" when absent or not a string.
func strOf(o object, key string) string {
	s, _ := str(o[key])
	return s
}

// boolOf reports o[key] as a bool; ok is false when it is not one.
func boolOf(o object, key string) (v, ok bool) {
	switch string(bytes.TrimSpace(o[key])) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// intOf reports o[key] as an integer; ok is false when it is not a number.
func intOf(o object, key string) (v int64, ok bool) {
	raw := o[key]
	if len(raw) == 0 {
		return 0, false
	}
	var f json.Number
	if json.Unmarshal(raw, &f) != nil {
		return 0, false
	}
	if n, err := f.Int64(); err == nil {
		return n, true
	}
	if x, err := f.Float64(); err == nil {
		return int64(x), true
	}
	return 0, false
}

// isNull reports whether raw is absent or JSON null.
func isNull(raw json.RawMessage) bool {
	return len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}

// parseTime reads an RFC 3339 time string; zero when raw is not one.
func parseTime(raw json.RawMessage) time.Time {
	s, ok := str(raw)
	if !ok {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// jsonString encodes s as a JSON string without HTML escaping.
func jsonString(s string) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimRight(b.Bytes(), "\n")
}

// sourceJSON builds a message's options.source: the record byte for byte under "record" and its
// line number. It is written by hand because encoding/json would re-encode the record.
func sourceJSON(record []byte, line int) json.RawMessage {
	var b bytes.Buffer
	b.Grow(len(record) + 32)
	b.WriteString(`{"record":`)
	b.Write(record)
	b.WriteString(`,"line":`)
	b.WriteString(strconv.Itoa(line))
	b.WriteByte('}')
	return b.Bytes()
}

// field is one key of an object written by objectJSON.
type field = adapters.Field

// objectJSON writes the fields with a value, in order, values byte for byte.
func objectJSON(fields ...field) json.RawMessage { return adapters.Object(fields...) }

// recBase is the id of a record without one: rec-<first 16 hex digits of its sha256>.
func recBase(raw []byte) string {
	sum := sha256.Sum256(raw)
	return "rec-" + hex.EncodeToString(sum[:8])
}

// idHash is the 4-byte digest of an assigned id kept in the cursor's seen set.
func idHash(id string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(id))
	return h.Sum32()
}

// fileData turns an input_image URL into a file payload and its media type: a base64 data URL
// becomes bytes, anything else is kept as a URL.
func fileData(url string) (data []byte, mediaType string, isBytes bool) {
	rest, ok := strings.CutPrefix(url, "data:")
	if !ok {
		return nil, "", false
	}
	meta, payload, ok := strings.Cut(rest, ",")
	if !ok {
		return nil, "", false
	}
	mt, enc, _ := strings.Cut(meta, ";")
	if !strings.EqualFold(enc, "base64") && !strings.HasSuffix(strings.ToLower(meta), ";base64") {
		return nil, "", false
	}
	b, err := base64.StdEncoding.DecodeString(payload)
	if err != nil {
		return nil, "", false
	}
	return b, mt, true
}

// sniffImage decodes a base64 image (image_generation_call.result) and names its type from its
// bytes; ok is false when it is not base64.
func sniffImage(b64 string) (data []byte, mediaType string, ok bool) {
	b, err := base64.StdEncoding.DecodeString(b64)
	if err != nil || len(b) == 0 {
		return nil, "", false
	}
	return b, http.DetectContentType(b), true
}
