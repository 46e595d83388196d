package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pondhq/pond/internal/s3test"
	"github.com/pondhq/pond/ipc/apitype"
	"github.com/pondhq/pond/session/view"
)

// The archive on moto's S3 server: one HOME syncs the claude-code fixtures into an s3+http
// store and searches them; a second HOME pointed at the same store rebuilds its own mirror from
// Lance and finds the same sessions. Nothing of the archive is on local disk but the mirrors.
func TestObjectStorage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the pond binary")
	}
	srv := s3test.Start(t)
	url := srv.Bucket(t, "pond-e2e", "team/archive")
	bin := pondBinary(t)
	aws := []string{"AWS_ACCESS_KEY_ID=testing", "AWS_SECRET_ACCESS_KEY=testing", "AWS_REGION=us-east-1"}

	homeA, envA := isolatedHome(t)
	envA = append(envA, aws...)
	if out, code := run(t, bin, envA, "storage", "check", url); code != 0 {
		t.Fatalf("storage check exited %d: %s", code, out)
	}
	if out, code := run(t, bin, envA, "storage", "use", url); code != 0 || !strings.Contains(out, url) {
		t.Fatalf("storage use exited %d: %s", code, out)
	}
	cfgPath := filepath.Join(homeA, ".config", "pond", "config.toml")
	if fi, err := os.Stat(cfgPath); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("config %v, %v", fi, err)
	}
	if out, code := run(t, bin, envA, "sync"); code != 0 {
		t.Fatalf("sync exited %d: %s", code, out)
	}
	if _, err := os.Stat(filepath.Join(homeA, ".local/share/pond/lance")); !os.IsNotExist(err) {
		t.Errorf("a local lance folder exists with a remote store: %v", err)
	}
	sessionsA := searchSessions(t, bin, envA)
	countA, code := run(t, bin, envA, "sql", "SELECT count(*) AS n FROM messages", "--format", "json")
	if code != 0 || len(sessionsA) == 0 {
		t.Fatalf("home A: sql %d %s, sessions %v", code, countA, sessionsA)
	}

	// The second machine names the store by flag-less environment: POND_STORAGE_PATH.
	_, envB := isolatedHome(t)
	envB = append(envB, aws...)
	envB = append(envB, "POND_STORAGE_PATH="+url)
	if out, code := run(t, bin, envB, "mirror", "rebuild"); code != 0 {
		t.Fatalf("mirror rebuild exited %d: %s", code, out)
	}
	sessionsB := searchSessions(t, bin, envB)
	if strings.Join(sessionsA, ",") != strings.Join(sessionsB, ",") {
		t.Errorf("home B found %v, home A %v", sessionsB, sessionsA)
	}
	countB, code := run(t, bin, envB, "sql", "SELECT count(*) AS n FROM messages", "--format", "json")
	if code != 0 || storageSQLCount(t, countB) != storageSQLCount(t, countA) || storageSQLCount(t, countA) == 0 {
		t.Errorf("home B counts %s (exit %d), home A %s", countB, code, countA)
	}

	// An erase on A reaches B at B's next sync: the session leaves B's mirror too.
	const erased = "7f3c2a10-5b4e-4d21-9a8f-0c1d2e3f4a5b"
	if out, code := run(t, bin, envA, "erase", erased, "--yes"); code != 0 {
		t.Fatalf("erase on A exited %d: %s", code, out)
	}
	if out, code := run(t, bin, envB, "sync"); code != 0 {
		t.Fatalf("sync on B exited %d: %s", code, out)
	}
	out, code := run(t, bin, envB, "sql", "SELECT count(*) AS n FROM sessions WHERE session_id = '"+erased+"'", "--format", "json")
	if code != 0 || storageSQLCount(t, out) != 0 {
		t.Errorf("B still holds the session A erased: %s (exit %d)", out, code)
	}
}

