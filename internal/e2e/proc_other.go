//go:build !unix

package e2e

import (
	"os"
	"os/exec"
)

// SetProcessGroup does nothing where there are no process groups.
func SetProcessGroup(cmd *exec.Cmd, withContext bool) {}

// KillGroup kills cmd's process.
func KillGroup(cmd *exec.Cmd) error { return cmd.Process.Kill() }

// Interrupt is the signal that asks a process to stop: there is no
// other than Kill.
var Interrupt = os.Kill

// KillPID kills one process.
func KillPID(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}

func terminate(pid int) error { return KillPID(pid) }
