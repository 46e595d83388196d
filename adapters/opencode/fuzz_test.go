package opencode

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/pondhq/pond/adapters/adaptertest"
)

// FuzzRead runs the legacy tree's parsers (session, message and part files) and the mapping
// on arbitrary file contents, in memory as readStorage does after reading the files. Whatever
// they hold, nothing may panic and every event must pass the store's validator (the collector
// checks each one): a record that cannot be mapped is reported, never emitted half-formed.
func FuzzRead(f *testing.F) {
	sess, _ := os.ReadFile("testdata/storage/session/a1b2c3d4/ses_legacy_child.json")
	seed := func(msg, part string) {
		m, err1 := os.ReadFile(msg)
		p, err2 := os.ReadFile(part)
		if err1 == nil && err2 == nil {
			f.Add(sess, m, p)
		}
	}
	seed("testdata/storage/message/ses_legacy/msg_l01.json", "testdata/storage/part/msg_l01/prt_l01a.json")
	seed("testdata/storage/message/ses_legacy/msg_l02.json", "testdata/storage/part/msg_l02/prt_l02b.json")
	seed("testdata/storage/message/ses_legacy/msg_l02.json", "testdata/storage/part/msg_l02/prt_l02d.json")
	v2 := filepath.Join(fixtures, "agent-sessions/storage_v2")
	for _, p := range []string{"001", "002", "003", "004", "005", "006", "007", "008"} {
		seed(filepath.Join(v2, "message/s_stage0_large/msg_0002.json"), filepath.Join(v2, "part/m_assistant_large_1", p+".json"))
	}
	seed(filepath.Join(fixtures, "agent-sessions/storage_legacy/message/s_stage0_drift/msg_0002.json"),
		filepath.Join(fixtures, "agent-sessions/storage_legacy/part/prt_0001.json"))
	f.Add([]byte(`{"id":"s","parentID":"s","time":{"created":0}}`), []byte(`{"role":"assistant","summary":true,"time":{"created":-1}}`), []byte(`{"type":"tool","state":{"status":"error","error":null}}`))
	f.Add([]byte(`{"projectID":"../x"}`), []byte(`{"id":"","role":"user","time":{"created":1e300}}`), []byte(`{"type":"file","url":"data:image/png;base64,@@"}`))
	f.Add([]byte(`{"directory":" "}`), []byte(`{"role":"x"}`), []byte(`{"type":"file","url":"data:,%zz"}`))
	f.Add([]byte(`{`), []byte(`null`), []byte(`[]`))

	for _, v := range adaptertest.Hostile() { // bounds: depth, a long line, invalid UTF-8
		f.Add([]byte(`{"id":"s","directory":"/w","time":{"created":1}}`), []byte(`{"role":"user","time":{"created":2},"x":`+v+`}`),
			[]byte(`{"type":"text","text":`+v+`,"metadata":{"p":`+v+`}}`))
	}

	f.Fuzz(func(t *testing.T, sess, msg, part []byte) {
		const dir = "/data/opencode/storage"
		ts := parseSessionFile(dir+"/session/p/ses_f.json", sess)
		if ts.err != nil {
			return // reported by readStorage; nothing else is read
		}
		m := messageRecord{record: fileRecord(dir, dir+"/message/ses_f/msg_f.json", msg, nil)}
		m.parts = []record{fileRecord(dir, dir+"/part/msg_f/prt_f.json", part, nil)}
		var c adaptertest.Collector
		if _, err := emitSession(context.Background(), ts.record(dir, nil), []messageRecord{m}, nil, &c); err != nil {
			t.Fatal(err)
		}
		if got := c.Counts(); got.Sessions > 1 || got.Messages > 2 || got.Parts > 2 {
			t.Errorf("one message and one part gave %v", got)
		}
	})
}
