package paygatetest

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
)

// saveEvery is the least time between two writes of the state file: a
// busy sandbox writes it at most five times a second, and a process killed
// at any moment loses at most what changed in the last 200 ms (more for a
// state so large that writing it takes over 50 ms: see startPersisting).
const saveEvery = 200 * time.Millisecond

// WithStateFile keeps the sandbox's state (users, tokens, transactions,
// balances, subscriptions, callbacks with their attempts, the clock, the id
// counters) in the file at path across restarts: it is read at start when
// it exists, and written after changes, at most every 200 ms, and at Close.
// Each write goes to a temporary file beside it (.NAME.sandbox-tmp-N)
// renamed over the state file, so the file is always a whole state, and a
// process killed (even with SIGKILL) loses at most the last 200 ms; the
// temporary file such a kill leaves is removed at the next start. A path
// that is a symbolic link stays one: the file it names is the one written.
// A file that cannot be read, holds a number out of range, or was written
// by a newer sandbox, makes Listen fail (NewServer panic) with an error
// naming it (ErrStateFile): the sandbox never starts empty in its place.
// One sandbox at a time uses a state file: it holds a lock on NAME.lock
// beside it (left in place) while it runs, and another one started on the
// file fails with ErrStateFileInUse naming the holder's process (outside
// Unix the file is not locked). The file holds no key and no card number
// but the test cards' (another card keeps its first six and last four
// digits, zeros between, which is all the sandbox reads of it); it is
// written readable by its owner only. Faults, dashboard sessions, login
// links, the guess budget and the confirm page's form tokens (a confirm
// page open across a restart is opened again) are not kept; projects and
// their settings (a callback URL set through the control plane included)
// come from the options at each start. An empty path keeps nothing.
func WithStateFile(path string) Option {
	return func(c *config) { c.stateFile = path }
}

// ErrStateFile reports a state file the sandbox cannot start from; the
// error's text names the file and says why.
var ErrStateFile = errors.New("paygatetest: unusable state file")

// persister writes the state file after changes.
type persister struct {
	name   string // the file as given, for messages
	path   string // the file its symbolic links name, which is written
	unlock func() // releases the file's lock; see lockStateFile
	dirty  atomic.Bool
	stop   chan struct{}
	done   chan struct{}
	once   sync.Once // of finish
	// released makes release run once: Close calls it after finish, and
	// a start that fails after taking the lock calls it too.
	released sync.Once
}

// openStateFile makes the writer of the state file at name, not yet
// started: it follows the file's symbolic links, takes its lock (see
// lockStateFile) and removes the temporary files a sandbox killed while
// writing it left. Whoever gets it calls release once done.
func openStateFile(name string) (*persister, error) {
	path, err := resolveStatePath(name)
	if err != nil {
		return nil, fmt.Errorf("%w %s: %v", ErrStateFile, name, err)
	}
	unlock, err := lockStateFile(path)
	if errors.Is(err, ErrStateFileInUse) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("%w %s: %v", ErrStateFile, name, err)
	}
	if err := removeStaleTemps(path); err != nil {
		unlock()
		return nil, fmt.Errorf("%w %s: %v", ErrStateFile, name, err)
	}
	return &persister{name: name, path: path, unlock: unlock, stop: make(chan struct{}), done: make(chan struct{})}, nil
}

// release releases the state file's lock, once; it writes nothing.
func (p *persister) release() { p.released.Do(p.unlock) }

// startPersisting writes the state file from now on: at once when it was
// not restored from it (so that a bad path is found at start and the file
// exists), then after changes. A file restored from holds the state
// already, and its lock file beside it shows the directory takes new
// files: writing it again would only make the start slower and its peak
// of memory higher. Changes are the requests that may have changed the
// state (see Server.changed), callbacks recorded or attempted (the
// delivery log's changes) and clock moves.
func (s *Server) startPersisting(p *persister, restored bool) error {
	if !restored {
		if err := p.write(s.snapshot()); err != nil {
			return err
		}
	}
	s.persist = p
	unsub := s.clock.subscribe(func() { p.dirty.Store(true) })
	go func() {
		defer close(p.done)
		defer unsub()
		tick := time.NewTicker(saveEvery)
		defer tick.Stop()
		changed := s.deliveries.log.changedChan()
		var lastEnd time.Time
		var took time.Duration
		for {
			select {
			case <-changed:
				changed = s.deliveries.log.changedChan()
				p.dirty.Store(true)
			case <-tick.C:
				// A large state takes a while to write: waiting four
				// times that between writes keeps the writing to a fifth
				// of one core at most.
				if time.Since(lastEnd) >= 4*took && p.dirty.Swap(false) {
					start := time.Now()
					p.save(s)
					lastEnd = time.Now()
					took = lastEnd.Sub(start)
				}
			case <-p.stop:
				return
			}
		}
	}()
	return nil
}

// changed marks the state to be written after a request that may have
// changed it, once the change is made and before the answer goes out (so
// that a client that has its answer finds the change marked). Only such
// requests mark it: a request refused before its handler ran, or one that
// only reads, would otherwise let anyone who can reach the port keep the
// writer writing the whole state. The handlers that may change it call
// this: an authenticated API call but the reads (route.reads), whatever
// it answers; a control-plane operation but the GET ones, whatever it
// answers; the confirm page when it decides a payment. Dashboard sessions,
// login links, faults and the confirm page's form tokens are not kept, and
// the ACS page keeps nothing.
func (s *Server) changed() {
	if s.persist != nil {
		s.persist.dirty.Store(true)
	}
}

// finish stops the writer and writes the state a last time; Close calls it
// once no request is served any more and before callbacks stop, so that
// callbacks still due are kept as due, then releases the file's lock.
func (p *persister) finish(s *Server) {
	p.once.Do(func() {
		close(p.stop)
		<-p.done
		p.save(s)
	})
}

// save writes the state, reporting a failure on the default logger: the
// sandbox goes on serving, and the next change tries again.
func (p *persister) save(s *Server) {
	if err := p.write(s.snapshot()); err != nil {
		p.dirty.Store(true)
		slog.Error("paygatetest: cannot write the state file", "file", p.name, "error", err)
	}
}

// write replaces the state file by saved: a temporary file in the same
// directory (named by tempPrefix), synced, then renamed over it, so that
// the file is a whole state at every moment, the old one or the new one;
// a symbolic link to it stays a link. The JSON is streamed to the file,
// never held whole in memory.
func (p *persister) write(saved savedState) error {
	tmp, err := os.CreateTemp(filepath.Dir(p.path), tempPrefix(p.path)+"*")
	if err != nil {
		return fmt.Errorf("state file %s: %w", p.name, err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing to remove
	buf := bufio.NewWriterSize(tmp, 64<<10)
	err = json.NewEncoder(buf).Encode(saved)
	if err == nil {
		err = buf.Flush()
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), p.path)
	}
	if err != nil {
		return fmt.Errorf("state file %s: %w", p.name, err)
	}
	return nil
}
