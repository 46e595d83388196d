// Package app is the desktop face of Pond: a Fyne tray icon and windows for capture consent,
// adapter toggles, search, transcripts and one-click resume. It talks to the daemon only through
// the ipc client.
package app
