//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package store

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"golang.org/x/sys/unix"
)

// dirHandle is an open directory whose names are statted relative to it:
// fstatat on a name skips resolving the whole path again for every file,
// which is most of what an lstat by full path costs.
type dirHandle struct {
	f  *os.File // owns fd; kept so that it is not closed while in use
	fd int
}

// openDir opens a directory and returns its names, sorted. A directory
// below the root must not have become a symlink since it was statted.
func openDir(path string, root bool) (dirHandle, []string, error) {
	flags := unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC
	if !root {
		flags |= unix.O_NOFOLLOW
	}
	var fd int
	var err error
	for {
		fd, err = unix.Open(path, flags, 0)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return dirHandle{}, nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	names, err := f.Readdirnames(-1)
	if err != nil {
		f.Close()
		return dirHandle{}, nil, err
	}
	slices.Sort(names)
	return dirHandle{f: f, fd: fd}, names, nil
}

func (h dirHandle) close() { h.f.Close() }

// lstat stats the i-th name of the directory without following a symlink.
func (h dirHandle) lstat(_ int, name string) (lstatResult, error) {
	var st unix.Stat_t
	for {
		err := unix.Fstatat(h.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
		if err == nil {
			break
		}
		if err != unix.EINTR {
			return lstatResult{}, &fs.PathError{Op: "lstat", Path: filepath.Join(h.f.Name(), name), Err: err}
		}
	}
	return lstatResult{mode: fileMode(uint32(st.Mode)), size: st.Size, mtime: time.Unix(st.Mtim.Unix()), stamp: statStamp(&st)}, nil
}

// fileMode is what os.Lstat's FileInfo.Mode says of a stat mode.
func fileMode(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & unix.S_IFMT {
	case unix.S_IFBLK:
		mode |= fs.ModeDevice
	case unix.S_IFCHR:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFDIR:
		mode |= fs.ModeDir
	case unix.S_IFIFO:
		mode |= fs.ModeNamedPipe
	case unix.S_IFLNK:
		mode |= fs.ModeSymlink
	case unix.S_IFSOCK:
		mode |= fs.ModeSocket
	}
	if m&unix.S_ISGID != 0 {
		mode |= fs.ModeSetgid
	}
	if m&unix.S_ISUID != 0 {
		mode |= fs.ModeSetuid
	}
	if m&unix.S_ISVTX != 0 {
		mode |= fs.ModeSticky
	}
	return mode
}
