package wal

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv/internal/space"
)

// WAL file format, version 1: see the package doc (WAL file). A Store
// that Open opened on a directory keeps its WAL in the subdirectory
// Dir, one file per memstore.
const (
	Dir         = "wal"
	Suffix      = ".log"
	magic       = "kvencWAL"
	FileVersion = 1
	headerLen   = len(magic) + 1
	FrameLen    = 4 // the length before each record
)

// Header returns the bytes a WAL file starts with.
func Header() []byte { return append([]byte(magic), FileVersion) }

// AppendFrame appends to dst the frame of a WAL file that holds rec.
func AppendFrame(dst, rec []byte) []byte {
	return append(binary.LittleEndian.AppendUint32(dst, uint32(len(rec))), rec...)
}

// Rec is a whole WAL record and its seq.
type Rec struct {
	Seq uint64
	B   []byte
}

// Written returns the bytes written to the files since OpenFiles.
func (w *Files) Written() int64 { return w.written.Load() }

// Path returns the directory of the files.
func (w *Files) Path() string { return w.dir }

// Files is the WAL of a Store on a directory: the files of the
// memstores (File, one per memtable), and the files found at Open whose
// records the replayed memstores hold (old), removed as those flush.
type Files struct {
	dir  string
	sync bool // SyncWrites: fsync after each write
	// bufMax, when above 0 (SetBuffered), makes the writes buffered: a
	// queued frame is written by a goroutine that Queue starts, and up to
	// bufMax bytes of frames wait for it.
	bufMax int
	// failed is the first failed write of buffered frames (a
	// *error): every later Queue, into any file, fails with it.
	failed atomic.Pointer[error]

	written atomic.Int64 // bytes written to the files
	writes  atomic.Int64 // writes of queued frames (with sync, one fsync each)
	// beforeWrite, when set (SetWriteHook, tests only), runs before each
	// write of queued frames; its error fails that write.
	beforeWrite func() error
	// gate admits each chunk bytes of a file before the file is
	// allocated ahead over them (space.Preallocate); nil: files grow as
	// they are written (SetGate).
	gate  *space.Gate
	chunk int64

	mu   sync.Mutex
	next uint64     // number of the next file
	old  []oldFile  // files found at Open, by their highest seq
	open []*os.File // files not yet closed, closed by closeAll
}

// oldFile is a WAL file found at Open and the highest seq it holds.
type oldFile struct {
	path string
	max  uint64
}

// File is the WAL file of one memtable, created at its first record.
//
// Concurrent writers commit their records in groups: each queues its
// frame (Queue), and the first one that waits for its frame (Wait) while
// no write is in progress leads: it writes every frame queued so far with
// one write and, with SyncWrites, one fsync, while the frames of later
// writers queue for the next leader. A writer whose frame a leader wrote
// returns without a write of its own, so n writers at once cost about two
// writes and fsyncs, not n. This is LevelDB's writer queue (Pebble's
// commit pipeline) without a goroutine of its own.
//
// Buffered (SetBuffered), no writer waits: the Queue that finds no write
// in progress starts a goroutine that leads, writing the frames queued
// until none is left, in queue order, and a Queue that finds the frames
// waiting at the bound waits for a write to take them. A failed write
// fails every later Queue of the Files (frames queued after a lost one
// are never written, so what a crash loses is a suffix of the queue).
type File struct {
	mu   sync.Mutex
	f    *os.File
	path string
	err  error // a failed write: the file takes no more records

	cond    sync.Cond // L is &mu; broadcast when a leader's write ends
	queued  []byte    // frames queued and not yet taken by a leader
	spare   []byte    // the last write's buffer, the next queue's
	end     int64     // bytes queued since the file was created
	done    int64     // bytes of them written (with sync, synced)
	leading bool      // a leader is writing
	alloc   int64     // bytes allocated ahead (SetGate)
}

// SetBuffered makes the writes of frames buffered (see File): Queue
// returns once the frame is queued in memory, up to max bytes of frames
// wait for their write, and Drain waits for them. Call it before the
// first record.
func (w *Files) SetBuffered(max int) { w.bufMax = max }

