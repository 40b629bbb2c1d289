package kv

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// WAL file format, version 1: see the package doc (WAL file). A Store
// that Open opened on a directory keeps its WAL in the subdirectory
// walDir, one file per memstore.
const (
	walDir       = "wal"
	walSuffix    = ".log"
	walMagic     = "kvencWAL"
	walFileVer   = 1
	walHeaderLen = len(walMagic) + 1
	walFrameLen  = 4 // the length before each record
)

// walHeader returns the bytes a WAL file starts with.
func walHeader() []byte { return append([]byte(walMagic), walFileVer) }

// walRec is a whole WAL record and its seq.
type walRec struct {
	seq uint64
	b   []byte
}

// walFiles is the WAL of a Store on a directory: the files of the
// memstores (walFile, one per memtable), and the files found at Open whose
// records the replayed memstores hold (old), removed as those flush.
type walFiles struct {
	dir  string
	sync bool // SyncWrites: fsync after each record

	written atomic.Int64 // bytes written to the files (Stats.WALBytes)

	mu   sync.Mutex
	next uint64     // number of the next file
	old  []oldWAL   // files found at Open, by their highest seq
	open []*os.File // files not yet closed, closed by closeAll
}

// oldWAL is a WAL file found at Open and the highest seq it holds.
type oldWAL struct {
	path string
	max  uint64
}

// walFile is the WAL file of one memtable, created at its first record.
type walFile struct {
	mu   sync.Mutex
	f    *os.File
	path string
	err  error // a failed write: the file takes no more records
}

// openWALFiles reads the WAL files in dir/walDir (creating it) and
// returns the WAL and the records above walSeq, in file order. It removes
// the files holding none, and keeps the others (old) until the memstores
// replayed from them are flushed.
func openWALFiles(dir string, syncWrites bool, walSeq uint64) (*walFiles, []walRec, error) {
	w := &walFiles{dir: filepath.Join(dir, walDir), sync: syncWrites}
	if err := os.MkdirAll(w.dir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("kv: open: WAL directory: %w", err)
	}
	ents, err := os.ReadDir(w.dir)
	if err != nil {
		return nil, nil, fmt.Errorf("kv: open: WAL directory: %w", err)
	}
	var recs []walRec
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, walSuffix) || !e.Type().IsRegular() {
			continue
		}
		n, err := strconv.ParseUint(strings.TrimSuffix(name, walSuffix), 16, 64)
		if err != nil {
			continue // not a WAL file: never read or removed
		}
		w.next = max(w.next, n+1)
		path := filepath.Join(w.dir, name)
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, nil, fmt.Errorf("kv: open: WAL file %s: %w", name, err)
		}
		frecs, err := decodeWALFile(b)
		if err != nil {
			return nil, nil, fmt.Errorf("kv: open: WAL file %s: %w", name, err)
		}
		var hi uint64
		for _, r := range frecs {
			hi = max(hi, r.seq)
			if r.seq > walSeq {
				recs = append(recs, r)
			}
		}
		w.old = append(w.old, oldWAL{path, hi})
	}
	if err := w.remove(w.takeOld(walSeq)); err != nil {
		return nil, nil, err
	}
	return w, recs, nil
}

// decodeWALFile returns the records of a WAL file (they alias b). A last
// frame cut short, or whose record does not decode, is a write the
// process did not finish: it is left out.
func decodeWALFile(b []byte) ([]walRec, error) {
	if len(b) < walHeaderLen {
		if !bytes.HasPrefix(walHeader(), b) {
			return nil, fmt.Errorf("%w: %d bytes, not a WAL file header", ErrCorrupt, len(b))
		}
		return nil, nil // created, header cut short
	}
	if string(b[:len(walMagic)]) != walMagic {
		return nil, fmt.Errorf("%w: magic %q", ErrCorrupt, b[:len(walMagic)])
	}
	if v := b[len(walMagic)]; v != walFileVer {
		return nil, fmt.Errorf("%w: WAL file version %d (this version reads %d)", ErrCorrupt, v, walFileVer)
	}
	var recs []walRec
	for off := walHeaderLen; off < len(b); {
		if len(b)-off < walFrameLen {
			break // torn length
		}
		n := int(binary.LittleEndian.Uint32(b[off:]))
		if n > len(b)-off-walFrameLen {
			break // torn record
		}
		end := off + walFrameLen + n
		rec := b[off+walFrameLen : end : end]
		seq, _, err := decodeWAL(rec)
		if err != nil {
			if end == len(b) {
				break // the last record, torn
			}
			return nil, fmt.Errorf("offset %d: %w", off, err)
		}
		recs = append(recs, walRec{seq, rec})
		off = end
	}
	return recs, nil
}

// appendRecord writes one frame (walFrameLen bytes of room, then the
// record) to mt's file, creating it first.
func (w *walFiles) appendRecord(mt *memtable, frame []byte) error {
	f := &mt.wal
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return f.err
	}
	if f.f == nil {
		if err := w.create(f); err != nil {
			return err
		}
	}
	binary.LittleEndian.PutUint32(frame, uint32(len(frame)-walFrameLen))
	if err := w.write(f, frame); err != nil {
		return f.fail(err)
	}
	return nil
}

// create makes f's file and writes its header.
func (w *walFiles) create(f *walFile) error {
	w.mu.Lock()
	n := w.next
	w.next++
	w.mu.Unlock()
	f.path = filepath.Join(w.dir, fmt.Sprintf("%016x%s", n, walSuffix))
	fd, err := os.OpenFile(f.path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return f.fail(err)
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
		err = w.write(f, walHeader())
	}
	if err != nil {
		return f.fail(err)
	}
	return nil
}

// write writes b to f's file, counting the bytes written, and fsyncs it
// with SyncWrites.
func (w *walFiles) write(f *walFile, b []byte) error {
	n, err := f.f.Write(b)
	w.written.Add(int64(n))
	if err == nil && w.sync {
		err = f.f.Sync()
	}
	return err
}

// fail makes err, of f's file, the error of every later record.
func (f *walFile) fail(err error) error {
	f.err = fmt.Errorf("kv: WAL file %s: %w", filepath.Base(f.path), err)
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

// flushed removes the file of mt, now in a segment, and the files found at
// Open whose records are all at or below mt.hi.
func (w *walFiles) flushed(mt *memtable) error {
	f := &mt.wal
	f.mu.Lock()
	fd, path := f.f, f.path
	f.f = nil
	f.err = errors.New("kv: WAL file of a flushed memstore")
	f.mu.Unlock()
	var paths []string
	if fd != nil {
		w.mu.Lock()
		w.open = slices.DeleteFunc(w.open, func(x *os.File) bool { return x == fd })
		w.mu.Unlock()
		fd.Close()
		paths = append(paths, path)
	}
	return w.remove(append(paths, w.takeOld(mt.hi)...))
}

// takeOld returns the files found at Open whose records are all at or
// below hi and forgets them.
func (w *walFiles) takeOld(hi uint64) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var paths []string
	w.old = slices.DeleteFunc(w.old, func(o oldWAL) bool {
		if o.max <= hi {
			paths = append(paths, o.path)
			return true
		}
		return false
	})
	return paths
}

// remove deletes the files paths.
func (w *walFiles) remove(paths []string) error {
	for _, p := range paths {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("kv: WAL cleanup: %w", err)
		}
	}
	return nil
}

// closeAll closes the files still open (Close); they stay for the next
// Open to replay.
func (w *walFiles) closeAll() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, fd := range w.open {
		fd.Close()
	}
	w.open = nil
}
