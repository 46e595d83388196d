package codex

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/pondhq/pond/adapters"
)

// object is a JSON object with its values kept as raw bytes.
type object = adapters.Members

// parseObject reads raw as a JSON object (a small one: a session_meta's source); nil when it is
// not one.
func parseObject(raw []byte) object {
	n, err := adapters.ReadObject(raw, nil)
	if err != nil {
		return nil
	}
	return n.Members
}

// sourceJSON is a message's options.source: the record byte for byte and its line number.
func sourceJSON(record []byte, line int) json.RawMessage {
	return adapters.Object(adapters.Field{Key: "record", Value: record}, adapters.Field{Key: "line", Value: strconv.AppendInt(nil, int64(line), 10)})
}

// segmentSourceJSON is the options.source of a record of a later segment of a thread: also the
// name of the file it is in (a compressed one's without .zst, as Codex names it once it is
// written out again), so that a native restore writes each segment back to a file of its own.
func segmentSourceJSON(record []byte, line int, file string) json.RawMessage {
	return adapters.Object(adapters.Field{Key: "record", Value: record}, adapters.Field{Key: "line", Value: strconv.AppendInt(nil, int64(line), 10)},
		adapters.Field{Key: "file", Value: adapters.String(strings.TrimSuffix(file, ".zst"))})
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
