//go:build unix

package e2e

import (
	"os/exec"
	"syscall"
)

// SetProcessGroup starts cmd in its own process group and, for a command
// made with CommandContext, makes a cancelled context kill the whole group,
// so children OpenCode started (an `ocmem serve`, npm) do not outlive a
// timed-out run.
func SetProcessGroup(cmd *exec.Cmd, withContext bool) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if withContext {
		cmd.Cancel = func() error { return KillGroup(cmd) }
	}
}

// KillGroup kills the process group cmd leads.
func KillGroup(cmd *exec.Cmd) error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }

// Interrupt is the signal that asks a process to stop.
var Interrupt = syscall.SIGINT

// KillPID sends SIGKILL to one process.
func KillPID(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) }

// terminate sends SIGTERM to one process.
func terminate(pid int) error { return syscall.Kill(pid, syscall.SIGTERM) }
