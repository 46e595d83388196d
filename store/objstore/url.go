// Package objstore parses the storage locations Pond accepts and probes an S3-compatible object
// store for what Lance's commits need. It speaks S3 itself (SigV4-signed HTTP), so `pond storage
// check` can tell a missing credential from a refused one and from a server without conditional
// puts, which Lance only reports as a failed commit.
package objstore

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// ErrParse is wrapped by every error Parse returns.
var ErrParse = errors.New("storage: cannot parse location")

// Location is a parsed storage location: a local directory or an S3 bucket and prefix.
type Location struct {
	// Dir is the local directory (absolute) when the location is local; empty otherwise.
	Dir string
	// Bucket and Prefix name the objects of a remote location; Prefix has no leading or trailing
	// slash and may be empty.
	Bucket, Prefix string
	// Endpoint is an S3-compatible server's base URL (scheme, host, port) from an s3+http(s)
	// location; empty for AWS itself (s3://), whose endpoint comes from the AWS environment.
	Endpoint string
}

// Remote reports whether the location is an object store.
func (l Location) Remote() bool { return l.Dir == "" }

// URI is the location as Lance opens it: the directory, or s3://bucket/prefix.
func (l Location) URI() string {
	if !l.Remote() {
		return l.Dir
	}
	if l.Prefix == "" {
		return "s3://" + l.Bucket
	}
	return "s3://" + l.Bucket + "/" + l.Prefix
}

// String is the location as the user writes it (no secret ever appears in one: Parse refuses
// credentials in a URL).
func (l Location) String() string {
	if l.Endpoint == "" {
		return l.URI()
	}
	u, _ := url.Parse(l.Endpoint)
	s := "s3+" + u.Scheme + "://" + u.Host + "/" + l.Bucket
	if l.Prefix != "" {
		s += "/" + l.Prefix
	}
	return s
}

// Parse reads a location: a path (absolute, ~/…, or relative to the working directory), a
// file:// URL, s3://bucket/prefix, or s3+http(s)://host[:port]/bucket/prefix for an
// S3-compatible server. The keywords "local" and "default" are the empty Location (the data
// directory's own archive); "./local" names a directory called local.
func Parse(s string) (Location, error) {
	s = strings.TrimSpace(s)
	switch s {
	case "":
		return Location{}, fmt.Errorf("%w: empty", ErrParse)
	case "local", "default":
		return Location{}, nil
	}
	scheme, _, isURL := strings.Cut(s, "://")
	if !isURL {
		return localDir(s)
	}
	u, err := url.Parse(s)
	if err != nil {
		return Location{}, fmt.Errorf("%w: %v", ErrParse, err)
	}
	if u.User != nil {
		// A secret in a URL ends up in shell history, process lists and the config file.
		return Location{}, fmt.Errorf("%w: credentials do not belong in the URL; use the AWS environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)", ErrParse)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return Location{}, fmt.Errorf("%w: %s: no query or fragment is understood", ErrParse, s)
	}
	switch strings.ToLower(scheme) {
	case "file":
		if u.Host != "" && u.Host != "localhost" {
			return Location{}, fmt.Errorf("%w: %s: a file URL names no host", ErrParse, s)
		}
		return localDir(u.Path)
	case "s3":
		return bucketPath(u.Host, u.Path, "", s)
	case "s3+http", "s3+https":
		if u.Host == "" {
			return Location{}, fmt.Errorf("%w: %s: no host", ErrParse, s)
		}
		bucket, prefix, _ := strings.Cut(strings.TrimPrefix(u.Path, "/"), "/")
		return bucketPath(bucket, prefix, strings.TrimPrefix(strings.ToLower(scheme), "s3+")+"://"+u.Host, s)
	case "gs", "az", "gcs", "abfs":
		return Location{}, fmt.Errorf("%w: %s: this build of Pond's Lance library has S3 only (Google Cloud Storage and Azure are not compiled in)", ErrParse, s)
	}
	return Location{}, fmt.Errorf("%w: %s: unknown scheme %q (want a path, file://, s3:// or s3+http(s)://)", ErrParse, s, scheme)
}

func localDir(p string) (Location, error) {
	if p == "~" || strings.HasPrefix(p, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return Location{}, fmt.Errorf("%w: %s: %v", ErrParse, p, err)
		}
		p = filepath.Join(home, p[1:])
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return Location{}, fmt.Errorf("%w: %s: %v", ErrParse, p, err)
	}
	return Location{Dir: abs}, nil
}

func bucketPath(bucket, prefix, endpoint, orig string) (Location, error) {
	if !validBucket(bucket) {
		return Location{}, fmt.Errorf("%w: %s: %q is not a bucket name (3 to 63 lowercase letters, digits, dots and hyphens)", ErrParse, orig, bucket)
	}
	prefix = strings.Trim(prefix, "/")
	for _, seg := range strings.Split(prefix, "/") {
		if seg == "." || seg == ".." || (seg == "" && prefix != "") {
			return Location{}, fmt.Errorf("%w: %s: the prefix has an empty, . or .. segment", ErrParse, orig)
		}
	}
	return Location{Bucket: bucket, Prefix: prefix, Endpoint: endpoint}, nil
}

// validBucket follows S3's naming rules, which also keep a bucket name out of a URL's syntax.
func validBucket(b string) bool {
	if len(b) < 3 || len(b) > 63 {
		return false
	}
	for i, c := range b {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case (c == '-' || c == '.') && i > 0 && i < len(b)-1:
		default:
			return false
		}
	}
	return true
}
