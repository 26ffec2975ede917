package store

import (
	"fmt"
	"hash/fnv"
)

// A file's stamp tells two versions of it apart where its size and
// modification time cannot: an edit that keeps both (cp -p, rsync -t, tar,
// unzip, a filesystem with coarse timestamps such as FAT or SMB). On Unix
// it comes from the file's status (change time and inode: stamp_unix.go);
// elsewhere it is a hash of the content. It is never 0.

// mixStamp combines two numbers into a stamp.
func mixStamp(a, b uint64) uint64 {
	h := a*0x9e3779b97f4a7c15 ^ b*0xc2b2ae3d27d4eb4f
	h ^= h >> 29
	return h | 1
}

// contentStamp is the stamp of a file's content.
func contentStamp(data []byte) uint64 {
	h := fnv.New64a()
	h.Write(data)
	return h.Sum64() | 1
}

// StatStamp is the stamp of the file at path from its status (following a
// symlink), or 0 where the platform has none or the stat fails. It never
// reads the file.
func StatStamp(path string) uint64 { return pathStamp(path) }

// Stamp returns the stamp of a memory file of the root, as a load would
// record it: from its status where the platform allows, else by reading
// it. A symlinked file is stamped by what it leads to.
func (r Root) Stamp(rel string) (uint64, error) {
	p, err := r.Path(rel)
	if err != nil {
		return 0, err
	}
	if stampsFromStat {
		if s := pathStamp(p); s != 0 {
			return s, nil
		}
		return 0, fmt.Errorf("stat %s failed", p)
	}
	data, _, err := readRegular(p, MaxReadSize)
	if err != nil {
		return 0, err
	}
	return contentStamp(data), nil
}