// Two machines (two HOMEs) run their daemons at the same time against one archive on moto's S3
// server, each capturing sessions of its own: both commit into the same Lance tables
// concurrently, and each daemon's mirror takes in the other's rows (its catch-up loop), so
// both hold the union, with no row missing or doubled (the mirror's verify, key by key against
// Lance), search on either finds the other's sessions, and status lists both machines.
func TestTwoDaemonsOneArchive(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the pond binary")
	}
	srv := s3test.Start(t)
	url := srv.Bucket(t, "pond-two", "shared")
	bin := pondBinary(t)
	aws := []string{"AWS_ACCESS_KEY_ID=testing", "AWS_SECRET_ACCESS_KEY=testing", "AWS_REGION=us-east-1"}
	const each = 4
	type machine struct {
		home string
		env  []string
		d    *daemonProc
	}
	var ms []*machine
	for _, prefix := range []string{"a", "b"} {
		home, env := isolatedHome(t)
		env = append(env, aws...)
		// Each machine has only sessions of its own.
		if err := os.RemoveAll(filepath.Join(home, ".claude")); err != nil {
			t.Fatal(err)
		}
		for j := range each {
			writeSession(t, filepath.Join(home, ".claude", "projects", "-srv-"+prefix), fmt.Sprintf("%s0000000-0000-4000-8000-%012d", prefix, j))
		}
		for _, args := range [][]string{{"storage", "use", url}, {"consent", "grant"}} {
			if out, code := run(t, bin, env, args...); code != 0 {
				t.Fatalf("%v exited %d: %s", args, code, out)
			}
		}
		ms = append(ms, &machine{home: home, env: env})
	}
	ctx := context.Background()
	// One right after the other: their start-up syncs commit side by side.
	for _, m := range ms {
		m.d = startDaemon(t, bin, m.env, m.home, "--catch-up-every", "500ms")
	}
	wantSessions := 2 * each
	var wantMessages int
	for _, m := range ms {
		// Converged: every session, and the mirror equal to Lance key by key.
		deadline := time.Now().Add(3 * time.Minute)
		var drift []view.Drift
		for {
			if sqlCount(t, m.d.client, "SELECT count(*) AS n FROM sessions") == wantSessions {
				v, err := m.d.client.VerifyMirror(ctx, &apitype.MirrorVerifyRequest{})
				if err != nil {
					t.Fatal(err)
				}
				drift = v.Tables
				if !slices.ContainsFunc(drift, func(d view.Drift) bool { return !d.OK() || d.Lance == 0 }) {
					break
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s holds %d sessions, want %d; drift %+v", m.home, sqlCount(t, m.d.client, "SELECT count(*) AS n FROM sessions"), wantSessions, drift)
			}
			time.Sleep(200 * time.Millisecond)
		}
		n := sqlCount(t, m.d.client, "SELECT count(*) AS n FROM messages")
		if wantMessages == 0 {
			wantMessages = n
		} else if n != wantMessages {
			t.Errorf("%s holds %d messages, the other %d", m.home, n, wantMessages)
		}
		st, err := m.d.client.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		this := 0
		for _, h := range st.Hosts {
			if h.This {
				this++
			}
			if h.Writer == 0 || h.Hostname == "" || h.Sessions == 0 {
				t.Errorf("%s: host %+v", m.home, h)
			}
		}
		if len(st.Hosts) != 2 || this != 1 || st.Hosts[0].Sessions+st.Hosts[1].Sessions != int64(wantSessions) {
			t.Errorf("%s: hosts %+v", m.home, st.Hosts)
		}
	}
	// Machine b finds machine a's sessions, which it never captured.
	if got := strings.Join(searchSessions(t, bin, ms[1].env), " "); !strings.Contains(got, "a0000000-") || !strings.Contains(got, "b0000000-") {
		t.Errorf("b's search: %v", got)
	}
	out, code := run(t, bin, ms[1].env, "status", "--hosts")
	if code != 0 || !strings.Contains(out, "machines: 2 writing this archive") || !strings.Contains(out, "(this machine)") {
		t.Errorf("status --hosts exited %d:\n%s", code, out)
	}
}

// storageSQLCount is n of `pond sql "SELECT count(*) AS n …" --format json`.
func storageSQLCount(t *testing.T, out string) int {
	t.Helper()
	var res struct {
		Rows []struct {
			N int `json:"n"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Rows) != 1 {
		t.Fatalf("sql output %v: %s", err, out)
	}
	return res.Rows[0].N
}

func searchSessions(t *testing.T, bin string, env []string) []string {
	t.Helper()
	out, code := run(t, bin, env, "search", "calc_test.go fails", "--format", "json")
	if code != 0 {
		t.Fatalf("search exited %d: %s", code, out)
	}
	var res struct {
		Sessions []struct {
			SessionID string `json:"session_id"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var ids []string
	for _, s := range res.Sessions {
		ids = append(ids, s.SessionID)
	}
	return ids
}

// storage check's exit codes: a bad URL, no credentials, a refused key, and a server that
// overwrites despite If-None-Match (an S3 look-alike without conditional puts).
func TestStorageCheckExitCodes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the pond binary")
	}
	srv := s3test.Start(t)
	url := srv.Bucket(t, "pond-check", "p")
	bin := pondBinary(t)
	_, env := isolatedHome(t)
	creds := append(env, "AWS_ACCESS_KEY_ID=testing", "AWS_SECRET_ACCESS_KEY=testing-secret-value")

	if out, code := run(t, bin, creds, "storage", "check", "s3://B/x"); code != 2 {
		t.Errorf("bad bucket exited %d: %s", code, out)
	}
	if out, code := run(t, bin, creds, "storage", "check", "s3+http://user:pw@127.0.0.1:9/b-x/p"); code != 2 || strings.Contains(out, "pw") {
		t.Errorf("credentials in the URL exited %d: %s", code, out)
	}
	if out, code := run(t, bin, env, "storage", "check", url, "--format", "json"); code != 3 || !strings.Contains(out, `"exit": 3`) {
		t.Errorf("no credentials exited %d: %s", code, out)
	}
	out, code := run(t, bin, creds, "storage", "check", url)
	if code != 0 || strings.Contains(out, "testing-secret-value") {
		t.Errorf("check exited %d: %s", code, out)
	}

	// An S3 look-alike: refuses one key id, and for the rest stores every put, If-None-Match
	// or not.
	objects := map[string][]byte{}
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.Header.Get("Authorization"), "Credential=refused/") {
			w.WriteHeader(http.StatusForbidden)
			w.Write([]byte("<Error><Code>InvalidAccessKeyId</Code></Error>"))
			return
		}
		switch r.Method {
		case http.MethodPut:
			b := make([]byte, r.ContentLength)
			r.Body.Read(b)
			objects[r.URL.Path] = b
		case http.MethodGet:
			w.Write(objects[r.URL.Path])
		case http.MethodDelete:
			delete(objects, r.URL.Path)
			w.WriteHeader(http.StatusNoContent)
		}
	}))
	defer fake.Close()
	fakeURL := "s3+" + fake.URL + "/bucket-x/p"
	if out, code := run(t, bin, creds, "storage", "check", fakeURL); code != 5 {
		t.Errorf("no conditional put exited %d: %s", code, out)
	}
	refused := append(env, "AWS_ACCESS_KEY_ID=refused", "AWS_SECRET_ACCESS_KEY=x")
	if out, code := run(t, bin, refused, "storage", "check", fakeURL); code != 4 {
		t.Errorf("refused credentials exited %d: %s", code, out)
	}
	if out, code := run(t, bin, creds, "storage", "use", fakeURL); code != 5 {
		t.Errorf("storage use of an unfit store exited %d: %s", code, out)
	}
}

