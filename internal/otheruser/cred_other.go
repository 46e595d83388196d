//go:build !unix

package otheruser

import "syscall"

// Other systems have no uids to switch to; Command skips there.
func canSwitchUser() bool { return false }

func asNobody() *syscall.SysProcAttr { return nil }
