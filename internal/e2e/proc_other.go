//go:build !unix

package e2e

import (
	"os"
	"os/exec"
)

func setProcessGroup(cmd *exec.Cmd, withContext bool) {}

func killGroup(cmd *exec.Cmd) error { return cmd.Process.Kill() }

var interrupt = os.Kill

// KillPID kills one process.
func KillPID(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}

func terminate(pid int) error { return KillPID(pid) }
