package lance

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/pondhq/pond/store/objstore"
)

// Location is where a database or a table lives: a local directory, or a bucket and prefix of
// an S3-compatible object store. The zero Location is none.
type Location struct {
	dir      string // the local directory; "" for an object store
	uri      string // s3://bucket/prefix for an object store
	endpoint string // an S3-compatible server's base URL; "" for AWS or the AWS environment's
	display  string // as the user writes it
}

// LocalDir is the local directory dir.
func LocalDir(dir string) Location { return Location{dir: dir} }

// ParseLocation reads a location as objstore.Parse does. The keywords local and default have no
// location of their own (the caller's default directory applies): they are an error here.
func ParseLocation(s string) (Location, error) {
	l, err := objstore.Parse(s)
	if err != nil {
		return Location{}, err
	}
	if l == (objstore.Location{}) {
		return Location{}, fmt.Errorf("%w: %q names the default location, which has no path of its own", objstore.ErrParse, s)
	}
	return FromObjstore(l), nil
}

// FromObjstore is the location l parsed.
func FromObjstore(l objstore.Location) Location {
	if !l.Remote() {
		return LocalDir(l.Dir)
	}
	return Location{uri: l.URI(), endpoint: l.Endpoint, display: l.String()}
}

// Remote reports whether the location is on an object store.
func (l Location) Remote() bool { return l.dir == "" }

// Dir is the local directory; "" on an object store.
func (l Location) Dir() string { return l.dir }

// URI is the location as Lance opens it: the directory or s3://bucket/prefix.
func (l Location) URI() string {
	if l.Remote() {
		return l.uri
	}
	return l.dir
}

// String is the location for messages; it holds no secret.
func (l Location) String() string {
	if l.Remote() {
		return l.display
	}
	return l.dir
}

// Join is the entry name of the location: a path under a directory, a key under a prefix.
func (l Location) Join(name string) Location {
	if !l.Remote() {
		return LocalDir(filepath.Join(l.dir, name))
	}
	j := l
	j.uri = strings.TrimSuffix(l.uri, "/") + "/" + name
	j.display = strings.TrimSuffix(l.display, "/") + "/" + name
	return j
}

// Lance reads an object store's settings (endpoint, plain HTTP, credentials) from the process
// environment when it first opens a path on that store: neither lancedb-go's Connect (whose
// storage options only set a few AWS_* variables themselves, and drop the endpoint) nor
// pond-native's pond_db_open take them from the caller in this release. So exportEnv sets the
// endpoint of an s3+http(s) location, once per process, in the standard AWS variables.
// Credentials stay whatever the AWS environment holds: Pond never writes them.
var (
	endpointMu  sync.Mutex
	endpointSet string // the endpoint this process gave Lance, "" before any
)

func (l Location) exportEnv() error {
	if l.endpoint == "" {
		return nil // AWS itself, or an endpoint the user's AWS environment names
	}
	endpointMu.Lock()
	defer endpointMu.Unlock()
	switch endpointSet {
	case l.endpoint:
		return nil
	case "":
	default:
		// Lance would reach both through the one environment: refuse rather than write to the
		// wrong server.
		return fmt.Errorf("lance: this process already uses the object store at %s; one endpoint per process", endpointSet)
	}
	env := map[string]string{"AWS_ENDPOINT": l.endpoint, "AWS_ENDPOINT_URL": l.endpoint}
	if strings.HasPrefix(l.endpoint, "http://") {
		env["AWS_ALLOW_HTTP"] = "true"
	}
	for k, v := range env {
		if err := os.Setenv(k, v); err != nil {
			return fmt.Errorf("lance: set %s: %w", k, err)
		}
	}
	endpointSet = l.endpoint
	return nil
}
