package engine

import (
	"errors"
	"fmt"

	"github.com/ocmem/ocmem/internal/options"
	"github.com/ocmem/ocmem/internal/pathsafe"
	"github.com/ocmem/ocmem/internal/secrets"
)

// Refusal is an error for a request the engine refused before it touched
// the disk: bad arguments, a suspected secret, a path that leaves the root,
// a memory that is not there or is not the caller's to change. Every
// refusal the engine returns is a *Refusal or wraps one, so a caller tells
// a refusal from a failure on the way with errors.As and keeps no list of
// sentinels that a new one could be missing from. The sentinels below stay
// what errors.Is compares with.
type Refusal struct{ Err error }

func (r *Refusal) Error() string { return r.Err.Error() }
func (r *Refusal) Unwrap() error { return r.Err }

// IsRefusal reports whether err is or wraps a *Refusal.
func IsRefusal(err error) bool {
	var r *Refusal
	return errors.As(err, &r)
}

func refusal(msg string) error { return &Refusal{Err: errors.New(msg)} }

// asRefusal marks the refusals of the packages below (a path that leaves
// the root, a secret in a field) as the engine's own, so that what an
// exported method returns needs no knowledge of where it was refused.
func asRefusal(err error) error {
	var se *secrets.Error
	if err == nil || IsRefusal(err) || !errors.As(err, &se) && !errors.Is(err, pathsafe.ErrOutside) {
		return err
	}
	return &Refusal{Err: err}
}

// Errors callers branch on.
var (
	ErrNotFound = refusal("memory not found")
	ErrNoRoot   = refusal("no memory root is configured")
	ErrPinned   = refusal("a pinned memory is never superseded automatically")
	// ErrNeedsPerson: only a person removes a hard rule or a pinned memory.
	ErrNeedsPerson = refusal("only a person may do that")
	ErrAmbiguous   = refusal("the id exists in both roots; say which scope")
	ErrBadRequest  = refusal("bad request")
	// ErrRulesChanged: a person was shown rules to accept (their digest),
	// and they no longer read that way; nothing was accepted.
	ErrRulesChanged = refusal("the rules changed since they were shown")
	// ErrDuplicate: a live memory of the root says the same already.
	ErrDuplicate = errors.New("duplicate memory")
)

func badRequest(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBadRequest, fmt.Sprintf(format, args...))
}

// checkCategory refuses, as a bad request, a category that is not one safe
// folder name.
func checkCategory(c string) error {
	if err := options.CheckCategory(c); err != nil {
		return badRequest("%v", err)
	}
	return nil
}
