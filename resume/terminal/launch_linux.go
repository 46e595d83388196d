package terminal

// terminals are the emulators tried on Linux, the user's choice ($TERMINAL) first. None is
// tried without a display.
func terminals(getenv func(string) string) []terminal {
	if getenv("DISPLAY") == "" && getenv("WAYLAND_DISPLAY") == "" {
		return nil
	}
	shell := func(flag ...string) func(string) []string {
		return func(c string) []string { return append(append([]string{}, flag...), "sh", "-c", c) }
	}
	var out []terminal
	if t := getenv("TERMINAL"); t != "" {
		out = append(out, terminal{t, shell("-e")})
	}
	return append(out,
		terminal{"x-terminal-emulator", shell("-e")},
		terminal{"gnome-terminal", shell("--")},
		terminal{"konsole", shell("-e")},
		terminal{"xfce4-terminal", shell("-x")},
		terminal{"kitty", shell()},
		terminal{"alacritty", shell("-e")},
		terminal{"wezterm", shell("start", "--")},
		terminal{"foot", shell()},
		terminal{"xterm", shell("-e")},
	)
}