// Buffered reports whether the writes are buffered (SetBuffered).
func (w *Files) Buffered() bool { return w.bufMax > 0 }

// SetGate makes every file allocate chunk bytes ahead at a time, each
// admitted by g first (when a frame is queued), so that the records
// written into a chunk take no space g did not count and their writes
// cannot fail for lack of space. A chunk g refuses fails Queue with g's
// error, wrapping space.ErrNoSpace, having queued nothing: the file takes
// later records. Call it before the first record.
func (w *Files) SetGate(g *space.Gate, chunk int64) { w.gate, w.chunk = g, chunk }

// Written returns the bytes of the frames queued for f.
func (f *File) Written() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.end
}

// OpenFiles reads the WAL files in dir/Dir (creating it) and
// returns the WAL and the records above walSeq, in file order. It removes
// the files holding none, and keeps the others (old) until the memstores
// replayed from them are flushed.
func OpenFiles(dir string, syncWrites bool, walSeq uint64) (*Files, []Rec, error) {
	w := &Files{dir: filepath.Join(dir, Dir), sync: syncWrites}
	if err := os.MkdirAll(w.dir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("wal: directory: %w", err)
	}
	ents, err := os.ReadDir(w.dir)
	if err != nil {
		return nil, nil, fmt.Errorf("wal: directory: %w", err)
	}
	var recs []Rec
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, Suffix) || !e.Type().IsRegular() {
			continue
		}
		n, err := strconv.ParseUint(strings.TrimSuffix(name, Suffix), 16, 64)
		if err != nil {
			continue // not a WAL file: never read or removed
		}
		w.next = max(w.next, n+1)
		path := filepath.Join(w.dir, name)
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, nil, fmt.Errorf("wal: file %s: %w", name, err)
		}
		frecs, err := DecodeFile(b)
		if err != nil {
			return nil, nil, fmt.Errorf("wal: file %s: %w", name, err)
		}
		var hi uint64
		for _, r := range frecs {
			hi = max(hi, r.Seq)
			if r.Seq > walSeq {
				recs = append(recs, r)
			}
		}
		w.old = append(w.old, oldFile{path, hi})
	}
	if err := w.remove(w.takeOld(walSeq)); err != nil {
		return nil, nil, err
	}
	return w, recs, nil
}

// DecodeFile returns the records of a WAL file (they alias b). A last
// frame cut short, or whose record does not decode, is a write the
// process did not finish: it is left out.
func DecodeFile(b []byte) ([]Rec, error) {
	if len(b) < headerLen {
		if !bytes.HasPrefix(Header(), b) {
			return nil, fmt.Errorf("%w: %d bytes, not a WAL file header", blockenc.ErrCorrupt, len(b))
		}
		return nil, nil // created, header cut short
	}
	if string(b[:len(magic)]) != magic {
		return nil, fmt.Errorf("%w: magic %q", blockenc.ErrCorrupt, b[:len(magic)])
	}
	if v := b[len(magic)]; v != FileVersion {
		return nil, fmt.Errorf("%w: WAL file version %d (this version reads %d)", blockenc.ErrCorrupt, v, FileVersion)
	}
	var recs []Rec
	for off := headerLen; off < len(b); {
		if len(b)-off < FrameLen {
			break // torn length
		}
		n := int(binary.LittleEndian.Uint32(b[off:]))
		if n > len(b)-off-FrameLen {
			break // torn record
		}
		end := off + FrameLen + n
		rec := b[off+FrameLen : end : end]
		seq, _, err := Decode(rec)
		if err != nil {
			if end == len(b) {
				break // the last record, torn
			}
			return nil, fmt.Errorf("offset %d: %w", off, err)
		}
		recs = append(recs, Rec{Seq: seq, B: rec})
		off = end
	}
	return recs, nil
}

