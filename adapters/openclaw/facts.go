package openclaw

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/pondhq/pond/adapters"
	"github.com/pondhq/pond/adapters/pi"
	"github.com/pondhq/pond/adapters/restore"
	"github.com/pondhq/pond/session"
)

// facts are what OpenClaw keeps about a session outside its lines.
type facts struct {
	ID        string    // the session id: the window's, or the file's name before its header says
	Force     bool      // ID names the session whatever its header says (a window's id)
	Agent     string    // the agent's id (its folder under agents/)
	Key       string    // the session key ("agent:main:main"), when known
	Parent    string    // the session before it, or the one that spawned it
	ParentMsg string    // a fork's cut point
	Created   time.Time // the window's start, else the file's time
	Archived  string    // "deleted" or "reset" for an archive file
	// Kept are OpenClaw's own records of the session, verbatim, for options.openclaw.
	Kept []adapters.Field
	// Prior, when set, is options.openclaw as a native restore of Pond's kept it from the
	// original: it stands for the restore's own records, and its session key for the key.
	Prior json.RawMessage
}

// host is how pi's mapping reads this session's lines.
func (f *facts) host(file string) *pi.Host {
	s := session.Session{ID: f.ID, CreatedAt: f.Created}
	f.apply(&s)
	return &pi.Host{Session: s, File: file, Amend: func(s *session.Session, _ adapters.Members) { f.apply(s) },
		MessageKeys: messageKeys}
}

// messageKeys are what OpenClaw adds to pi's messages (seen in its own output,
// testdata/genuine/openclaw): "__openclaw", its run's facts (runId, senderIsOwner), and a user
// message's "idempotencyKey".
var messageKeys = []string{"__openclaw", "idempotencyKey"}

// apply lays the facts over a session read from its header.
func (f *facts) apply(s *session.Session) {
	if f.Force && f.ID != "" {
		s.ID = f.ID // the name OpenClaw files it under, which a header repeats
	}
	key := f.Key
	if f.Prior != nil {
		key = restore.Source(f.Prior).Str("session_key")
	}
	s.SourceAgent = sourceAgent(key)
	if f.Parent != "" && f.Parent != s.ID && session.CheckID(f.Parent) == nil {
		s.ParentSessionID = f.Parent
		s.ParentMessageID = f.ParentMsg
	}
	if strings.TrimSpace(s.Project) == "" {
		// No cwd recorded: the agent's own folder is the project key.
		s.Project = "agents/" + f.Agent
		if f.Agent == "" {
			s.Project = "openclaw"
		}
	}
	if s.Options == nil {
		s.Options = session.Options{}
	}
	if f.Prior != nil {
		s.Options["openclaw"] = f.Prior
		return
	}
	var fields []adapters.Field
	if f.Agent != "" {
		fields = append(fields, adapters.Field{Key: "agent", Value: adapters.String(f.Agent)})
	}
	if f.Key != "" {
		fields = append(fields, adapters.Field{Key: "session_key", Value: adapters.String(f.Key)})
	}
	if f.Archived != "" {
		fields = append(fields, adapters.Field{Key: "archived", Value: adapters.String(f.Archived)})
	}
	fields = append(fields, f.Kept...)
	s.Options["openclaw"] = adapters.Object(fields...)
}

// sourceAgent is the source agent of a session by its key: OpenClaw's sub-agents
// ("agent:<id>:subagent:<uuid>", nested ones too) and cron runs ("agent:<id>:cron:<job>…") are
// kinds of their own; every other session (channels, ACP, hooks, the main one) is "openclaw".
func sourceAgent(key string) string {
	rest := strings.ToLower(key)
	if r, ok := strings.CutPrefix(rest, "agent:"); ok {
		if _, after, ok := strings.Cut(r, ":"); ok {
			rest = after
		}
	}
	switch {
	case strings.HasPrefix(rest, "subagent:"):
		return Name + "/subagent"
	case strings.HasPrefix(rest, "cron:"):
		return Name + "/cron"
	}
	return Name
}

// sessionIDBad says an id from OpenClaw's files cannot name a session (session.CheckID).
func sessionIDBad(id string) bool { return session.CheckID(id) != nil }