// A writer to an archive on moto's S3 server is killed (-9) in the middle of its start-up
// sync, started again, and converges: every session, no row doubled. Then the server goes
// away for a while (its port refuses connections): the sessions written meanwhile are
// captured once it is back, nothing lost.
func TestObjectStorageKillAndOutage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the pond binary")
	}
	srv := s3test.Start(t)
	proxy := newOnOffProxy(t, strings.TrimPrefix(srv.Endpoint, "http://"))
	url := strings.Replace(srv.Bucket(t, "pond-outage", "archive"), srv.Endpoint, "http://"+proxy.addr, 1)
	bin := pondBinary(t)
	home, env := isolatedHome(t)
	env = append(env, "AWS_ACCESS_KEY_ID=testing", "AWS_SECRET_ACCESS_KEY=testing", "AWS_REGION=us-east-1")
	const n = 150
	if err := os.RemoveAll(filepath.Join(home, ".claude")); err != nil { // only the sessions below
		t.Fatal(err)
	}
	gen := filepath.Join(home, ".claude", "projects", "-srv-gen")
	for i := range n {
		writeSession(t, gen, fmt.Sprintf("9d9d9d9d-0000-4000-8000-%012d", i))
	}
	for _, args := range [][]string{{"storage", "use", url}, {"consent", "grant"}} {
		if out, code := run(t, bin, env, args...); code != 0 {
			t.Fatalf("%v exited %d: %s", args, code, out)
		}
	}
	killMidSync(t, startDaemon(t, bin, env, home, "--sync-every", "2s"), n, 2*time.Minute)
	d := startDaemon(t, bin, env, home, "--sync-every", "2s")
	want := n
	waitCount := func(what string, want int) {
		t.Helper()
		deadline := time.Now().Add(3 * time.Minute)
		for sqlCount(t, d.client, "SELECT count(*) AS n FROM sessions") != want {
			if time.Now().After(deadline) {
				t.Fatalf("%s: %d sessions, want %d", what, sqlCount(t, d.client, "SELECT count(*) AS n FROM sessions"), want)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	waitCount("after the restart", want)

	// The server away: sessions written meanwhile wait for it.
	proxy.down()
	for i := n; i < n+5; i++ {
		writeSession(t, gen, fmt.Sprintf("9d9d9d9d-0000-4000-8000-%012d", i))
	}
	time.Sleep(6 * time.Second)
	proxy.up()
	waitCount("after the outage", want+5)
	ctx := context.Background()
	v, err := d.client.VerifyMirror(ctx, &apitype.MirrorVerifyRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, dr := range v.Tables {
		if !dr.OK() {
			t.Errorf("after the kill and the outage: %+v", dr)
		}
	}
}

// onOffProxy forwards TCP connections to a server, and can refuse them for a while (down: the
// listener closed and every open connection cut; up: listening again on the same port).
type onOffProxy struct {
	t      *testing.T
	addr   string
	target string
	mu     sync.Mutex
	ln     net.Listener
	conns  []net.Conn
}

func newOnOffProxy(t *testing.T, target string) *onOffProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &onOffProxy{t: t, addr: ln.Addr().String(), target: target}
	p.serve(ln)
	t.Cleanup(p.down)
	return p
}

func (p *onOffProxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", p.target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, s)
			p.mu.Unlock()
			go func() { io.Copy(s, c); s.Close() }()
			go func() { io.Copy(c, s); c.Close() }()
		}
	}()
}

func (p *onOffProxy) down() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

func (p *onOffProxy) up() {
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		p.t.Fatal(err)
	}
	p.serve(ln)
}
