//go:build unix

package otheruser

import (
	"os"
	"syscall"
)

func canSwitchUser() bool { return os.Getuid() == 0 }

// asNobody drops every group too: the child keeps none of root's.
func asNobody() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: UID, Gid: GID, Groups: []uint32{}}}
}
