package service

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// detect: a per-user Windows service needs an administrator, so the daemon is a logon task.
func detect() string { return ManagerSchtasks }

// userSID is the SID of the user running pond, for the logon task's trigger and principal.
func userSID() (string, error) {
	u, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return "", fmt.Errorf("service: find your user's SID: %w", err)
	}
	return u.User.Sid.String(), nil
}

// hideWindow keeps schtasks from flashing a console when a windowless pond (the tray) runs it.
func hideWindow(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{HideWindow: true, CreationFlags: windows.CREATE_NO_WINDOW}
}

// detachConsole leaves the console Windows created for this process when Task Scheduler
// started it, which closes its window at once, so the daemon keeps none open. A console-
// subsystem build still shows that window for an instant at logon; a release linked with
// -H windowsgui gets no console at all, and this does nothing. A console shared with other
// processes (pond service run typed in a terminal) is left alone.
func detachConsole() {
	pids := make([]uint32, 4)
	n, _, _ := procGetConsoleProcessList.Call(uintptr(unsafe.Pointer(&pids[0])), uintptr(len(pids)))
	if n == 1 {
		procFreeConsole.Call()
	}
}

// x/sys/windows wraps neither call.
var (
	kernel32                  = windows.NewLazySystemDLL("kernel32.dll")
	procGetConsoleProcessList = kernel32.NewProc("GetConsoleProcessList")
	procFreeConsole           = kernel32.NewProc("FreeConsole")
)

func redirectStderr(f *os.File) error {
	os.Stderr = f
	return windows.SetStdHandle(windows.STD_ERROR_HANDLE, windows.Handle(f.Fd()))
}

// spawnDetached starts argv without a console window, and does not wait for it.
func spawnDetached(argv []string) error {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{HideWindow: true,
		CreationFlags: windows.CREATE_NO_WINDOW | windows.CREATE_NEW_PROCESS_GROUP}
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Process.Release()
}

func terminate(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}

func processExists(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}
