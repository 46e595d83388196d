package objstore

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestParse(t *testing.T) {
	home, _ := os.UserHomeDir()
	cwd, _ := os.Getwd()
	for _, c := range []struct {
		in, uri, endpoint, shown string
		remote                   bool
	}{
		{in: "/srv/pond", uri: "/srv/pond", shown: "/srv/pond"},
		{in: "~/pond", uri: filepath.Join(home, "pond"), shown: filepath.Join(home, "pond")},
		{in: "./local", uri: filepath.Join(cwd, "local"), shown: filepath.Join(cwd, "local")},
		{in: "file:///srv/pond", uri: "/srv/pond", shown: "/srv/pond"},
		{in: "s3://my-bucket", uri: "s3://my-bucket", shown: "s3://my-bucket", remote: true},
		{in: "s3://my-bucket/team/pond/", uri: "s3://my-bucket/team/pond", shown: "s3://my-bucket/team/pond", remote: true},
		{in: "s3+http://127.0.0.1:9000/b-1/p", uri: "s3://b-1/p", endpoint: "http://127.0.0.1:9000", shown: "s3+http://127.0.0.1:9000/b-1/p", remote: true},
		{in: "s3+https://minio.example/bkt", uri: "s3://bkt", endpoint: "https://minio.example", shown: "s3+https://minio.example/bkt", remote: true},
	} {
		l, err := Parse(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if l.URI() != c.uri || l.Endpoint != c.endpoint || l.Remote() != c.remote || l.String() != c.shown {
			t.Errorf("%s: uri %q endpoint %q remote %v shown %q", c.in, l.URI(), l.Endpoint, l.Remote(), l.String())
		}
	}
	for _, kw := range []string{"local", "default"} {
		if l, err := Parse(kw); err != nil || l != (Location{}) {
			t.Errorf("%s: %+v, %v", kw, l, err)
		}
	}
	for _, bad := range []string{"", "s3://", "s3://B", "s3://ab", "s3://-bucket/x", "s3://bucket/a//b", "s3://bucket/../x",
		"s3+http:///bucket", "s3+http://user:secret@host/bucket", "s3://bucket/x?creds=a", "gs://bucket/x", "ftp://h/x"} {
		if _, err := Parse(bad); !errors.Is(err, ErrParse) {
			t.Errorf("%q: %v, want ErrParse", bad, err)
		}
	}
}