// Queue queues one frame (FrameLen bytes of room, then the record;
// copied) for f, a memstore's file, creating the file first, and returns
// the position Wait must see written. seal, if not nil, runs under f's
// lock just before the frame is copied, once Queue can no longer fail:
// frames then queue in the order in which their seals ran (kv takes the
// record's seq and Seals it there, so that a file's records and the
// groups written are in seq order).
//
// Buffered, it first waits while the frames queued would pass the bound
// with frame's, and starts the goroutine that writes them when none
// runs.
func (w *Files) Queue(f *File, frame []byte, seal func()) (end int64, err error) {
	if p := w.failed.Load(); p != nil {
		return 0, *p
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return 0, f.err
	}
	if f.f == nil {
		if err := w.create(f); err != nil {
			return 0, err
		}
		f.cond.L = &f.mu
	}
	for w.bufMax > 0 && len(f.queued) > 0 && len(f.queued)+len(frame) > w.bufMax && f.err == nil {
		f.cond.Wait() // a write is in progress (drain) and takes them
	}
	if f.err != nil {
		return 0, f.err
	}
	if err := w.allocate(f, int64(len(frame))); err != nil {
		return 0, fmt.Errorf("wal: file %s: %w", filepath.Base(f.path), err)
	}
	if seal != nil {
		seal()
	}
	binary.LittleEndian.PutUint32(frame, uint32(len(frame)-FrameLen))
	f.queued = append(f.queued, frame...)
	f.end += int64(len(frame))
	if w.bufMax > 0 && !f.leading {
		f.leading = true
		go w.drain(f)
	}
	return f.end, nil
}

// drain leads the writes of a buffered file until no frame is queued or a
// write failed.
func (w *Files) drain(f *File) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for len(f.queued) > 0 && f.err == nil {
		w.writeQueued(f)
	}
	f.leading = false
	f.cond.Broadcast()
}

// Drain returns once every frame queued for f is written (with
// SyncWrites, synced), or the error of the write that failed them.
func (w *Files) Drain(f *File) error {
	f.mu.Lock()
	end := f.end
	f.mu.Unlock()
	return w.Wait(f, end, false)
}

// SyncFile writes every frame queued for f and fsyncs f's file and the
// directory, so that its records survive a power loss. A file not created, or removed since
// (its memstore flushed), has nothing to sync.
func (w *Files) SyncFile(f *File) error {
	if err := w.Drain(f); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.f == nil {
		return nil
	}
	err := f.f.Sync()
	if err == nil && !w.sync {
		err = syncDir(w.dir) // the file's name (SyncWrites synced it at create)
	}
	if err != nil {
		return fmt.Errorf("wal: file %s: sync: %w", filepath.Base(f.path), space.Classify(err))
	}
	return nil
}

// Wait returns once f holds (with SyncWrites, durably) the frames queued
// up to end, or the error of the write that failed them. It leads the
// writes itself while no other writer does (see File). With gather (other
// writers are on their way to queue their frames) a writer about to lead
// first yields its processor once (runtime.Gosched), so that the writers
// it lets run queue their frames into its group and share its write (with
// SyncWrites, its fsync). The yield puts the leader behind every goroutine
// ready to run, so it pays where a write costs more than that wait.
func (w *Files) Wait(f *File, end int64, gather bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for f.done < end && f.err == nil {
		if f.leading {
			f.cond.Wait()
			continue
		}
		if gather {
			gather = false
			f.mu.Unlock()
			runtime.Gosched()
			f.mu.Lock()
			continue
		}
		f.leading = true
		w.writeQueued(f)
		f.leading = false
	}
	if f.done >= end {
		return nil
	}
	return f.err
}

// writeQueued writes the frames queued for f with one write, as their
// leader: the caller holds f.mu, which it releases during the write, and
// has set f.leading.
func (w *Files) writeQueued(f *File) {
	b, upto := f.queued, f.end
	f.queued = f.spare[:0]
	f.mu.Unlock()
	var err error
	if w.beforeWrite != nil {
		err = w.beforeWrite()
	}
	if err == nil {
		w.writes.Add(1)
		err = w.write(f, b)
	}
	f.mu.Lock()
	f.spare = b
	if err != nil {
		err = f.fail(err)
		if w.bufMax > 0 {
			w.failed.CompareAndSwap(nil, &err)
		}
	} else {
		f.done = upto
	}
	f.cond.Broadcast()
}

// Writes returns the writes of queued frames since OpenFiles (with
// SyncWrites, the fsyncs).
func (w *Files) Writes() int64 { return w.writes.Load() }

