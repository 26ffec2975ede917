package main

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
)

// logPath is where ocmem logs: $OCMEM_LOG, else <user cache dir>/ocmem/ocmem.log.
func logPath() (string, error) {
	if p := os.Getenv("OCMEM_LOG"); p != "" {
		return p, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "ocmem", "ocmem.log"), nil
}

// maxLogBytes caps the log: past it the log is rotated once to ocmem.log.1,
// so a long-lived install never fills the disk.
const maxLogBytes = 8 << 20

// openLog opens the JSON-lines log for appending. When the log cannot be
// opened, logging goes nowhere rather than failing the user's session.
func openLog() (*slog.Logger, func(), error) {
	p, err := logPath()
	if err != nil {
		return slog.New(slog.NewJSONHandler(io.Discard, nil)), func() {}, nil
	}
	if info, err := os.Stat(p); err == nil && info.Size() > maxLogBytes {
		os.Rename(p, p+".1")
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return slog.New(slog.NewJSONHandler(io.Discard, nil)), func() {}, nil
	}
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return slog.New(slog.NewJSONHandler(io.Discard, nil)), func() {}, nil
	}
	return slog.New(slog.NewJSONHandler(f, &slog.HandlerOptions{Level: slog.LevelDebug})), func() { f.Close() }, nil
}
