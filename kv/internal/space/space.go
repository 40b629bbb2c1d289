// Package space keeps a store from filling its filesystem: it tells
// whether a step that writes (a WAL file growing, a memstore flush, a
// compaction, a value-log GC pass) fits in the filesystem's free space
// less a reserve, before the step writes anything.
//
// Why: Badger writes its value log, its memtable logs and its tables
// through memory-mapped files that it extends sparsely (ftruncate). When
// the filesystem cannot back a page the process gets SIGBUS inside a
// memmove: no error reaches anyone. The only defence from above is to
// never ask Badger to write what the filesystem cannot hold.
//
// A Gate asks the filesystem (statfs) how many bytes an unprivileged
// writer may still allocate, and charges each admitted step against that
// figure until the next refresh (every RefreshBytes admitted, every
// RefreshEvery, and on every step while space is short, so that writes
// resume as soon as space is freed). Two classes of step:
//
//	Write    free - charged - Reserve   >= need
//	Reclaim  free - charged - Reserve/2 >= need
//
// Writes (new data) stop Reserve bytes before the filesystem is full;
// flushes, compactions and value-log GC, which move data or give space
// back, may use half of the reserve; the other half is left to what the
// engine does on its own (Badger's memtable flushes and level
// compactions, its discard statistics).
//
// On Linux free space comes from statfs(2) (f_bavail, the blocks an
// unprivileged user may allocate) and Preallocate uses fallocate(2) with
// FALLOC_FL_KEEP_SIZE. On other systems Statfs fails with
// errors.ErrUnsupported, a Gate made with it admits every step (the
// engine's own behaviour on a full disk is then the caller's risk), and
// Preallocate does nothing: a write to a file then fails with the system's
// error when the disk is full, which Classify wraps as ErrNoSpace.
package space

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"time"
)

// ErrNoSpace: a step does not fit in the free space of the filesystem
// less the reserve, or the filesystem answered ENOSPC or EDQUOT.
var ErrNoSpace = errors.New("kv: no space left")

// Usage is what a filesystem reports about its space, in bytes.
type Usage struct {
	Total int64 // size of the filesystem
	Free  int64 // bytes an unprivileged writer may still allocate
}

// StatFunc returns the Usage of the filesystem holding path.
type StatFunc func(path string) (Usage, error)

// Class says how much of the reserve a step may use.
type Class uint8

const (
	// Write: new data; it must leave the whole reserve free.
	Write Class = iota
	// Reclaim: a flush, a compaction or a GC pass, which may use half of
	// the reserve.
	Reclaim
)

// Refresh defaults: a Gate asks the filesystem again after this many
// admitted bytes or this much time, whichever comes first.
const (
	DefaultRefreshBytes = 1 << 20
	DefaultRefreshEvery = 100 * time.Millisecond
)

// Gate admits the steps of one store on one filesystem. Its methods are
// safe for concurrent use. A nil *Gate admits everything.
type Gate struct {
	path    string
	stat    StatFunc
	reserve int64
	// RefreshBytes and RefreshEvery: see the package doc. Set them before
	// first use.
	RefreshBytes int64
	RefreshEvery time.Duration
	now          func() time.Time

	mu      sync.Mutex
	usage   Usage     // at the last refresh
	at      time.Time // of the last refresh
	charged int64     // bytes admitted since the last refresh
	held    int64     // bytes of the steps under way (Hold)
	short   bool      // the last step was refused: refresh on every step
	err     error     // the last statfs error (the gate then admits)
}

// NewGate returns a Gate for the filesystem holding path, asking stat
// (Statfs when nil), keeping reserve bytes free of new data. When stat
// fails with errors.ErrUnsupported the Gate admits every step.
func NewGate(path string, stat StatFunc, reserve int64) *Gate {
	if stat == nil {
		stat = Statfs
	}
	return &Gate{path: path, stat: stat, reserve: max(reserve, 0),
		RefreshBytes: DefaultRefreshBytes, RefreshEvery: DefaultRefreshEvery, now: time.Now}
}

