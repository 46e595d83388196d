//go:build !windows

package service

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"text/template"

	"github.com/emersion/go-autostart"
)

// Where is the entry's file, where go-autostart writes it. The library reads $XDG_CONFIG_HOME
// and $HOME once, when the process starts, so this does too in effect: both are read from the
// environment the process was started with.
func (a Autostart) Where() string {
	if runtime.GOOS == "darwin" {
		return filepath.Join(os.Getenv("HOME"), "Library", "LaunchAgents", a.Label+".plist")
	}
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		dir = filepath.Join(os.Getenv("HOME"), ".config")
	}
	return filepath.Join(dir, "autostart", a.Label+".desktop")
}

func (a Autostart) app() *autostart.App {
	// The library quotes Exec in place: hand it a copy.
	return &autostart.App{Name: a.Label, DisplayName: a.DisplayName, Exec: append([]string(nil), a.Exec...)}
}

// want is the file go-autostart writes for a, rendered with the library's own templates
// (copied from commit 34830d6; TestAutostartMatchesLibrary compares them), so a second install
// rewrites nothing and Status can tell a stale entry.
func (a Autostart) want() (string, error) {
	var b strings.Builder
	if runtime.GOOS == "darwin" {
		// The library puts each argument into the plist without XML escaping.
		for _, arg := range a.Exec {
			if strings.ContainsAny(arg, "&<>") {
				return "", fmt.Errorf("service: %q holds &, < or >, which go-autostart cannot write into a plist", arg)
			}
		}
		err := template.Must(template.New("job").Parse(libJobTemplate)).Execute(&b, a.app())
		return b.String(), err
	}
	words := make([]string, len(a.Exec))
	for i, w := range a.Exec {
		words[i] = strconv.Quote(w)
	}
	err := template.Must(template.New("desktop").Parse(libDesktopTemplate)).Execute(&b, struct {
		DisplayName, Exec, Icon string
	}{a.DisplayName, strings.Join(words, " "), ""})
	return b.String(), err
}

func (a Autostart) read() (string, bool, error) {
	b, err := os.ReadFile(a.Where())
	if errors.Is(err, os.ErrNotExist) {
		return "", false, nil
	}
	return string(b), err == nil, err
}

func (a Autostart) write() error { return a.app().Enable() }

func (a Autostart) remove() error { return a.app().Disable() }

// The templates of github.com/emersion/go-autostart at 34830d6 (autostart_xdg.go,
// autostart_darwin.go).
const libDesktopTemplate = `[Desktop Entry]
Type=Application
Name={{.DisplayName}}
Exec={{.Exec}}
{{- if .Icon}}
Icon={{.Icon}}{{end}}
X-GNOME-Autostart-enabled=true
`

const libJobTemplate = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
  <dict>
    <key>Label</key>
    <string>{{.Name}}</string>
    <key>ProgramArguments</key>
      <array>
        {{range .Exec -}}
        <string>{{.}}</string>
        {{end}}
      </array>
    <key>RunAtLoad</key>
    <true/>
    <key>AbandonProcessGroup</key>
    <true/>
  </dict>
</plist>`
