package terminal

// terminals are the emulators tried on Linux, the user's choice ($TERMINAL) first. None is
// tried without a display. Each is told the folder by its own flag where it has one: a
// terminal that hands the window to a running server (gnome-terminal) does not start in the
// folder of the process that asked for it.
func terminals(getenv func(string) string) []terminal {
	if getenv("DISPLAY") == "" && getenv("WAYLAND_DISPLAY") == "" {
		return nil
	}
	with := func(flags func(dir string) []string) func(string, []string) []string {
		return func(dir string, program []string) []string { return append(flags(dir), program...) }
	}
	fixed := func(flag ...string) func(string, []string) []string {
		return with(func(string) []string { return flag })
	}
	var out []terminal
	if t := getenv("TERMINAL"); t != "" {
		out = append(out, terminal{t, fixed("-e")})
	}
	return append(out,
		terminal{"x-terminal-emulator", fixed("-e")},
		terminal{"gnome-terminal", with(func(d string) []string { return []string{"--working-directory=" + d, "--"} })},
		terminal{"konsole", with(func(d string) []string { return []string{"--workdir", d, "-e"} })},
		terminal{"xfce4-terminal", with(func(d string) []string { return []string{"--working-directory=" + d, "-x"} })},
		terminal{"kitty", with(func(d string) []string { return []string{"--directory", d} })},
		terminal{"alacritty", with(func(d string) []string { return []string{"--working-directory", d, "-e"} })},
		terminal{"wezterm", with(func(d string) []string { return []string{"start", "--cwd", d, "--"} })},
		terminal{"foot", with(func(d string) []string { return []string{"--working-directory=" + d} })},
		terminal{"xterm", fixed("-e")},
	)
}
