//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package store

import "golang.org/x/sys/unix"

// statStamp is a file's stamp from its status: the change time, which every
// write, chmod, rename and utime moves and no tool can set back (cp -p,
// rsync -t, tar and unzip restore the modification time, not this), and
// the inode, which a replaced file changes.
func statStamp(st *unix.Stat_t) uint64 {
	sec, nsec := st.Ctim.Unix()
	return mixStamp(uint64(sec)*1_000_000_000+uint64(nsec), uint64(st.Ino))
}

// pathStamp is the stamp of the file at path, following a symlink; 0 when
// it cannot be statted.
func pathStamp(path string) uint64 {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return 0
	}
	return statStamp(&st)
}

// stampsFromStat: this platform stamps a file from its status, without
// reading it.
const stampsFromStat = true
