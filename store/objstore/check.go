package objstore

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"time"
)

// Credentials sign requests to S3. They come from the standard AWS environment variables.
type Credentials struct {
	AccessKeyID, SecretAccessKey, SessionToken, Region string
}

// CredentialsFromEnv reads AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN and
// AWS_REGION (or AWS_DEFAULT_REGION, else us-east-1); ok is false without a key pair.
func CredentialsFromEnv() (c Credentials, ok bool) {
	c = Credentials{AccessKeyID: os.Getenv("AWS_ACCESS_KEY_ID"), SecretAccessKey: os.Getenv("AWS_SECRET_ACCESS_KEY"),
		SessionToken: os.Getenv("AWS_SESSION_TOKEN"), Region: os.Getenv("AWS_REGION")}
	if c.Region == "" {
		c.Region = os.Getenv("AWS_DEFAULT_REGION")
	}
	if c.Region == "" {
		c.Region = "us-east-1" // what Lance's object store assumes too
	}
	return c, c.AccessKeyID != "" && c.SecretAccessKey != ""
}

// Exit codes of `pond storage check`, the original's.
const (
	ExitOK             = 0
	ExitIO             = 1
	ExitParse          = 2
	ExitNoCredentials  = 3
	ExitAuth           = 4
	ExitNoConditionPut = 5
)

// Step is one probe of a check.
type Step struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail,omitempty"`
}

// Report is what Check found; Exit is the first failure's code.
type Report struct {
	Location string `json:"location"`
	Remote   bool   `json:"remote"`
	Steps    []Step `json:"steps"`
	Exit     int    `json:"exit"`
}

func (r *Report) pass(name, detail string) {
	r.Steps = append(r.Steps, Step{Name: name, OK: true, Detail: detail})
}

func (r *Report) fail(code int, name, detail string) Report {
	r.Steps = append(r.Steps, Step{Name: name, Detail: detail})
	r.Exit = code
	return *r
}

// Check probes raw as a storage location: it parses it, and for an object store finds
// credentials, writes a probe object with a conditional put, checks that a second conditional
// put of the same key is refused (Lance commits a table version that way: without it two writers
// overwrite each other's commits), reads the object back and deletes it. A local location is
// checked by writing, reading and removing a file. client nil is http.DefaultClient.
func Check(ctx context.Context, raw string, client *http.Client) Report {
	r := Report{Location: withoutUserinfo(raw)}
	loc, err := Parse(raw)
	if err != nil {
		return r.fail(ExitParse, "parse", err.Error())
	}
	if loc == (Location{}) {
		return r.fail(ExitParse, "parse", "local/default names the data directory's archive; check it with pond doctor")
	}
	r.Location, r.Remote = loc.String(), loc.Remote()
	r.pass("parse", loc.URI())
	if !loc.Remote() {
		return checkLocal(&r, loc.Dir)
	}
	creds, ok := CredentialsFromEnv()
	if !ok {
		return r.fail(ExitNoCredentials, "credentials", "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not both set")
	}
	r.pass("credentials", "from the AWS environment, region "+creds.Region)
	if client == nil {
		client = http.DefaultClient
	}
	s := &signer{loc: loc, creds: creds, client: client}
	key := probeKey(loc.Prefix)
	body := []byte("pond storage check " + time.Now().UTC().Format(time.RFC3339Nano))

	resp, err := s.do(ctx, http.MethodPut, key, body, map[string]string{"If-None-Match": "*"})
	if err != nil {
		return r.fail(ExitIO, "conditional put", err.Error())
	}
	switch {
	case resp.status == http.StatusUnauthorized || resp.status == http.StatusForbidden:
		return r.fail(ExitAuth, "conditional put", resp.describe())
	case resp.status/100 != 2:
		return r.fail(ExitIO, "conditional put", resp.describe())
	}
	// From here on the probe object exists: every failure still tries to remove it.
	cleanup := func() { s.do(context.WithoutCancel(ctx), http.MethodDelete, key, nil, nil) }
	resp, err = s.do(ctx, http.MethodPut, key, []byte("second"), map[string]string{"If-None-Match": "*"})
	switch {
	case err != nil:
		cleanup()
		return r.fail(ExitIO, "conditional put", err.Error())
	case resp.status == http.StatusPreconditionFailed || resp.status == http.StatusConflict:
		r.pass("conditional put", "a second put of the same key was refused ("+fmt.Sprint(resp.status)+")")
	case resp.status/100 == 2:
		cleanup()
		return r.fail(ExitNoConditionPut, "conditional put", "the server overwrote an existing object despite If-None-Match: *; Lance's commits would overwrite each other")
	default:
		cleanup()
		return r.fail(ExitNoConditionPut, "conditional put", "the server does not support If-None-Match: * ("+resp.describe()+")")
	}
	resp, err = s.do(ctx, http.MethodGet, key, nil, nil)
	switch {
	case err != nil:
		cleanup()
		return r.fail(ExitIO, "read back", err.Error())
	case resp.status/100 != 2 || !bytes.Equal(resp.body, body):
		cleanup()
		return r.fail(ExitIO, "read back", "the probe object did not read back as written ("+resp.describe()+")")
	}
	r.pass("read back", "")
	resp, err = s.do(ctx, http.MethodDelete, key, nil, nil)
	switch {
	case err != nil:
		return r.fail(ExitIO, "delete", err.Error())
	case resp.status/100 != 2:
		return r.fail(ExitIO, "delete", resp.describe())
	}
	r.pass("delete", "")
	return r
}