// Reserve returns the bytes kept free of new data.
func (g *Gate) Reserve() int64 {
	if g == nil {
		return 0
	}
	return g.reserve
}

// Admit charges need bytes of a step of class c that writes them at once
// (the filesystem's figures show them right after), when they fit (see
// the package doc), and returns nil; or an error wrapping ErrNoSpace that
// says what op needed and what was free, charging nothing.
func (g *Gate) Admit(op string, need int64, c Class) error {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	need = max(need, 0)
	if err := g.fit(op, need, c); err != nil {
		return err
	}
	g.charged += need
	return nil
}

// Hold is Admit for a step that writes its need bytes over a while (a
// flush, a compaction): they count against the free space, also across
// refreshes, until release is called, after the step ended. release may
// be called more than once.
func (g *Gate) Hold(op string, need int64, c Class) (release func(), err error) {
	if g == nil {
		return func() {}, nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	need = max(need, 0)
	if err := g.fit(op, need, c); err != nil {
		return func() {}, err
	}
	g.held += need
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Lock()
			g.held -= need
			g.mu.Unlock()
		})
	}, nil
}

// fit returns nil when need bytes of class c fit, asking the filesystem
// again when the figures are stale or the step does not fit in them.
// g.mu is held.
func (g *Gate) fit(op string, need int64, c Class) error {
	fresh := false
	if g.stale() {
		g.refresh()
		fresh = true
	}
	if g.err != nil {
		return nil // no figures: admit (see NewGate)
	}
	hold := g.hold(c)
	if g.room()-hold < need && !fresh {
		g.refresh()
		if g.err != nil {
			return nil
		}
	}
	if g.room()-hold < need {
		g.short = true
		return fmt.Errorf("%w: %s needs %d bytes; the filesystem of %s has %d free, of which steps under way take %d and %d is held in reserve",
			ErrNoSpace, op, need, g.path, max(g.usage.Free-g.charged, 0), g.held, hold)
	}
	g.short = false
	return nil
}

// room is the free space less what was admitted since the last refresh
// and what the steps under way may still write. g.mu is held.
func (g *Gate) room() int64 { return g.usage.Free - g.charged - g.held }

// hold is the part of the reserve a step of class c must leave free.
func (g *Gate) hold(c Class) int64 {
	if c == Reclaim {
		return g.reserve / 2
	}
	return g.reserve
}

// stale reports whether the figures must be asked again. g.mu is held.
func (g *Gate) stale() bool {
	return g.short || g.at.IsZero() || g.charged >= g.RefreshBytes || g.now().Sub(g.at) >= g.RefreshEvery
}

// refresh asks the filesystem. g.mu is held.
func (g *Gate) refresh() {
	u, err := g.stat(g.path)
	g.at = g.now()
	g.charged = 0
	if err != nil {
		// Unsupported or failing statfs: admit, as without a Gate.
		g.err = err
		return
	}
	g.usage, g.err = u, nil
}

// Room returns the bytes a step of class c could take now (the free
// space less what was admitted since the last refresh, what the steps
// under way may still write, and the part of the reserve c must leave),
// negative when there is none; math.MaxInt64 for a nil Gate or one
// without figures.
func (g *Gate) Room(c Class) int64 {
	if g == nil {
		return math.MaxInt64
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stale() {
		g.refresh()
	}
	if g.err != nil {
		return math.MaxInt64
	}
	return g.room() - g.hold(c)
}

// Total returns the size of the filesystem as last asked, or
// math.MaxInt64 for a nil Gate or one without figures.
func (g *Gate) Total() int64 {
	if g == nil {
		return math.MaxInt64
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.at.IsZero() {
		g.refresh()
	}
	if g.err != nil || g.usage.Total <= 0 {
		return math.MaxInt64
	}
	return g.usage.Total
}

// Usage returns the filesystem's figures, asked now, or the error of
// asking.
func (g *Gate) Usage() (Usage, error) {
	if g == nil {
		return Usage{}, errors.ErrUnsupported
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.refresh()
	return g.usage, g.err
}
