//go:build linux

package watch

import (
	"encoding/binary"
	"path/filepath"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// subfolders lists the folders in dir that the loader reads (not those
// whose name starts with a dot), from the directory's raw entries: their
// type says which are folders, and no entry of a file becomes a Go value
// (os.File.ReadDir makes two per file: at 100,000 memories half the cost
// of watching a root). Where the filesystem does not give an entry's type,
// the entry is looked up. A folder that cannot be read gives what could
// be; on any other trouble, readSubfolders does the work.
func subfolders(dir string) []string {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer unix.Close(fd)
	bp := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(bp)
	buf := *bp
	var out []string
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			return out
		}
		for b := buf[:n]; len(b) > 0; {
			name, typ, reclen, ok := parseDirent(b)
			if !ok {
				return readSubfolders(dir)
			}
			b = b[reclen:]
			if len(name) == 0 || name[0] == '.' {
				continue // ".", ".." and the folders the loader skips
			}
			if typ == unix.DT_UNKNOWN {
				var st unix.Stat_t
				if unix.Fstatat(fd, string(name), &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
					continue
				}
				if st.Mode&unix.S_IFMT == unix.S_IFDIR {
					typ = unix.DT_DIR
				}
			}
			if typ == unix.DT_DIR {
				out = append(out, filepath.Join(dir, string(name)))
			}
		}
	}
}

var direntBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// parseDirent reads the first entry of a getdents64 buffer (struct
// linux_dirent64: inode, offset, record length, type, name ended by a
// zero byte).
func parseDirent(b []byte) (name []byte, typ uint8, reclen int, ok bool) {
	const (
		offReclen = unsafe.Offsetof(unix.Dirent{}.Reclen)
		offType   = unsafe.Offsetof(unix.Dirent{}.Type)
		offName   = unsafe.Offsetof(unix.Dirent{}.Name)
	)
	if len(b) < int(offName) {
		return nil, 0, 0, false
	}
	reclen = int(binary.NativeEndian.Uint16(b[offReclen:]))
	if reclen <= int(offName) || reclen > len(b) {
		return nil, 0, 0, false
	}
	name = b[offName:reclen]
	for i, c := range name {
		if c == 0 {
			name = name[:i]
			break
		}
	}
	return name, b[offType], reclen, true
}