// withoutUserinfo is raw with any user:password@ removed, to be shown.
func withoutUserinfo(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	u.User = nil
	return u.String()
}

func checkLocal(r *Report, dir string) Report {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return r.fail(ExitIO, "write", err.Error())
	}
	f, err := os.CreateTemp(dir, ".pond-storage-check-*")
	if err != nil {
		return r.fail(ExitIO, "write", err.Error())
	}
	defer os.Remove(f.Name())
	_, err = f.WriteString("pond storage check")
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return r.fail(ExitIO, "write", err.Error())
	}
	r.pass("write", "")
	if b, err := os.ReadFile(f.Name()); err != nil || string(b) != "pond storage check" {
		return r.fail(ExitIO, "read back", fmt.Sprint(err))
	}
	r.pass("read back", "")
	if err := os.Remove(f.Name()); err != nil {
		return r.fail(ExitIO, "delete", err.Error())
	}
	r.pass("delete", "")
	return *r
}

func probeKey(prefix string) string {
	var b [8]byte
	rand.Read(b[:])
	k := ".pond-storage-check-" + hex.EncodeToString(b[:])
	if prefix != "" {
		k = prefix + "/" + k
	}
	return k
}

type response struct {
	status int
	body   []byte
}

// describe is the status and S3's error code, never the request (which carries the signature).
func (r response) describe() string {
	s := fmt.Sprintf("HTTP %d", r.status)
	if _, after, ok := strings.Cut(string(r.body), "<Code>"); ok {
		if code, _, ok := strings.Cut(after, "</Code>"); ok && len(code) < 64 {
			s += " " + code
		}
	}
	return s
}

// signer sends SigV4-signed path-style requests.
type signer struct {
	loc    Location
	creds  Credentials
	client *http.Client
	now    func() time.Time
}

func (s *signer) do(ctx context.Context, method, key string, body []byte, headers map[string]string) (response, error) {
	endpoint := s.loc.Endpoint
	if endpoint == "" {
		endpoint = os.Getenv("AWS_ENDPOINT_URL")
	}
	if endpoint == "" {
		endpoint = os.Getenv("AWS_ENDPOINT")
	}
	if endpoint == "" {
		endpoint = "https://s3." + s.creds.Region + ".amazonaws.com"
	}
	base, err := url.Parse(endpoint)
	if err != nil {
		return response{}, fmt.Errorf("endpoint %s: %w", endpoint, err)
	}
	u := *base
	u.Path = strings.TrimSuffix(base.Path, "/") + "/" + s.loc.Bucket + "/" + key
	req, err := http.NewRequestWithContext(ctx, method, u.String(), bytes.NewReader(body))
	if err != nil {
		return response{}, err
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	now := time.Now
	if s.now != nil {
		now = s.now
	}
	s.sign(req, body, now().UTC())
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	resp, err := s.client.Do(req.WithContext(ctx))
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is ours; the cause is what matters
		}
		return response{}, fmt.Errorf("%s %s: %w", method, u.Host, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return response{}, err
	}
	return response{status: resp.StatusCode, body: b}, nil
}

// sign adds AWS Signature Version 4 headers for the s3 service.
func (s *signer) sign(req *http.Request, body []byte, t time.Time) {
	amzDate := t.Format("20060102T150405Z")
	day := t.Format("20060102")
	payload := sha256.Sum256(body)
	req.Header.Set("X-Amz-Date", amzDate)
	req.Header.Set("X-Amz-Content-Sha256", hex.EncodeToString(payload[:]))
	if s.creds.SessionToken != "" {
		req.Header.Set("X-Amz-Security-Token", s.creds.SessionToken)
	}
	req.Header.Set("Host", req.URL.Host)
	names := []string{"host"}
	for k := range req.Header {
		lk := strings.ToLower(k)
		if lk != "host" {
			names = append(names, lk)
		}
	}
	sort.Strings(names)
	var canonHeaders strings.Builder
	for _, n := range names {
		v := req.URL.Host
		if n != "host" {
			v = strings.TrimSpace(req.Header.Get(n))
		}
		canonHeaders.WriteString(n + ":" + v + "\n")
	}
	signed := strings.Join(names, ";")
	canon := strings.Join([]string{req.Method, req.URL.EscapedPath(), req.URL.RawQuery, canonHeaders.String(), signed,
		hex.EncodeToString(payload[:])}, "\n")
	scope := day + "/" + s.creds.Region + "/s3/aws4_request"
	ch := sha256.Sum256([]byte(canon))
	toSign := "AWS4-HMAC-SHA256\n" + amzDate + "\n" + scope + "\n" + hex.EncodeToString(ch[:])
	k := mac([]byte("AWS4"+s.creds.SecretAccessKey), day)
	k = mac(k, s.creds.Region)
	k = mac(k, "s3")
	k = mac(k, "aws4_request")
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential="+s.creds.AccessKeyID+"/"+scope+
		", SignedHeaders="+signed+", Signature="+hex.EncodeToString(mac(k, toSign)))
}

func mac(key []byte, data string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(data))
	return h.Sum(nil)
}
