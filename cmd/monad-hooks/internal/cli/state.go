package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"time"

	"github.com/monad-hooks/monad-hooks/engine"
	"github.com/monad-hooks/monad-hooks/internal/regfile"
)

// maxStateSize bounds the --state file.
const maxStateSize = 64 << 20

// readState reads a --state file: a JSON object of engine.SessionState by
// session id. A missing or empty file is an empty state.
func readState(path string) (map[string]engine.SessionState, error) {
	b, err := regfile.Read(path, maxStateSize)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]engine.SessionState{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("state: %w", err)
	}
	st := map[string]engine.SessionState{}
	if len(bytes.TrimSpace(b)) == 0 {
		return st, nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&st); err != nil {
		return nil, fmt.Errorf("state: %s: %w", path, err)
	}
	if st == nil { // the file held null
		st = map[string]engine.SessionState{}
	}
	return st, nil
}

// writeState replaces the --state file atomically (a temporary file in the
// same directory, renamed over it), so that a reader never sees it half
// written. Runs that share a state file take its lock (see lockState)
// around their read, dispatch and write, so that none loses another's
// update.
func writeState(path string, st map[string]engine.SessionState) error {
	b, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("state: %w", err)
	}
	b = append(b, '\n')
	if err := writeFileAtomic(path, b, 0o600); err != nil {
		return fmt.Errorf("state: %w", err)
	}
	return nil
}

// auditLine is one line of the --audit file: the engine's Record (which
// names its session), with the time it was written.
type auditLine struct {
	Time string `json:"time"`
	engine.Record
}

// auditLog is an engine.Recorder that appends one JSON line per executed hook
// to a file. It is safe for concurrent use: each line is one write to a file
// opened for appending, so lines from several dispatches, or several
// processes sharing the file, never interleave. The first write error is
// passed to report when it happens (serve may run for days: a full disk
// must not wait for the exit to be seen); later records are dropped.
type auditLog struct {
	now    func() time.Time
	report func(error) // nil: Close returns the first write error
	mu     sync.Mutex
	f      *os.File
	err    error
}

// openAudit opens the audit file at path for appending; report, when not
// nil, gets the first write error.
func openAudit(path string, report func(error)) (*auditLog, error) {
	// A FIFO put in place of the file must not hold the run in open(2); a
	// character device (/dev/stderr) is taken as it is.
	f, err := regfile.Open(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if fi, serr := os.Stat(path); errors.Is(err, regfile.ErrNotRegular) && serr == nil && fi.Mode()&fs.ModeCharDevice != 0 {
		f, err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	}
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	return &auditLog{now: time.Now, report: report, f: f}, nil
}

// Record appends r as one JSON line.
func (a *auditLog) Record(_ context.Context, r engine.Record) {
	b, err := json.Marshal(auditLine{Time: a.now().UTC().Format(time.RFC3339Nano), Record: r})
	b = append(b, '\n')
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.err != nil || a.f == nil {
		return
	}
	if err == nil {
		_, err = a.f.Write(b)
	}
	if err != nil {
		a.err = fmt.Errorf("audit: %w (the later records are dropped)", err)
		if a.report != nil {
			a.report(a.err)
		}
	}
}

// Close closes the file and returns the error of closing it, or the first
// write error when it was not reported.
func (a *auditLog) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	var err error
	if a.report == nil {
		err = a.err
	}
	if a.f == nil {
		return err
	}
	if cerr := a.f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("audit: %w", cerr)
	}
	a.f = nil
	return err
}
