package service

import (
	"bytes"
	"encoding/xml"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

const (
	goldenExe = "/home/u/.local/bin/pond"
	goldenLog = "/home/u/.local/state/pond/logs/daemon.log"
	goldenSID = "S-1-5-21-1111111111-2222222222-3333333333-1001"
	winExe    = `C:\Users\u\AppData\Local\Programs\Pond & Co\pond.exe`
)

// TestDefinitionsGolden pins every file Pond writes for a service; go test -update rewrites
// them after a deliberate change.
func TestDefinitionsGolden(t *testing.T) {
	for _, tc := range []struct{ file, got string }{
		{"pond.service", SystemdUnit(Spec{Exe: goldenExe, Args: []string{"daemon"}})},
		{"pond-odd-path.service", SystemdUnit(Spec{Exe: `/opt/My Apps/50%/$pond/pond`, Args: []string{"daemon", "--log-level", "debug info", `$HOME "q" \`}})},
		{"io.pond.daemon.plist", LaunchdPlist(DaemonLabel, Spec{Exe: goldenExe, Args: []string{"daemon"}, LogFile: goldenLog})},
		{"io.pond.daemon-odd-path.plist", LaunchdPlist(DaemonLabel, Spec{Exe: "/Applications/Pond & <Co>/pond", Args: []string{"daemon"}})},
		{"pond-daemon-task.xml", TaskXML(goldenSID, Spec{Exe: winExe, Args: []string{"service", "run"}})},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join("testdata", tc.file)
			if *update {
				os.MkdirAll("testdata", 0o755)
				if err := os.WriteFile(path, []byte(tc.got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), tc.got); diff != "" {
				t.Errorf("%s differs from the golden file (-want +got):\n%s", tc.file, diff)
			}
		})
	}
}

// TestSystemdAnalyzeVerify runs systemd's own checker over the unit, with a real executable at
// an awkward path, and evaluates its condition.
func TestSystemdAnalyzeVerify(t *testing.T) {
	sa, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze is not installed (Debian: apt-get install systemd): the unit is checked by its golden file only")
	}
	dir := t.TempDir()
	exe := filepath.Join(dir, "My Apps", "50%", "$HOME", "pond")
	if err := os.MkdirAll(filepath.Dir(exe), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string][]string{"plain": {"daemon"}, "quoted": {"daemon", "--log-level", "debug info", `a"b\c`, "$HOME 100%"}} {
		t.Run(name, func(t *testing.T) {
			unit := filepath.Join(t.TempDir(), UnitName)
			if err := os.WriteFile(unit, []byte(SystemdUnit(Spec{Exe: exe, Args: args})), 0o644); err != nil {
				t.Fatal(err)
			}
			rt := filepath.Join(t.TempDir(), "run")
			if err := os.Mkdir(rt, 0o700); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(sa, "verify", "--user", unit)
			cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+rt, "HOME="+dir, "SYSTEMD_LOG_LEVEL=notice")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
			}
			for _, line := range strings.Split(string(out), "\n") {
				if strings.Contains(line, UnitName) {
					t.Errorf("systemd-analyze verify complains: %s", line)
				}
			}
			var cond string
			for _, line := range strings.Split(SystemdUnit(Spec{Exe: exe, Args: args}), "\n") {
				if strings.HasPrefix(line, "ConditionFileIsExecutable=") {
					cond = line
				}
			}
			cmd = exec.Command(sa, "condition", "--user", cond)
			cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+rt, "HOME="+dir)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("systemd-analyze condition %q: %v\n%s", cond, err, out)
			}
		})
	}
}

// plist is just enough of a property list to read Pond's LaunchAgent back.
type plist struct {
	Dict struct {
		Items []plistItem `xml:",any"`
	} `xml:"dict"`
}

type plistItem struct {
	XMLName xml.Name
	Text    string      `xml:",chardata"`
	Items   []plistItem `xml:",any"`
}

func TestLaunchdPlistParsesBack(t *testing.T) {
	exe := "/Applications/Pond & <Co>/pond"
	var p plist
	if err := xml.Unmarshal([]byte(LaunchdPlist(DaemonLabel, Spec{Exe: exe, Args: []string{"daemon"}, LogFile: goldenLog})), &p); err != nil {
		t.Fatal(err)
	}
	got := map[string]plistItem{}
	items := p.Dict.Items
	for i := 0; i+1 < len(items); i += 2 {
		if items[i].XMLName.Local != "key" {
			t.Fatalf("item %d is <%s>, want <key>", i, items[i].XMLName.Local)
		}
		got[items[i].Text] = items[i+1]
	}
	var args []string
	for _, a := range got["ProgramArguments"].Items {
		args = append(args, a.Text)
	}
	for _, c := range []struct{ what, got, want string }{
		{"Label", got["Label"].Text, DaemonLabel},
		{"ProgramArguments", strings.Join(args, "|"), exe + "|daemon"},
		{"RunAtLoad", got["RunAtLoad"].XMLName.Local, "true"},
		{"KeepAlive", got["KeepAlive"].XMLName.Local, "dict"},
		{"KeepAlive.SuccessfulExit", got["KeepAlive"].Items[0].Text + "=" + got["KeepAlive"].Items[1].XMLName.Local, "SuccessfulExit=false"},
		{"StandardErrorPath", got["StandardErrorPath"].Text, goldenLog},
	} {
		if c.got != c.want {
			t.Errorf("%s: got %q, want %q", c.what, c.got, c.want)
		}
	}
}

// task is the part of a Task Scheduler definition Pond relies on.
type task struct {
	XMLName  xml.Name `xml:"http://schemas.microsoft.com/windows/2004/02/mit/task Task"`
	Trigger  string   `xml:"Triggers>LogonTrigger>UserId"`
	User     string   `xml:"Principals>Principal>UserId"`
	Logon    string   `xml:"Principals>Principal>LogonType"`
	RunLevel string   `xml:"Principals>Principal>RunLevel"`
	Multiple string   `xml:"Settings>MultipleInstancesPolicy"`
	Limit    string   `xml:"Settings>ExecutionTimeLimit"`
	Battery  string   `xml:"Settings>DisallowStartIfOnBatteries"`
	Restart  string   `xml:"Settings>RestartOnFailure>Interval"`
	Count    string   `xml:"Settings>RestartOnFailure>Count"`
	Command  string   `xml:"Actions>Exec>Command"`
	Args     string   `xml:"Actions>Exec>Arguments"`
}

func TestTaskXMLParses(t *testing.T) {
	b := TaskFile(TaskXML(goldenSID, Spec{Exe: winExe, Args: []string{"service", "run"}}))
	if !bytes.HasPrefix(b, []byte{0xFF, 0xFE}) || len(b)%2 != 0 {
		t.Fatalf("TaskFile: want UTF-16 LE with a byte-order mark, got % x…", b[:8])
	}
	units := make([]uint16, 0, len(b)/2-1)
	for i := 2; i < len(b); i += 2 {
		units = append(units, uint16(b[i])|uint16(b[i+1])<<8)
	}
	text := string(utf16.Decode(units))
	if strings.Contains(strings.ReplaceAll(text, "\r\n", ""), "\n") {
		t.Error("TaskFile: want CRLF line ends throughout")
	}
	dec := xml.NewDecoder(strings.NewReader(text))
	dec.CharsetReader = func(label string, r io.Reader) (io.Reader, error) { return r, nil } // decoded above
	var got task
	if err := dec.Decode(&got); err != nil {
		t.Fatal(err)
	}
	want := task{XMLName: got.XMLName, Trigger: goldenSID, User: goldenSID, Logon: "InteractiveToken", RunLevel: "LeastPrivilege",
		Multiple: "IgnoreNew", Limit: "PT0S", Battery: "false", Restart: "PT1M", Count: "255", Command: winExe, Args: "service run"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("task (-want +got):\n%s", diff)
	}
}

// TestWindowsArgs checks the quoting against CommandLineToArgvW's rules.
func TestWindowsArgs(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{[]string{"service", "run"}, "service run"},
		{[]string{"a b", ""}, `"a b" ""`},
		{[]string{`say "hi"`}, `"say \"hi\""`},
		{[]string{`C:\dir with space\`}, `"C:\dir with space\\"`},
		{[]string{`a\\"b c`}, `"a\\\\\"b c"`},
	} {
		if got := windowsArgs(tc.in); got != tc.want {
			t.Errorf("windowsArgs(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestSystemdRefusesUnrunnablePaths(t *testing.T) {
	for _, exe := range []string{`/opt/a"b/pond`, `/opt/a\b/pond`, "/opt/a'b/pond", "/opt/a\nb/pond"} {
		s := &systemdUser{o: &Options{Exe: exe}}
		if _, err := s.want(); err == nil {
			t.Errorf("want() for %q: no error; systemd refuses such an executable", exe)
		}
	}
	if _, err := (&systemdUser{o: &Options{Exe: "/opt/My Apps/50%/$x/pond"}}).want(); err != nil {
		t.Errorf("spaces, %% and $ are fine for systemd: %v", err)
	}
}
