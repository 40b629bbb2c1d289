package inspect

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv/internal/layout"
	"github.com/kvenc/kvenc/kv/internal/wal"
)

// WALRecord is one WAL record: one write's operations at one seq.
type WALRecord struct {
	Seq   uint64
	Bytes int
	Ops   []Op
}

// Op is one operation of a WAL record: a Put (Kind Put), a Delete, or a
// DeleteRange of [Key, Value) (Ranged).
type Op struct {
	Kind       blockenc.Kind
	Ranged     bool
	Key, Value []byte
}

// WALFile is one WAL file of a store on a directory (kv's doc, WAL file).
type WALFile struct {
	Name    string // relative to the store's directory
	Size    int
	Records []WALRecord
	// Torn counts the bytes of a last frame cut short or failing its
	// checksum: a write that never completed, which kv's Open leaves out.
	Torn int
	// Err is a bad header or a bad frame before the last one, which fail
	// kv's Open.
	Err error
}

func record(seq uint64, rec []byte) (WALRecord, error) {
	_, ops, err := wal.Decode(rec)
	r := WALRecord{Seq: seq, Bytes: len(rec)}
	for _, o := range ops {
		r.Ops = append(r.Ops, Op{Kind: o.Kind, Ranged: o.Ranged, Key: o.Key, Value: o.Value})
	}
	return r, err
}

// WALFiles reads the WAL files of a store Open opened (none for
// OpenEngine), in name order.
func (s *Store) WALFiles() []WALFile {
	if s.dir == "" {
		return nil
	}
	names, _ := filepath.Glob(filepath.Join(s.dir, "wal", "*.log"))
	slices.Sort(names)
	var out []WALFile
	for _, n := range names {
		f := WALFile{Name: filepath.Join("wal", filepath.Base(n))}
		b, err := os.ReadFile(n)
		if err != nil {
			f.Err = err
			out = append(out, f)
			continue
		}
		f.Size = len(b)
		recs, err := wal.DecodeFile(b)
		if err != nil {
			f.Err = err
		}
		used := len(wal.Header())
		for _, r := range recs {
			wr, err := record(r.Seq, r.B)
			if err != nil && f.Err == nil {
				f.Err = err
			}
			f.Records = append(f.Records, wr)
			used += wal.FrameLen + len(r.B)
		}
		if f.Err == nil && len(b) > used {
			f.Torn = len(b) - used
		}
		out = append(out, f)
	}
	return out
}

// WALInEngine reads the WAL records kept in the engine (a Store under
// Wrap, on TiKV, or of an earlier version), their chunks joined; a record
// that does not decode is an error naming its seq.
func (s *Store) WALInEngine() ([]WALRecord, []error) {
	var recs []WALRecord
	var errs []error
	var cur []byte
	var curSeq uint64
	flush := func() {
		if cur == nil {
			return
		}
		r, err := record(curSeq, cur)
		if err != nil {
			errs = append(errs, fmt.Errorf("WAL record seq %d: %w", curSeq, err))
		} else {
			recs = append(recs, r)
		}
		cur = nil
	}
	err := scan(s.eng, s.keys.Tag(layout.TagWAL), func(k, v []byte) error {
		seq, ok := s.keys.wal(k)
		if !ok {
			return nil
		}
		if cur != nil && seq != curSeq {
			flush()
		}
		curSeq = seq
		cur = append(cur, v...)
		return nil
	}, true)
	flush()
	if err != nil {
		errs = append(errs, err)
	}
	return recs, errs
}
