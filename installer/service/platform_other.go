//go:build !linux && !darwin && !windows

package service

// detect has no login service to offer on this system; the XDG autostart entry is the one
// thing a desktop session here may honour.
func detect() string { return ManagerAutostart }
