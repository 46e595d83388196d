package service

import (
	"errors"

	"golang.org/x/sys/windows/registry"
)

// On Windows go-autostart makes a Startup-folder shortcut through COM with cgo (-lole32
// -luuid), which cannot be cross-built without mingw and would make Pond's Windows build need a
// C toolchain for one shortcut. The per-user Run value does the same job in pure Go.
const runKey = `Software\Microsoft\Windows\CurrentVersion\Run`

// Where names the registry value.
func (a Autostart) Where() string { return `HKCU\` + runKey + `\` + a.DisplayName }

func (a Autostart) want() (string, error) {
	// The program is always quoted: an unquoted path with a space is run as its first word.
	return `"` + a.Exec[0] + `" ` + windowsArgs(a.Exec[1:]), nil
}

func (a Autostart) read() (string, bool, error) {
	k, err := registry.OpenKey(registry.CURRENT_USER, runKey, registry.QUERY_VALUE)
	if errors.Is(err, registry.ErrNotExist) {
		return "", false, nil
	} else if err != nil {
		return "", false, err
	}
	defer k.Close()
	v, _, err := k.GetStringValue(a.DisplayName)
	if errors.Is(err, registry.ErrNotExist) {
		return "", false, nil
	}
	return v, err == nil, err
}

func (a Autostart) write() error {
	k, _, err := registry.CreateKey(registry.CURRENT_USER, runKey, registry.SET_VALUE)
	if err != nil {
		return err
	}
	defer k.Close()
	v, _ := a.want()
	return k.SetStringValue(a.DisplayName, v)
}

func (a Autostart) remove() error {
	k, err := registry.OpenKey(registry.CURRENT_USER, runKey, registry.SET_VALUE)
	if err != nil {
		return err
	}
	defer k.Close()
	return k.DeleteValue(a.DisplayName)
}