// SetWriteHook makes fn run before each later write of queued frames;
// an error it returns fails that write (tests: call it before any write).
func (w *Files) SetWriteHook(fn func() error) { w.beforeWrite = fn }

// create makes f's file and writes its header.

// allocate makes room for n more bytes in f's file: when they go past
// what is allocated, the gate admits the next chunk (at least n bytes) and
// the file is allocated ahead over it. A refusal writes nothing and
// leaves the file usable.
func (w *Files) allocate(f *File, n int64) error {
	used := int64(headerLen) + f.end
	if w.gate == nil || used+n <= f.alloc {
		return nil
	}
	chunk := max(w.chunk, used+n-f.alloc)
	if err := w.gate.Admit("WAL file", chunk, space.Write); err != nil {
		return err
	}
	if err := space.Preallocate(f.f, f.alloc, chunk); err != nil {
		return err
	}
	f.alloc += chunk
	return nil
}

// create makes f's file and writes its header. When the gate refuses the
// file's first chunk, it creates nothing.
func (w *Files) create(f *File) error {
	if w.gate != nil {
		if err := w.gate.Admit("WAL file", w.chunk, space.Write); err != nil {
			return err
		}
	}
	w.mu.Lock()
	n := w.next
	w.next++
	w.mu.Unlock()
	f.path = filepath.Join(w.dir, fmt.Sprintf("%016x%s", n, Suffix))
	fd, err := os.OpenFile(f.path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return f.fail(err)
	}
	if w.gate != nil {
		if err := space.Preallocate(fd, 0, w.chunk); err != nil {
			// Nothing written: the next record tries a new file.
			fd.Close()
			_ = os.Remove(f.path)
			return err
		}
		f.alloc = w.chunk
	}
	f.f = fd
	w.mu.Lock()
	w.open = append(w.open, fd)
	w.mu.Unlock()
	if w.sync {
		// The file's name must survive a crash too.
		err = syncDir(w.dir)
	}
	if err == nil {
		err = w.write(f, Header())
	}
	if err != nil {
		return f.fail(err)
	}
	return nil
}

// write writes b to f's file, counting the bytes written, and fsyncs it
// with SyncWrites.
func (w *Files) write(f *File, b []byte) error {
	n, err := f.f.Write(b)
	w.written.Add(int64(n))
	if err == nil && w.sync {
		err = f.f.Sync()
	}
	return err
}

// fail makes err, of f's file, the error of every later record.
func (f *File) fail(err error) error {
	f.err = fmt.Errorf("wal: file %s: %w", filepath.Base(f.path), space.Classify(err))
	return f.err
}

// syncDir fsyncs the directory dir, so that the names of the files
// created in it are durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// Flushed removes f, the file of a memstore now in a segment, and the
// files found at Open whose records are all at or below hi, the
// memstore's last seq.
func (w *Files) Flushed(f *File, hi uint64) error {
	f.mu.Lock()
	for f.leading { // a buffered write of frames queued before the flush
		f.cond.Wait()
	}
	fd, path := f.f, f.path
	f.f = nil
	f.err = errors.New("wal: file of a flushed memstore")
	f.mu.Unlock()
	var paths []string
	if fd != nil {
		w.mu.Lock()
		w.open = slices.DeleteFunc(w.open, func(x *os.File) bool { return x == fd })
		w.mu.Unlock()
		fd.Close()
		paths = append(paths, path)
	}
	return w.remove(append(paths, w.takeOld(hi)...))
}

// takeOld returns the files found at Open whose records are all at or
// below hi and forgets them.
func (w *Files) takeOld(hi uint64) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var paths []string
	w.old = slices.DeleteFunc(w.old, func(o oldFile) bool {
		if o.max <= hi {
			paths = append(paths, o.path)
			return true
		}
		return false
	})
	return paths
}

// remove deletes the files paths.
func (w *Files) remove(paths []string) error {
	for _, p := range paths {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("wal: cleanup: %w", err)
		}
	}
	return nil
}

// CloseAll closes the files still open (Close); they stay for the next
// Open to replay.
func (w *Files) CloseAll() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, fd := range w.open {
		fd.Close()
	}
	w.open = nil
}
