package service

import kservice "github.com/kardianos/service"

// detect picks systemd only where kardianos/service finds it: it looks for
// /run/systemd/system, rpm-ostree, or systemd as PID 1. Anything else (System V init, a
// container without an init) gets the XDG autostart fallback, never an /etc/init.d script.
func detect() string {
	if kservice.Platform() == "linux-systemd" {
		return ManagerSystemd
	}
	return ManagerAutostart
}
